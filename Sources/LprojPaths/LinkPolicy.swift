#if canImport(Glibc)
import Glibc
#endif

/// Which symbolic links are followed: the one rule for the daemon's
/// watches, its crawls and reads, and `LocalizedBundle` (a client's
/// offline start, `lprojctl`).
///
/// - A link is followed when what it leads to — every link on the way
///   resolved, as `realpath` says — is a directory or a regular file under
///   one of the policy's places (the daemon's: its roots and
///   `[Watch] FollowLinksTo=`). Places are resolved at each look, so a root
///   whose own link a deploy swapped moves with it. A link that leads
///   anywhere else, or nowhere (dangling), or round a chain the kernel gives
///   up on (`ELOOP`) is skipped: a link never lets a client read a file the
///   configuration did not mean to expose.
/// - A directory link that leads back to a directory it is reached through
///   (itself, or one on the path it is reached by) is a loop: skipped, never
///   walked for ever.
/// - Names that start with `..` are never walked (`isWalked`): kubelet's
///   atomic writer keeps a ConfigMap's payload in `..2026_12_01_…` and points
///   `..data` at it; the links through `..data` are walked instead.
/// - A read that follows a link checks where the opened file really is
///   (`/proc/self/fd`), so a link swapped between the look and the open
///   cannot lead it out either.
public struct LinkPolicy: Sendable {
    /// What a link leads to, as the policy sees it.
    public enum Resolution: Hashable, Sendable {
        /// A directory to walk, at this real path.
        case directory(String)
        /// A regular file to read, at this real path.
        case file(String)
        /// Not followed, and why (for the log: "dangling: …").
        case skipped(String)

        /// Equal when the bytes are: a link swapped from `Café` in NFC to its
        /// NFD twin leads elsewhere (String's `==` would call them equal).
        public static func == (lhs: Resolution, rhs: Resolution) -> Bool {
            switch (lhs, rhs) {
            case (.directory(let left), .directory(let right)), (.file(let left), .file(let right)), (.skipped(let left), .skipped(let right)):
                return left.hasSameBytes(as: right)
            default:
                return false
            }
        }

        public func hash(into hasher: inout Hasher) {
            switch self {
            case .directory(let path): hasher.combine(0); hasher.combine(ExactName(path))
            case .file(let path): hasher.combine(1); hasher.combine(ExactName(path))
            case .skipped(let reason): hasher.combine(2); hasher.combine(ExactName(reason))
            }
        }
    }

    /// Follows every link (the reader of a file a user named), loops still refused.
    public static let everywhere = LinkPolicy(scope: .everywhere)
    /// Follows none.
    public static let nowhere = LinkPolicy(scope: .under([]))

    /// Follows links that lead under one of `places` (absolute paths; links
    /// among them are resolved at each look).
    public init(under places: [String]) {
        scope = .under(places)
    }

    /// Whether any link may be followed at all.
    public var followsAny: Bool {
        if case .under(let places) = scope { !places.isEmpty } else { true }
    }

    /// What the link at `path` leads to (`path` is how the walk reached it;
    /// its ancestors are what a directory link must not lead back to).
    public func resolve(_ path: String) -> Resolution {
        guard followsAny else { return .skipped("symbolic links are not followed here") }
        guard let target = Self.realPath(path) else {
            let reason = errno == ELOOP ? "a loop of symbolic links" : errno == ENOENT || errno == ENOTDIR
                ? "dangling (it leads to \(Self.linkText(path) ?? "?"), which does not exist)" : String(cString: strerror(errno))
            return .skipped(reason)
        }
        var info = stat()
        guard stat(target, &info) == 0 else { return .skipped(String(cString: strerror(errno))) }
        let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
        guard isDirectory || (info.st_mode & S_IFMT) == S_IFREG else { return .skipped("it leads to \(target), neither a directory nor a regular file") }
        guard allows(realPath: target) else { return .skipped("it leads to \(target), outside every root (see FollowLinksTo= in lprojd.conf(5))") }
        guard isDirectory else { return .file(target) }
        // A loop: the target is a directory this link is reached through, or holds one.
        var ancestor = Substring(path)
        while let slash = ancestor.lastIndex(of: "/"), slash != ancestor.startIndex {
            ancestor = ancestor[..<slash]
            if let real = Self.realPath(String(ancestor)), ExactName(real).isWithin(target) {
                return .skipped("a loop: it leads back to \(target), which \(ancestor) lies in")
            }
        }
        return .directory(target)
    }

    /// Whether a file or directory whose real path is `realPath` is one this policy exposes.
    public func allows(realPath: String) -> Bool {
        switch scope {
        case .everywhere: return true
        case .under(let places): return places.contains { place in Self.realPath(place).map { ExactName(realPath).isWithin($0) } ?? false }
        }
    }

    /// Whether a walk goes into (or reads) an entry named `name`: not when it
    /// starts with `..` (kubelet's `..data`, `..data_tmp` and payload directories).
    @inline(__always)
    public static func isWalked(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { !($0.count >= 2 && $0[0] == 0x2E && $0[1] == 0x2E) }
    }

    /// The canonical path of `path` (every link resolved), nil with `errno` set when there is none.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Where the open file `descriptor` really is.
    package static func realPath(of descriptor: Int32) -> String? {
        linkText("/proc/self/fd/\(descriptor)")
    }

    /// The text of the link at `path` (what `readlink` says).
    public static func linkText(_ path: String) -> String? {
        var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &target, target.count - 1)
        guard count >= 0 else { return nil }
        return String(decoding: target.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    package enum Scope: Sendable {
        case everywhere
        case under([String])
    }

    /// Where links may lead (the reader opens without `O_NOFOLLOW` only for `everywhere`).
    package let scope: Scope

    private init(scope: Scope) {
        self.scope = scope
    }
}
