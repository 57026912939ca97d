#if canImport(Glibc)
import Glibc
#endif
import LprojTables

/// The images lprojd published (docs/PROTOCOL.md, "Published images"),
/// as a bundle's first views read them: the tables a daemon serves,
/// without a round trip and without parsing — a process starting while
/// lprojd runs answers its first lookup sooner than one reading files.
///
/// Read only while they can be trusted: the directory belongs to this
/// user, root or `lprojd` (`DaemonTrust`; another user's is never read,
/// not even by root), no other user may write in it, and its daemon holds
/// it locked — the images of a daemon that stopped or was killed are
/// never read. Each file belongs to the directory's owner and is mapped
/// read-only, then checked whole (`PublishedImage`): one of another
/// table, damaged or cut short is not used, and the table's files are
/// read instead. What they give is the daemon's state at that moment,
/// as an `images` reply would be: the connection's first subscription
/// then reads the views' tables again, as for tables read from files.
final class PublishedImages {
    private let directory: Int32
    private let owner: UInt32

    /// The directory at `path`, when it is trusted and its daemon runs; nil otherwise.
    init?(path: String) {
        let directory = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directory >= 0 else { return nil }
        var info = stat()
        guard fstat(directory, &info) == 0, info.st_mode & 0o022 == 0, DaemonTrust.trusts(info.st_uid), Self.isHeldByItsDaemon(directory) else {
            close(directory)
            return nil
        }
        self.directory = directory
        owner = info.st_uid
    }

    deinit {
        close(directory)
    }

    /// The published table at this address; nil when none is, or it is not to be used.
    func table(bundle: String, localization: String, table: String) -> Table? {
        let name = PublishedImage.name(bundle: bundle, localization: localization, table: table)
        // Not blocking: a FIFO planted under the name would block an open for reading.
        let file = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == owner else { return nil }
        return try? PublishedImage.table(mapping: file, bundle: bundle, localization: localization, table: table)
    }

    /// Whether the daemon holds the directory's lock: a shared lock taken
    /// at once means nobody does (it is let go again).
    private static func isHeldByItsDaemon(_ directory: Int32) -> Bool {
        if flock(directory, LOCK_SH | LOCK_NB) == 0 {
            flock(directory, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK
    }
}
