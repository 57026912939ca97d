#if canImport(Glibc)
import Glibc
#endif
import CInotifyTools
import Foundation
import LprojPaths

/// What the tree skips and says once: a directory it may not read, a FIFO, socket or device named like a table.
extension WatchLoop {
    /// Says once that `path` is skipped, and why.
    func noteOnce(_ path: String, _ reason: String) {
        guard skippedNoted.insert(ExactName(path)).inserted else { return }
        noteSkipped(path, reason)
    }

    /// A FIFO, socket or device named like a table: never opened (a FIFO would block a reader), said once.
    func noteSpecial(_ path: String, _ kind: String) {
        guard TableFormat(path: path) != nil, !isExcluded(path) else { return }
        noteOnce(path, "\(kind), not a regular file: not read")
    }

    /// What special file `path` is (a FIFO, a socket, a device), if it is one and is named like a table.
    static func specialKind(_ path: String) -> String? {
        guard TableFormat(path: path) != nil else { return nil }
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return DirectoryListing.specialKind(mode: info.st_mode)
    }
}
