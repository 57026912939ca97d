/// A change to the watched trees, normalised from inotify's events.
public enum FileEvent: Hashable, Sendable {
    /// A complete file is at this path: it was closed after writing, moved or
    /// renamed into place, or found in a directory that just appeared. Never
    /// reported for a half-written file (a bare `IN_MODIFY`).
    case written(String)
    /// The file at this path is being written (`IN_MODIFY`): not complete
    /// yet. A later `written` says when it is; until then a read of it may
    /// see half of a save.
    case modified(String)
    /// A file found by listing a directory that appeared: it may still be
    /// being written (by `cp -r`, say) — its `written` follows if it is.
    case listed(String)
    /// The file at this path was deleted or moved away.
    case removed(String)
    /// A directory appeared (created, or moved in) and is now watched; the
    /// files already in it follow as `listed`.
    case directoryAppeared(String)
    /// A directory was deleted or moved away; nothing under it is watched any more.
    case directoryGone(String)
    /// A symbolic link on the way to this directory points elsewhere now
    /// (a release's `current` above a root; a ConfigMap's `..data` under
    /// `en.lproj -> ..data/en.lproj` in one): the tree under it is watched
    /// anew, its files follow as `listed` — every one of them may have
    /// changed, and those known before that are not listed are gone.
    case linkSwapped(String)
    /// The kernel's queue overflowed and events were lost: rescan the roots.
    case overflow

    /// The path the event is about (nil for `overflow`).
    public var path: String? {
        switch self {
        case .written(let path), .modified(let path), .listed(let path), .removed(let path), .directoryAppeared(let path),
             .directoryGone(let path), .linkSwapped(let path): return path
        case .overflow: return nil
        }
    }
}
