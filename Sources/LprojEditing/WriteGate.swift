#if canImport(Glibc)
import Glibc
#endif
import LprojFormats
import LprojPaths
import LprojTables

/// Where a writer of tables may write: the one rule the writer (`lprojctl
/// set`, `rm`, `mv`), the studio and XLIFF import share. A table file is
/// written only inside the roots — the daemon's, an import's `--root`, or
/// for a tool given a bundle, that bundle — as the disk resolves it, not
/// as the path reads: a directory reached through a symbolic link to
/// outside the roots is refused. A table that is itself a symbolic link is
/// written through, to the file it names, when that is inside the roots
/// (the link stays a link; the target gets the text), and refused when it
/// is not. That the file is a regular file the caller may write is the
/// lock's to check (`TableFileLock`).
public struct WriteGate: Sendable {
    /// The roots, as the disk resolves them (absolute, no link).
    public let roots: [String]

    /// A gate for `roots` (made absolute and resolved; a root that does not exist is kept as named).
    public init(roots: [String]) {
        self.roots = roots.map { root in Self.resolved(PathText.tidy(PathText.absolute(root))) }
    }

    /// The file a write of `path` (absolute) goes to: `path`, or the file
    /// the symbolic link at `path` names. Throws, naming where it leads,
    /// when that is outside the roots or names nothing.
    public func place(of path: String) throws(TableEditError) -> String {
        let slash = path.lastIndex(of: "/") ?? path.startIndex
        let directory = Self.resolved(slash == path.startIndex ? "/" : String(path[..<slash]))
        guard isInside(directory) else {
            throw TableEditError(path: path, "its directory is \(directory) on disk (through a symbolic link), outside \(described): nothing was written",
                                 forbidden: true)
        }
        var status = stat()
        guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFLNK else { return path }
        guard let target = Self.realPath(path) else {
            throw TableEditError(path: path, "is a symbolic link to a file that does not exist: nothing was written")
        }
        guard isInside(target) else {
            throw TableEditError(path: path, "is a symbolic link to \(target), outside \(described): nothing was written", forbidden: true)
        }
        return target
    }

    /// Whether `path` (resolved) is one of the roots or under one.
    public func isInside(_ path: String) -> Bool {
        roots.contains { root in root == "/" || path == root || path.hasPrefix(root + "/") }
    }

    private var described: String {
        roots.count == 1 ? roots[0] : "every root (\(roots.joined(separator: ", ")))"
    }

    /// `path` with every link resolved: of its longest part that exists,
    /// followed by the rest as named (a directory a write will make).
    static func resolved(_ path: String) -> String {
        var existing = path
        var rest: [Substring] = []
        while Self.realPath(existing) == nil, let slash = existing.lastIndex(of: "/"), slash != existing.startIndex {
            rest.insert(existing[existing.index(after: slash)...], at: 0)
            existing = String(existing[..<slash])
        }
        let base = Self.realPath(existing) ?? existing
        return rest.isEmpty ? base : (base == "/" ? "" : base) + "/" + rest.joined(separator: "/")
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
