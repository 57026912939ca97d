#if canImport(Glibc)
import Glibc
#endif
import CInotifyTools
import Foundation
import LprojPaths

/// The wd → directory table, kept here and not in libinotifytools (its table goes stale when the kernel drops a watch by
/// itself): adding and removing kernel watches, the paths a watch's events are about (a directory reached by two paths
/// through a link has one watch, and its events go under each), and letting go of one path of a watch.
extension WatchLoop {
    /// Adds a kernel watch on `directory` with `mask` on libinotifytools'
    /// instance; nil when it fails (the directory went, or a limit).
    func addWatch(_ directory: String, mask: Int32) -> Int32? {
        let watch = inotify_add_watch(descriptor, directory, UInt32(bitPattern: mask))
        guard watch >= 0 else { return nil }
        if let known = table.directories[watch], !known.hasSameBytes(as: directory) {
            // The same directory by another path (a link): one watch, its events under both.
            if !(table.aliases[watch] ?? []).contains(where: { $0.hasSameBytes(as: directory) }) { table.aliases[watch, default: []].append(directory) }
        } else {
            table.directories[watch] = directory
        }
        return watch
    }

    /// Removes the kernel watch `watch` (its `IN_IGNORED` follows).
    func removeWatch(_ watch: Int32) {
        inotify_rm_watch(descriptor, watch)
        table.directories[watch] = nil
        table.aliases[watch] = nil
    }

    /// The paths a watch's events are about: its directory, and the other paths it is reached by.
    func paths(of watch: Int32) -> [String] {
        guard let directory = table.directories[watch] else { return [] }
        return [directory] + (table.aliases[watch] ?? [])
    }

    /// Stops reporting `watch` under `directory`; the kernel's watch goes
    /// (with `removingFromKernel`) once no other path is left to it.
    func release(_ watch: Int32, of directory: String, removingFromKernel: Bool) {
        if var others = table.aliases[watch], !others.isEmpty {
            if table.directories[watch]?.hasSameBytes(as: directory) == true { table.directories[watch] = others.removeFirst() }
            others.removeAll { $0.hasSameBytes(as: directory) }
            table.aliases[watch] = others.isEmpty ? nil : others
            return
        }
        if removingFromKernel { removeWatch(watch) } else { table.directories[watch] = nil }
    }
}
