import Foundation
import LprojFormats
import LprojPaths
import LprojTables

/// One key's history in one language: the commits of the repository
/// holding its file that changed the key's entry, newest first — who, when,
/// and the text it was given. The file is read at each commit and parsed as
/// the daemon parses it, so a value spread over lines, a reflowed file or a
/// catalog's many languages are followed by meaning, not by line numbers.
struct KeyHistory {
    /// One change of the entry.
    struct Change {
        var commit: String
        var author: String
        /// ISO 8601, as git writes `%aI`.
        var date: String
        var subject: String
        /// The entry after the commit (nil: the commit removed it).
        var entry: Entry?
    }

    /// The changes (at most `limit`), or why there are none to show.
    enum Outcome {
        case changes([Change])
        case unavailable(String)
    }

    /// Commits of the file looked at, at most: a key's history is the recent past.
    static let commitsRead = 60

    /// The history of `key` in `language`'s table held in `file`. `git` is
    /// run as the studio's user in the file's directory; a file outside any
    /// repository has none.
    static func of(key: String, language: String, file: String, limit: Int = 10, git: String = "/usr/bin/git") -> Outcome {
        let url = URL(fileURLWithPath: file)
        let directory = url.deletingLastPathComponent().path
        let name = url.lastPathComponent
        guard FileManager.default.isExecutableFile(atPath: git) else { return .unavailable("git is not installed") }
        let log = GitCommand.run(git, ["-C", directory, "log", "--no-color", "-n", String(commitsRead),
                            "--format=%H%x1f%an%x1f%aI%x1f%s", "--", name])
        guard log.status == 0 else {
            let reason = String(decoding: log.errors, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? "git log failed"
            return .unavailable(reason.hasPrefix("fatal: not a git repository") ? "\(directory) is not in a git repository" : reason)
        }
        let commits = String(decoding: log.output, as: UTF8.self).split(separator: "\n").compactMap { line -> Change? in
            let fields = line.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 4 else { return nil }
            return Change(commit: fields[0], author: fields[1], date: fields[2], subject: fields[3], entry: nil)
        }
        // Oldest first, the entry at each commit; a change kept where it differs from the one before.
        var changes: [Change] = []
        var previous: Entry?? = .none
        for var commit in commits.reversed() {
            let shown = GitCommand.run(git, ["-C", directory, "show", "--no-color", "\(commit.commit):./\(name)"])
            commit.entry = shown.status == 0 ? entry(of: key, language: language, bytes: shown.output, path: file) : nil
            if previous.map({ $0 != commit.entry }) ?? (commit.entry != nil) { changes.append(commit) }
            previous = .some(commit.entry)
        }
        return .changes(Array(changes.reversed().prefix(limit)))
    }

    /// `key`'s entry in `language` in a file's `bytes` (a catalog holds every language).
    private static func entry(of key: String, language: String, bytes: [UInt8], path: String) -> Entry? {
        guard let format = TableFormat(path: path) else { return nil }
        switch TableFile(bytes: bytes, path: path, format: format, limits: TableLimits()).contents {
        case .table(let table): return table[key]
        case .catalog(let catalog): return catalog.tables[language]?[key]
        }
    }
}
