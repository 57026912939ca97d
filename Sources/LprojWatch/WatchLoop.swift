#if canImport(Glibc)
import Glibc
#endif
import CInotifyTools
import Foundation
import LprojPaths

/// The state of a `WatchedTree`, on its owner's thread — the only code that
/// calls libinotifytools. Its parts are files of their own: the inotify
/// reader (`InotifyReader`), the wd → directory table (`WatchDescriptors`),
/// event translation (`EventTranslation`), the walk (`TreeWalk`), link
/// tracking (`LinkTracking`), the poll set (`PollSet`), missing roots
/// (`MissingRoots`), what is skipped (`SkippedFiles`) and coalescing.
final class WatchLoop {
    /// What every directory is watched for (`WatchedTree.inotifyMask`).
    static let mask = Int32(bitPattern: WatchedTree.inotifyMask)
    /// At most this many raw events in one batch (the kernel's default queue length).
    static let batchLimit = 16384

    var roots: [String]
    let control: String
    let controlDescriptor: Int32
    let isIgnored: (String) -> Bool
    var isExcluded: (String) -> Bool
    /// The watches, kept here (`WatchTable`).
    var table = WatchTable()
    /// Roots that are gone, and the parents watched to see them return.
    var missing = MissingRootWatch()
    /// What is listed by polls instead of watched (`Polling`).
    var polling = Polling()
    /// Which symbolic links are followed (`LinkPolicy`, the one rule).
    var links: LinkPolicy
    /// The links met in the tree and on the way to its roots (`LinkState`).
    var linkState = LinkState()
    /// Hears of what is skipped (its path, and why): a link once per
    /// reason, a directory or a special file once.
    let noteSkipped: (String, String) -> Void
    /// The directories and special files said to be skipped (said once each).
    var skippedNoted = Set<ExactName>()
    /// What `linkState.seen` holds for a link met in an event, until the batch is read and it is looked at.
    static let notLookedAt = LinkPolicy.Resolution.skipped("")
    /// Events read by `queuedPaths`, to start the next batch.
    var carried: [RawEvent] = []

    /// The watches: kept here, not in libinotifytools, whose table goes stale
    /// when the kernel drops a watch by itself (a deleted directory's
    /// `IN_IGNORED` is only seen by its own reader), so that a later
    /// directory of the same name would resolve to the dead descriptor.
    struct WatchTable {
        /// Watched directories (path with a trailing slash; bytes: `Café` in
        /// NFC and in NFD are two directories) and their watch descriptors.
        var watched: [ExactName: Int32] = [:]
        /// Each watch descriptor's directory (no trailing slash), the watched
        /// directories' and the parents' watched for a missing root.
        var directories: [Int32: String] = [:]
        /// Other paths of a watched directory reached twice (through a link
        /// inside the tree to a directory also walked): inotify gives an inode
        /// one watch, so its events are reported under each of its paths.
        var aliases: [Int32: [String]] = [:]
    }

    /// Roots that are gone, watched for through their parents.
    struct MissingRootWatch {
        /// The roots, by the parent watched to see them return.
        var roots: [ExactName: String] = [:]
        /// The watches on those parents (not watched directories of the tree).
        var parentWatches: [ExactName: Int32] = [:]
    }

    /// What polls list: directories no watch covers.
    struct Polling {
        /// Directories that could not be watched (the kernel's watch limit), by
        /// path with a trailing slash, with their files as last listed.
        var unwatched: [ExactName: [String: FileStamp]] = [:]
        /// Whether a watch was refused for the limit (cleared once every directory is watched again).
        var watchLimitReached = false
        /// Roots polled instead of watched (`[Watch] Poll=`): their directories
        /// are among `unwatched` from the start and never get a watch.
        var roots: [String] = []
        /// When each polled root was last listed whole.
        var lastScans: [ExactName: Date] = [:]
        /// Whether a directory could not be listed for want of descriptors
        /// (`EMFILE`, `ENFILE`); it is among `unwatched` until a poll lists it.
        var descriptorLimitReached = false
    }

    /// The symbolic links met inside the tree and on the way to its roots.
    struct LinkState {
        /// Each link met, by path, with what it led to when last looked at: a
        /// change on the way of any of them (kubelet's `..data` renamed over)
        /// has them all looked at again.
        var seen: [ExactName: LinkPolicy.Resolution] = [:]
        /// The file links among them, by the real path they lead to: a write
        /// there is a write of each link.
        var fileLinks: [ExactName: [String]] = [:]
        /// Where the links skipped lead, as their text says (one level): a file
        /// created there may make one of them followable.
        var skippedTargets: [ExactName: ExactName] = [:]
        /// Set while translating a batch in which a link may have moved.
        var mayHaveMoved = false
        /// Directories that hold a symbolic link on the way to a root
        /// (`current` in `/srv/app/current/Resources`), by watch: the link's name and its root.
        var onTheWay: [Int32: [(name: String, root: String)]] = [:]
    }

    /// The inotify descriptor, read here (libinotifytools only manages the watches).
    let descriptor: Int32
    /// Room for at least one event with the longest name.
    var buffer = [UInt8](repeating: 0, count: 64 << 10)

    init(roots: [String], control: String, descriptor: Int32, controlDescriptor: Int32, isIgnored: @escaping (String) -> Bool,
         isExcluded: @escaping (String) -> Bool, links: LinkPolicy, noteSkipped: @escaping (String, String) -> Void) {
        self.roots = roots.map { $0.hasSuffix("/") && $0.count > 1 ? String($0.dropLast()) : $0 }
        self.links = links
        self.noteSkipped = noteSkipped
        self.descriptor = descriptor
        self.control = control
        self.controlDescriptor = controlDescriptor
        self.isIgnored = isIgnored
        self.isExcluded = isExcluded
    }

    var watchCount: Int { table.watched.count }

    var hasCarried: Bool { !carried.isEmpty }

    /// Creates an empty file (a control marker).
    @discardableResult
    static func touch(_ path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }
}
