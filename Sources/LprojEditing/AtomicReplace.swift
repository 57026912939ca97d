#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LprojFormats
import LprojTables

/// Replaces a file as no reader can see half of: the new bytes go to a
/// temporary file beside it (`.NAME.lproj-edit.XXXXXX`: named as rsync
/// names its temporaries, which the daemon never reads), are flushed to
/// disk with the old file's mode and owner, then renamed over it, and the
/// directory is flushed. A kill at any moment leaves the old file or the
/// new one — and a temporary, which the next write of that file removes
/// once it is a minute old.
enum AtomicReplace {
    /// Writes `bytes` to `path` in `directory`. `expected` is what the
    /// file was when read (nil: it did not exist); when a writer that
    /// takes no lock has changed it since, nothing is replaced and the
    /// result is false, for the caller to read it again.
    static func write(_ bytes: [UInt8], to path: String, name: String, directory: String, expected: stat?) throws(TableEditError) -> Bool {
        removeAbandonedTemporaries(of: name, in: directory)
        var template = Array("\(directory)/\(temporaryPrefix(of: name))XXXXXX".utf8CString)
        let file = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard file >= 0 else {
            let denied = errno == EACCES || errno == EPERM || errno == EROFS
            throw TableEditError(path: directory, "cannot hold a temporary file: \(String(cString: strerror(errno)))", forbidden: denied)
        }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var renamed = false
        defer {
            close(file)
            if !renamed { unlink(temporary) }
        }
        if let expected {
            guard fchmod(file, expected.st_mode & 0o7777) == 0 else { throw failure(path, "cannot keep its mode") }
            var made = stat()
            fstat(file, &made)
            if made.st_uid != expected.st_uid || made.st_gid != expected.st_gid {
                guard fchown(file, expected.st_uid, expected.st_gid) == 0 else {
                    throw failure(path, "cannot keep its owner (uid \(expected.st_uid), gid \(expected.st_gid)): the file is not yours to replace")
                }
            }
        } else {
            let mask = umask(0)
            umask(mask)
            fchmod(file, 0o666 & ~mask)
        }
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(file, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw failure(path, "cannot be written") }
            offset += count
        }
        guard fsync(file) == 0 else { throw failure(path, "cannot be flushed to disk") }
        // A writer that takes no lock (an editor) may have saved meanwhile: its save wins, and the edit is made again on it.
        var current = stat()
        let exists = stat(path, &current) == 0
        if let expected {
            guard exists, current.st_ino == expected.st_ino, current.st_dev == expected.st_dev, current.st_size == expected.st_size,
                  current.st_mtim.tv_sec == expected.st_mtim.tv_sec, current.st_mtim.tv_nsec == expected.st_mtim.tv_nsec else { return false }
        } else if exists {
            return false
        }
        guard rename(temporary, path) == 0 else { throw failure(path, "cannot be replaced") }
        renamed = true
        let parent = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if parent >= 0 {
            fsync(parent)
            close(parent)
        }
        return true
    }

    /// What every temporary of `name` begins with.
    static func temporaryPrefix(of name: String) -> String { ".\(name).lproj-edit." }

    /// Temporaries of `name` a killed writer left, a minute old or more (a
    /// live writer's is seconds old at most).
    private static func removeAbandonedTemporaries(of name: String, in directory: String) {
        let prefix = temporaryPrefix(of: name)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for candidate in names where candidate.hasPrefix(prefix) && candidate.utf8.count == prefix.utf8.count + 6 {
            var status = stat()
            let path = directory + "/" + candidate
            if lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, time(nil) - status.st_mtim.tv_sec >= 60 { unlink(path) }
        }
    }

    private static func failure(_ path: String, _ what: String) -> TableEditError {
        TableEditError(path: path, "\(what): \(String(cString: strerror(errno)))")
    }
}
