#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// When each line of a table file last changed, as `git blame` says: a
/// committed line its commit's author time, a line not committed yet the
/// time of asking. A translation whose line is older than its source
/// text's line was made for an earlier source text: *outdated*. Kept per
/// file until the file or the repository's index changes (a save, a
/// commit, a checkout).
final class LineAges: Sendable {
    private struct Kept {
        var stamp: [FileStamp]
        var ages: [Int: Int]
    }

    private let kept = Mutex<[String: Kept]>([:])
    private let git: String

    init(git: String = "/usr/bin/git") {
        self.git = git
    }

    /// Each line's (1-based) last change, seconds since 1970; nil when the file is in no git repository.
    func ages(of file: String) -> [Int: Int]? {
        let directory = (file as NSString).deletingLastPathComponent
        guard let index = index(of: directory) else { return nil }
        let stamp = [FileStamp(file), FileStamp(index)]
        if let known = kept.withLock({ $0[file] }), known.stamp == stamp { return known.ages }
        let blame = GitCommand.run(git, ["-C", directory, "blame", "--porcelain", "--", (file as NSString).lastPathComponent])
        guard blame.status == 0 else { return nil }
        let ages = Self.parse(blame.output, now: Int(Date().timeIntervalSince1970))
        kept.withLock { $0[file] = Kept(stamp: stamp, ages: ages) }
        return ages
    }

    /// `git blame --porcelain`: a header per group of lines (`SHA ORIGINAL FINAL COUNT`), the commit's
    /// headers the first time it appears (`author-time T`), each line's text after a tab.
    static func parse(_ output: [UInt8], now: Int) -> [Int: Int] {
        var times: [Substring: Int] = [:]
        var ages: [Int: Int] = [:]
        var current: (sha: Substring, line: Int)?
        var pending: [(sha: Substring, line: Int)] = []
        let text = String(decoding: output, as: UTF8.self)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("\t") { continue }
            let fields = line.split(separator: " ")
            if fields.count >= 3, fields[0].count == 40, fields[0].allSatisfy(\.isHexDigit), let final = Int(fields[2]) {
                current = (fields[0], final)
                pending.append((fields[0], final))
            } else if fields.count == 2, fields[0] == "author-time", let time = Int(fields[1]), let current {
                times[current.sha] = current.sha.allSatisfy({ $0 == "0" }) ? now : time
            }
        }
        for (sha, line) in pending { ages[line] = times[sha] ?? now }
        return ages
    }

    /// The index of the repository holding `directory`, found as git finds it: the nearest `.git` above — a
    /// directory, or a file naming one (`gitdir: …`, a worktree's or a submodule's); nil outside any.
    private func index(of directory: String) -> String? {
        var place = directory
        while true {
            let dotGit = place + "/.git"
            var status = stat()
            if stat(dotGit, &status) == 0 {
                if status.st_mode & S_IFMT == S_IFDIR { return dotGit + "/index" }
                guard let text = try? String(contentsOfFile: dotGit, encoding: .utf8), text.hasPrefix("gitdir:") else { return nil }
                let named = text.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespacesAndNewlines)
                return (named.hasPrefix("/") ? named : place + "/" + named) + "/index"
            }
            guard let slash = place.lastIndex(of: "/"), place != "/" else { return nil }
            place = slash == place.startIndex ? "/" : String(place[..<slash])
        }
    }
}
