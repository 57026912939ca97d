#if canImport(Glibc)
import Glibc
#endif
import CInotifyTools
import Foundation
import LprojPaths

/// Symbolic links inside the tree and on a root's way: what each led to when last looked at, looked at again after a
/// batch in which something on their way may have moved, and what a move changes (`linkSwapped`, file links re-read).
extension WatchLoop {
    /// A link met by a listing, and what it leads to now: a link first met
    /// is noted (and walked by the listing, when followed); one that leads
    /// elsewhere than it did has its old target's watches go (`linkSwapped`,
    /// the listing walks the new one).
    func lookedAt(_ path: String, _ resolution: LinkPolicy.Resolution, into events: inout [FileEvent]) {
        let before = linkState.seen[ExactName(path)]
        guard before != resolution else { return }
        moved(path, from: before, to: resolution, walking: false, into: &events)
    }

    /// Looks at every link met again (after a batch in which something on
    /// their way may have moved): each that leads elsewhere now is moved.
    func recheckLinks(into events: inout [FileEvent]) {
        for (key, before) in linkState.seen.sorted(by: { $0.key < $1.key }) {
            // Gone meanwhile with a directory above it, or looked at already by a walk this turn.
            guard linkState.seen[key] == before else { continue }
            let now = Self.isSymbolicLink(key.string) ? links.resolve(key.string) : nil
            if now != before { moved(key.string, from: before, to: now, walking: true, into: &events) }
        }
    }

    /// The link at `path` led to `before` (nil: not met yet) and leads to
    /// `now` (nil: the link is gone): what that changes, as events — with
    /// `walking`, a directory it leads to now is walked here.
    func moved(_ path: String, from before: LinkPolicy.Resolution?, to now: LinkPolicy.Resolution?, walking: Bool,
                       into events: inout [FileEvent]) {
        let key = ExactName(path)
        linkState.seen[key] = now
        // Where a skipped link leads (its text, one level, resolved from its directory): watched for a file that makes it followable.
        if case .skipped? = now, let text = LinkPolicy.linkText(path) {
            // The target's directory resolved (it usually exists while the file does not), then the target's name.
            let written = text.hasPrefix("/") ? text : (path as NSString).deletingLastPathComponent + "/" + text
            let parent = LinkPolicy.realPath((written as NSString).deletingLastPathComponent)
            linkState.skippedTargets[key] = parent.map { ExactName($0 + "/" + (written as NSString).lastPathComponent) }
        } else {
            linkState.skippedTargets[key] = nil
        }
        // A link that led somewhere and dangles now is going (kubelet drops an entry: the
        // swap first, the link after); one met skipped, or skipped for a new reason, is said.
        let wasFollowed = switch before { case .directory?, .file?: true; default: false }
        if case .skipped(let reason)? = now, !reason.isEmpty, !wasFollowed { noteSkipped(path, "symbolic link not followed: \(reason)") }
        switch before {
        case .directory?:
            unwatchTree(path, removingFromKernel: true)
            // A swap keeps the tables known under the link until the new target is read (`linkSwapped`).
            if case .directory? = now { events.append(.linkSwapped(path)) } else { events.append(.directoryGone(path)) }
        case .file(let target)?:
            linkState.fileLinks[ExactName(target)]?.removeAll { $0.hasSameBytes(as: path) }
            if linkState.fileLinks[ExactName(target)]?.isEmpty == true { linkState.fileLinks[ExactName(target)] = nil }
            if case .file? = now {} else { events.append(.removed(path)) }
        default:
            break
        }
        switch now {
        case .directory?:
            if walking { events += watchTree(path) }
        case .file(let target)?:
            linkState.fileLinks[ExactName(target), default: []].append(path)
            // A link is moved into place whole: what it leads to is complete.
            if walking || before != nil { events.append(.written(path)) }
        default:
            break
        }
    }

    /// Whether `event` may change where a link seen leads: anything about a
    /// directory (a component on a link's way), a link, a `..` name, or a
    /// file that a file link or a skipped link leads to. A regular file
    /// saved elsewhere cannot (a save in a tree of thousands of links does
    /// not look at every one of them again).
    func mayMoveALink(_ event: RawEvent, in directory: String) -> Bool {
        if event.name.isEmpty || event.mask & UInt32(IN_ISDIR | IN_DELETE_SELF | IN_MOVE_SELF) != 0 { return true }
        let path = directory + "/" + event.name
        if !LinkPolicy.isWalked(event.name) || linkState.seen[ExactName(path)] != nil || Self.isSymbolicLink(path) { return true }
        guard !linkState.fileLinks.isEmpty || !linkState.skippedTargets.isEmpty, let real = LinkPolicy.realPath(directory) else { return false }
        let target = ExactName(real + "/" + event.name)
        return linkState.fileLinks[target] != nil || linkState.skippedTargets.values.contains(target)
    }

    /// Whether `path` is a symbolic link (not followed).
    static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    /// Watches the directories that hold symbolic links on the way to
    /// `root`, so that a swap of any of them is seen (`linkSwapped`).
    func watchLinks(of root: String) {
        var prefix = ""
        for component in root.split(separator: "/") {
            let parent = prefix.isEmpty ? "/" : prefix
            prefix += "/" + component
            var info = stat()
            guard lstat(prefix, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { continue }
            let watch = inotify_add_watch(descriptor, parent, UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM) | UInt32(IN_MASK_ADD))
            guard watch >= 0 else { continue }
            if table.directories[watch] == nil { table.directories[watch] = parent }
            if !(linkState.onTheWay[watch] ?? []).contains(where: { $0.name == String(component) && $0.root.hasSameBytes(as: root) }) {
                linkState.onTheWay[watch, default: []].append((String(component), root))
            }
        }
    }

    /// A link on the way to `root` points elsewhere: the old target's
    /// watches go, the new target is watched and listed under the root's path.
    func swapRoot(_ root: String, into events: inout [FileEvent]) {
        unwatchTree(root, removingFromKernel: true)
        missing.roots[ExactName(root)] = nil
        events.append(.linkSwapped(root))
        var info = stat()
        guard stat(root, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            events.append(.directoryGone(root))
            return
        }
        events += watchTree(root)
        watchLinks(of: root)
    }
}
