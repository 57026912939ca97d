#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LprojFormats
import LprojTables

/// The lock of one table file, taken by every writer of lprojd's (the
/// `lprojctl` edits, the studio): `flock` on the file itself, so two
/// writers never both read the same content and each write it back.
///
/// A write replaces the file by a rename, so a lock taken on the file a
/// rename has since replaced locks nothing: the lock is taken again until
/// the path still names the locked file. A file not made yet is locked
/// through its directory until it exists.
///
/// Only a regular file the caller may write is locked (access(2), as the
/// shell's `test -w`): a table made read-only is refused, not replaced by
/// the rename, and a FIFO or device named like a table is refused without
/// being waited on (it is opened without blocking, and checked first).
struct TableFileLock: ~Copyable {
    /// The locked file's descriptor (or its directory's, for a new file).
    let descriptor: Int32
    /// Whether the file existed when locked.
    let fileExists: Bool
    /// What the file was when locked (for noticing a writer that takes no lock).
    let status: stat?

    /// Waits for the lock of `path` (in directory `directory`, made if missing).
    init(path: String, directory: String) throws(TableEditError) {
        while true {
            let file = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
            if file >= 0 {
                var opened = stat()
                guard fstat(file, &opened) == 0, (opened.st_mode & S_IFMT) == S_IFREG else {
                    close(file)
                    throw TableEditError(path: path, "is not a regular file (\(Self.kind(of: opened.st_mode))): not a table to edit")
                }
                guard access(path, W_OK) == 0 else {
                    let reason = String(cString: strerror(errno))
                    close(file)
                    throw TableEditError(path: path, "is not writable by you (\(reason)): nothing was written", forbidden: true)
                }
                guard flock(file, LOCK_EX) == 0 else {
                    let reason = String(cString: strerror(errno))
                    close(file)
                    throw TableEditError(path: path, "cannot be locked: \(reason)")
                }
                var locked = stat(), current = stat()
                if fstat(file, &locked) == 0, stat(path, &current) == 0, locked.st_ino == current.st_ino, locked.st_dev == current.st_dev {
                    guard (locked.st_mode & S_IFMT) == S_IFREG else {
                        close(file)
                        throw TableEditError(path: path, "is not a regular file")
                    }
                    descriptor = file
                    fileExists = true
                    status = locked
                    return
                }
                close(file) // Replaced while we waited: lock the new one.
                continue
            }
            guard errno == ENOENT else { throw TableEditError(path: path, "cannot be opened: \(String(cString: strerror(errno)))") }
            let made = try Self.makeDirectory(directory)
            let parent = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard parent >= 0 else { throw TableEditError(path: directory, "cannot be opened: \(String(cString: strerror(errno)))") }
            guard flock(parent, LOCK_EX) == 0 else {
                close(parent)
                throw TableEditError(path: directory, "cannot be locked: \(String(cString: strerror(errno)))")
            }
            var locked = stat(), current = stat()
            guard fstat(parent, &locked) == 0, stat(directory, &current) == 0, locked.st_ino == current.st_ino, locked.st_dev == current.st_dev else {
                close(parent) // Removed while we waited (a writer that made it and failed): make it again.
                continue
            }
            if access(path, F_OK) == 0 {
                close(parent) // Made meanwhile: lock the file.
                continue
            }
            guard access(directory, W_OK) == 0 else {
                let reason = String(cString: strerror(errno))
                close(parent)
                throw TableEditError(path: directory, "is not writable by you (\(reason)): nothing was written", forbidden: true)
            }
            descriptor = parent
            fileExists = false
            status = nil
            madeDirectory = made ? directory : nil
            return
        }
    }

    /// A directory this lock made for a new file: removed again at the end when it is still empty (the write failed).
    private var madeDirectory: String?

    deinit {
        // Only an empty directory goes: a full disk (ENOSPC) does not leave an empty new .lproj behind.
        if let madeDirectory { rmdir(madeDirectory) }
        close(descriptor)
    }

    /// A file type in words, for a refusal.
    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        case S_IFDIR: return "a directory"
        default: return "not a regular file"
        }
    }

    /// The locked file's bytes (nil for a file not made yet).
    func read(path: String, limit: Int) throws(TableEditError) -> [UInt8]? {
        guard fileExists, let status else { return nil }
        guard Int(status.st_size) <= limit else { throw TableEditError(path: path, "is larger than \(limit) bytes") }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + offset, $0.count - offset, off_t(offset)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw TableEditError(path: path, "cannot be read: \(count == 0 ? "it shrank while read" : String(cString: strerror(errno)))") }
            offset += count
        }
        return bytes
    }

    /// Makes `directory` unless it exists; whether it made it.
    private static func makeDirectory(_ directory: String) throws(TableEditError) -> Bool {
        if mkdir(directory, 0o777) == 0 { return true }
        if errno == EEXIST { return false }
        throw TableEditError(path: directory, "cannot be made: \(String(cString: strerror(errno)))")
    }
}
