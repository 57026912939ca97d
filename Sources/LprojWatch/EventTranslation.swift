#if canImport(Glibc)
import Glibc
#endif
import CInotifyTools
import Foundation
import LprojPaths

/// Raw inotify events turned into `FileEvent`s: files written, removed or being written; directories that come, go or
/// move (watched or forgotten at once); a root that goes or comes back; a link on a root's way that moves.
extension WatchLoop {
    func translate(_ event: RawEvent, into events: inout [FileEvent]) {
        if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
            events.append(.overflow)
            for root in roots { _ = watchTree(root) }   // pick up directories whose creation was lost
            return
        }
        if let links = linkState.onTheWay[event.descriptor], !event.name.isEmpty {
            for link in links where link.name == event.name && roots.contains(where: { $0.hasSameBytes(as: link.root) }) {
                if event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                    swapRoot(link.root, into: &events)
                } else if event.mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
                    // The link went: the root is gone until a link of that name comes back.
                    unwatchTree(link.root, removingFromKernel: true)
                    events.append(.directoryGone(link.root))
                }
            }
            // A directory outside the tree, watched for its links alone.
            if let directory = table.directories[event.descriptor], table.watched[ExactName(directory + "/")] != event.descriptor { return }
        }
        if event.mask & UInt32(IN_IGNORED) != 0 {
            // The kernel dropped the watch (its directory was deleted, or we removed it).
            for directory in paths(of: event.descriptor) where table.watched[ExactName(directory + "/")] == event.descriptor {
                table.watched[ExactName(directory + "/")] = nil
            }
            table.directories[event.descriptor] = nil
            table.aliases[event.descriptor] = nil
            return
        }
        for directory in paths(of: event.descriptor) { translate(event, in: directory, into: &events) }
    }

    /// An event of a watched directory, under one of its paths.
    func translate(_ event: RawEvent, in directory: String, into events: inout [FileEvent]) {
        let moving = UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF)
        // Anything that comes, goes or moves may be on the way of a link (or be where a dangling one leads).
        if !linkState.seen.isEmpty, event.mask & moving != 0, !linkState.mayHaveMoved, mayMoveALink(event, in: directory) { linkState.mayHaveMoved = true }
        if let root = missing.roots.first(where: { $0.value.hasSameBytes(as: directory) })?.key, !event.name.isEmpty,
           root.matches(directory + "/" + event.name), event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
            rootCameBack(root, in: directory, into: &events)
            return
        }
        if event.mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0, event.name.isEmpty {
            if roots.contains(where: { $0.hasSameBytes(as: directory) }) {
                rootGone(directory, movedAway: event.mask & UInt32(IN_MOVE_SELF) != 0, into: &events)
            }
            return
        }
        guard !event.name.isEmpty else { return }
        let path = directory + "/" + event.name
        // kubelet's `..data` and payloads are never walked; a rename of `..data` is a move of every link through it.
        guard LinkPolicy.isWalked(event.name) else {
            if event.mask & moving != 0, links.followsAny { linkState.mayHaveMoved = true }
            return
        }
        if event.mask & UInt32(IN_ISDIR) == 0, event.mask & moving != 0, links.followsAny {
            // A link (new, replaced or gone) is looked at once the batch is read.
            if linkState.seen[ExactName(path)] != nil { return }
            if event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0, Self.isSymbolicLink(path) {
                guard !isExcluded(path), !isIgnored(event.name) else { return }
                linkState.seen[ExactName(path)] = Self.notLookedAt
                linkState.mayHaveMoved = true
                return
            }
        }
        if event.mask & UInt32(IN_ISDIR) != 0 {
            if event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                if !isExcluded(path) { events += watchTree(path) }
            } else if event.mask & UInt32(IN_MOVED_FROM) != 0 {
                unwatchTree(path, removingFromKernel: true)
                events.append(.directoryGone(path))
            } else if event.mask & UInt32(IN_DELETE) != 0 {
                // The kernel dropped those watches itself when the directories went.
                unwatchTree(path, removingFromKernel: false)
                events.append(.directoryGone(path))
            }
            return
        }
        guard !isIgnored(event.name) else { return }
        if event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0, let kind = Self.specialKind(path) {
            // A FIFO, socket or device (mkfifo, mknod, or moved over a table): never read, like one met by a walk.
            noteSpecial(path, kind)
            if event.mask & UInt32(IN_MOVED_TO) != 0 { events.append(.removed(path)) }
            return
        }
        if event.mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO) != 0 {
            events.append(.written(path))
            if !linkState.fileLinks.isEmpty, let real = LinkPolicy.realPath(directory), let linked = linkState.fileLinks[ExactName(real + "/" + event.name)] {
                // A file that links lead to: written for each of them too.
                events += linked.map { .written($0) }
            }
        } else if event.mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
            events.append(.removed(path))
        } else if event.mask & UInt32(IN_MODIFY) != 0 {
            events.append(.modified(path))
        }
    }
}
