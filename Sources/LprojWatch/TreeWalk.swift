#if canImport(Glibc)
import Glibc
#endif
import CInotifyTools
import Foundation
import LprojPaths

/// The walk: a directory watched first and then listed, and so down the tree, so that nothing made in between is missed.
extension WatchLoop {
    /// Watches `path` and every directory under it, then lists them: events
    /// for the directory and `listed` for each file already there — or, with
    /// `listing`, the files go there instead, a directory at a time, in
    /// batches of a few hundred files.
    func watchTree(_ path: String, listing: (([ListedDirectory]) -> Void)? = nil) -> [FileEvent] {
        var events: [FileEvent] = []
        var listed: [ListedDirectory] = []
        var listedFiles = 0
        var pending = [path]
        defer { if let listing, !listed.isEmpty { listing(listed) } }
        while let directory = pending.popLast() {
            if let listing, listedFiles >= 256 {
                listing(listed)
                listed.removeAll(keepingCapacity: true)
                listedFiles = 0
            }
            let key = directory + "/"
            var polled = polling.unwatched[ExactName(key)] != nil
            if table.watched[ExactName(key)] == nil, !polled {
                // Watch first, then list: nothing created in between is missed.
                if isPolled(directory) {
                    polling.unwatched[ExactName(key)] = [:]
                    polled = true
                } else if let watch = addWatch(directory, mask: Self.mask) {
                    table.watched[ExactName(key)] = watch
                } else if errno == ENOSPC || errno == ENOMEM {
                    // Past the kernel's watch limit: listed now, polled from now on (`pollUnwatched`).
                    polling.watchLimitReached = true
                    polling.unwatched[ExactName(key)] = [:]
                    polled = true
                } else {
                    // Gone already, or not ours to read.
                    if errno == EACCES { noteOnce(directory, "directory skipped: permission denied (not table.watched, not read)") }
                    continue
                }
                events.append(.directoryAppeared(directory))
            }
            var files: [String] = []
            var stamps: [String: FileStamp] = [:]
            let readable = DirectoryListing.forEachName(of: directory, following: links, onLink: { name, resolution in
                guard !isExcluded(key + name), !isIgnored(name) else { return }
                lookedAt(key + name, resolution, into: &events)
            }, onSpecial: { name, kind in
                noteSpecial(key + name, kind)
            }) { name, kind in
                switch kind {
                case .directory:
                    let child = key + name
                    if !isExcluded(child) { pending.append(child) }
                case .file:
                    guard !isIgnored(name) else { return }
                    if polled { stamps[name] = FileStamp(key + name) }
                    if listing != nil { files.append(name) } else { events.append(.listed(key + name)) }
                }
            }
            if !readable, errno == EMFILE || errno == ENFILE {
                // Out of descriptors: listed again by the next poll (`polling.descriptorLimitReached` says so).
                polling.descriptorLimitReached = true
                polling.unwatched[ExactName(key)] = [:]
                continue
            }
            if !readable, errno == EACCES { noteOnce(directory, "directory skipped: permission denied (table.watched, not read)") }
            if polled { polling.unwatched[ExactName(key)] = stamps }
            if !files.isEmpty {
                listedFiles += files.count
                listed.append(ListedDirectory(path: directory, files: files))
            }
        }
        return events
    }
}
