#if canImport(Glibc)
import Glibc
#endif

/// What changes when a file is written or replaced: its inode, size and
/// modification time — how the studio knows that something it worked out
/// from a file (its comments, its lines' ages in git) still holds.
struct FileStamp: Hashable, Sendable {
    private var fields: [Int]

    /// `path`'s stamp now (all zero when it does not exist).
    init(_ path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            fields = [0, 0, 0, 0]
            return
        }
        fields = [Int(status.st_ino), Int(status.st_size), Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec)]
    }
}
