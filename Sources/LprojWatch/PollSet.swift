#if canImport(Glibc)
import Glibc
#endif
import CInotifyTools
import Foundation
import LprojPaths

/// The directories listed instead of watched — those of polled roots, and those a kernel limit kept from a watch — with
/// their files' stamps; a poll reports what changed since the last look, as inotify would have.
extension WatchLoop {
    /// Whether `directory` lies in a root that is polled, never watched.
    func isPolled(_ directory: String) -> Bool {
        !polling.roots.isEmpty && polling.roots.contains { ExactName(directory).isWithin($0) }
    }

    /// Lists every directory that could not be watched and reports what
    /// changed since the last look, as inotify would have (`listed` for a
    /// new or changed file, so that it is read once complete); a directory
    /// that can be watched now is watched, and listed once more.
    func pollUnwatched() -> [FileEvent] {
        var events: [FileEvent] = []
        polling.descriptorLimitReached = false
        for key in polling.unwatched.keys.sorted() {
            guard let before = polling.unwatched[key] else { continue }   // gone with a parent this turn (or a link's old target)
            let directory = String(key.string.dropLast())
            var info = stat()
            guard stat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                for (inner, _) in polling.unwatched where inner.isWithin(directory) { polling.unwatched[inner] = nil }
                unwatchTree(directory, removingFromKernel: true)
                events.append(.directoryGone(directory))
                continue
            }
            if !isPolled(directory), let watch = addWatch(directory, mask: Self.mask) {
                // Room again: watched from now on, and read once more in case of a change meanwhile.
                polling.unwatched[key] = nil
                table.watched[key] = watch
                events += watchTree(directory)
                continue
            }
            var now: [String: FileStamp] = [:]
            let readable = DirectoryListing.forEachName(of: directory, following: links, onLink: { name, resolution in
                guard !isExcluded(key.string + name), !isIgnored(name) else { return }
                lookedAt(key.string + name, resolution, into: &events)
            }, onSpecial: { name, kind in
                noteSpecial(key.string + name, kind)
            }) { name, kind in
                switch kind {
                case .directory:
                    let child = key.string + name
                    if !isExcluded(child), table.watched[ExactName(child + "/")] == nil, polling.unwatched[ExactName(child + "/")] == nil {
                        events += watchTree(child)
                    }
                case .file:
                    guard !isIgnored(name) else { return }
                    let stamp = FileStamp(key.string + name)
                    now[name] = stamp
                    if before[name] != stamp { events.append(.listed(key.string + name)) }
                }
            }
            guard readable || (errno != EMFILE && errno != ENFILE) else {
                polling.descriptorLimitReached = true
                continue
            }
            for name in before.keys where now[name] == nil { events.append(.removed(key.string + name)) }
            polling.unwatched[key] = now
        }
        let scanned = Date()
        for root in polling.roots { polling.lastScans[ExactName(root)] = scanned }
        if !polling.unwatched.keys.contains(where: { table.watched[$0] == nil && !isPolled($0.string) }) { polling.watchLimitReached = false }
        return Self.coalesce(events)
    }
}

/// What a poll compares a file by: inode, size, modification and change times.
struct FileStamp: Equatable {
    var inode: UInt64 = 0
    var size: Int64 = 0
    var modified: Int64 = 0
    var changed: Int64 = 0

    /// Of the file at `path`, or of the file a link there leads to.
    init(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    }
}
