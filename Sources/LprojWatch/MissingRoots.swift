#if canImport(Glibc)
import Glibc
#endif
import CInotifyTools
import Foundation
import LprojPaths

/// Roots that go away and come back: their watches forgotten, the parent watched for their return, a root dropped.
extension WatchLoop {
    /// Stops watching a root and what is under it.
    func removeRoot(_ root: String) {
        roots.removeAll { $0.hasSameBytes(as: root) }
        for (watch, links) in linkState.onTheWay {
            let kept = links.filter { !$0.root.hasSameBytes(as: root) }
            linkState.onTheWay[watch] = kept.isEmpty ? nil : kept
        }
        unwatchTree(root, removingFromKernel: true)
        if let parent = missing.roots.removeValue(forKey: ExactName(root)) { releaseParentWatch(parent) }
    }

    /// Forgets the watches on `path` and below; a directory moved away still
    /// has kernel watches, which are removed.
    func unwatchTree(_ path: String, removingFromKernel: Bool) {
        for (key, _) in polling.unwatched where key.isWithin(path) { polling.unwatched[key] = nil }
        for (key, watch) in table.watched where key.isWithin(path) {
            release(watch, of: String(key.string.dropLast()), removingFromKernel: removingFromKernel)
            table.watched[key] = nil
        }
        // The links met under it (not a link at `path` itself: its caller decides).
        for (key, resolution) in linkState.seen where key.isWithin(path) && !key.matches(path) {
            linkState.seen[key] = nil
            linkState.skippedTargets[key] = nil
            if case .file(let target) = resolution {
                linkState.fileLinks[ExactName(target)]?.removeAll { $0.hasSameBytes(as: key.string) }
                if linkState.fileLinks[ExactName(target)]?.isEmpty == true { linkState.fileLinks[ExactName(target)] = nil }
            }
        }
    }

    /// Stops watching a root's parent once no missing root needs it (unless
    /// it is itself a watched directory).
    func releaseParentWatch(_ directory: String) {
        let key = directory + "/"
        guard table.watched[ExactName(key)] == nil, !missing.roots.values.contains(where: { $0.hasSameBytes(as: directory) }),
              let watch = missing.parentWatches.removeValue(forKey: ExactName(directory)) else { return }
        removeWatch(watch)
    }

    /// A root went away: forget its watches and watch its nearest existing
    /// ancestor for its return.
    func rootGone(_ root: String, movedAway: Bool, into events: inout [FileEvent]) {
        // A moved tree keeps its kernel watches (they would follow it); a deleted one has none left.
        unwatchTree(root, removingFromKernel: movedAway)
        events.append(.directoryGone(root))
        var ancestor = (root as NSString).deletingLastPathComponent
        while !ancestor.isEmpty, access(ancestor, F_OK) != 0 { ancestor = (ancestor as NSString).deletingLastPathComponent }
        // Only the direct parent is watched for the name; a deeper loss waits for an overflow rescan.
        let parent = (root as NSString).deletingLastPathComponent
        if ancestor == parent, table.watched[ExactName(parent + "/")] == nil, missing.parentWatches[ExactName(parent)] == nil {
            missing.parentWatches[ExactName(parent)] = addWatch(parent, mask: Int32(IN_CREATE | IN_MOVED_TO))
        }
        missing.roots[ExactName(root)] = parent
        // Something may have taken its name before the parent was watched (`mv root old && ln -s new root`): its
        // event is not coming, so it is looked for once the watch is in place.
        var info = stat()
        if ancestor == parent, lstat(root, &info) == 0 { rootCameBack(ExactName(root), in: parent, into: &events) }
    }

    /// A missing root is there again (perhaps as a link: its way is watched
    /// for the link's next move).
    func rootCameBack(_ root: ExactName, in parent: String, into events: inout [FileEvent]) {
        missing.roots[root] = nil
        releaseParentWatch(parent)
        events += watchTree(root.string)
        watchLinks(of: root.string)
    }
}
