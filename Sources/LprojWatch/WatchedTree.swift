#if canImport(Glibc)
import Glibc
#endif
import CInotifyTools
import Foundation
import LprojTables
import Synchronization

/// Directory trees watched with inotify through libinotifytools, read by
/// the one thread that owns it.
///
/// - Recursive: directories that appear are watched *and then listed*, so
///   files created in them before the watch existed are still reported.
/// - A batch is everything queued up to a moment: the kernel's queue read
///   until it is empty (or 16,384 events), coalesced. No timers, no
///   polling: the owner waits on `descriptor` (or in `readBatch(waiting: true)`).
/// - `queuedPaths` looks at what the kernel queued since the last batch
///   without taking it out of the next one: a reader that read a file can
///   ask whether a later write, truncate or rename already overtook it.
/// - `MarkerSync` drops named marker files into a private control
///   directory; inotify keeps one queue per instance, so when a marker comes
///   back in a batch's `signals`, every change made before it has been read.
/// - libinotifytools keeps global state and is not thread-safe: only one
///   `WatchedTree` may exist in a process, and one thread at a time uses it
///   (it may be handed to another with a happens-before, as a thread's
///   result is).
public final class WatchedTree {
    /// Why a tree could not be watched.
    public struct StartError: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The directories watched, as given (or added since).
    public var roots: [String] { loop.roots }
    /// The private directory its markers go to.
    public let controlDirectory: String
    /// The inotify descriptor (readable when events are queued): for the
    /// owner's `poll` or `epoll`. libinotifytools makes it and manages the
    /// watches; `readBatch` reads it (the library's own reader keeps what
    /// it has read in a buffer a poll cannot see).
    public let descriptor: Int32
    private let loop: WatchLoop
    private var closed = false
    private static let instanceExists = Mutex(false)

    /// Starts watching `roots` (which must be directories). `isIgnored` gets
    /// file names (not paths) and filters out temporaries; `isExcluded` gets
    /// the paths of directories below the roots, and an excluded directory is
    /// neither watched nor walked.
    ///
    /// `listed` gets the files already under the roots, a directory at a
    /// time in batches of a few hundred files, on this thread while the
    /// watches are set up (each directory is watched, then listed: a file
    /// created meanwhile is listed, reported as an event, or both, never
    /// missed), so that the caller can read them while the walk goes on.
    /// All of them have been handed over when `init` returns.
    ///
    /// Symbolic links inside the roots are followed where `links` says
    /// (`LinkPolicy`): a directory link is watched under its own path (and
    /// a swap of it, or of a link on its way, is `linkSwapped`), a file
    /// link is read where it leads. `noteSkipped` hears, once each, of what
    /// is skipped and why: a link not followed, a directory that may not be
    /// read, a FIFO, socket or device named like a table (never opened, at
    /// start or later). Directories under `polled` roots are never watched:
    /// they are listed every poll (`pollUnwatched`).
    public init(roots: [String], isIgnored: @escaping @Sendable (String) -> Bool = TemporaryFiles.isTemporary,
                isExcluded: @escaping @Sendable (String) -> Bool = { _ in false },
                links: LinkPolicy = .nowhere, polled: [String] = [],
                noteSkipped: @escaping (_ path: String, _ reason: String) -> Void = { _, _ in },
                listed: ([ListedDirectory]) -> Void = { _ in }) throws(StartError) {
        let claimed = Self.instanceExists.withLock { exists -> Bool in
            if exists { return false }
            exists = true
            return true
        }
        guard claimed else { throw StartError(description: "only one watcher may run in a process (libinotifytools keeps global state)") }
        func fail(_ message: String, removing control: String? = nil) -> StartError {
            if let control { rmdir(control) }
            Self.instanceExists.withLock { $0 = false }
            return StartError(description: message)
        }
        for root in roots {
            var info = stat()
            guard stat(root, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { throw fail("\(root): not a directory") }
        }
        let parent = Self.controlParent(environment: ProcessInfo.processInfo.environment)
        Self.removeStaleControlDirectories(in: parent)
        var template = Array(parent.utf8CString.dropLast()) + Array("/lprojd-watch-\(getpid())-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw fail("cannot create the watcher's control directory: \(String(cString: strerror(errno)))")
        }
        let control = String(cString: made)
        guard inotifytools_initialize() != 0 else {
            let error = inotifytools_error()
            let limit = error == EMFILE ? " (the per-user limit of inotify instances, fs.inotify.max_user_instances, or this process's "
                + "open-file limit, RLIMIT_NOFILE)" : error == ENFILE ? " (the system's open-file limit, fs.file-max)" : ""
            throw fail("cannot start inotify: \(String(cString: strerror(error)))\(limit)", removing: control)
        }
        guard inotifytools_watch_file(control, Int32(IN_CREATE)) != 0 else {
            let reason = String(cString: strerror(inotifytools_error()))
            inotifytools_cleanup()
            throw fail("cannot watch the control directory \(control): \(reason)", removing: control)
        }
        let controlWatch = inotifytools_wd_from_filename(control + "/")
        guard let found = Self.inotifyDescriptor(watching: control, as: controlWatch) else {
            inotifytools_cleanup()
            throw fail("cannot find libinotifytools' inotify descriptor in /proc/self/fd (is /proc mounted?)", removing: control)
        }
        // libinotifytools opens it without close-on-exec.
        _ = fcntl(found, F_SETFD, FD_CLOEXEC)
        controlDirectory = control
        descriptor = found
        loop = WatchLoop(roots: roots, control: control, descriptor: found, controlDescriptor: controlWatch, isIgnored: isIgnored,
                         isExcluded: isExcluded, links: links, noteSkipped: noteSkipped)
        loop.polledRoots = polled.map { $0.count > 1 && $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        withoutActuallyEscaping(listed) { listed in
            for root in loop.roots {
                _ = loop.watchTree(root, listing: listed)
                loop.watchLinks(of: root)
            }
        }
    }

    deinit {
        close()
    }

    /// How many directories are watched.
    public var watchCount: Int { loop.watchCount }

    /// Directories that could not be watched because the kernel's watch
    /// limit (`fs.inotify.max_user_watches`) was reached: they are listed
    /// and then polled (`pollUnwatched`) until a watch can be added.
    public var unwatchedCount: Int {
        loop.unwatched.keys.count { loop.watched[$0] == nil && !loop.isPolled($0.string) }
    }

    /// Whether a directory could not be listed for want of file descriptors
    /// (`EMFILE`: the process's `RLIMIT_NOFILE`; `ENFILE`: the system's
    /// `fs.file-max`): it is listed again by each poll until it can be.
    public var descriptorLimitReached: Bool { loop.descriptorLimitReached }

    /// Whether anything is listed by polls: directories of polled roots,
    /// or ones a limit kept from being watched or listed.
    public var isPolling: Bool { !loop.unwatched.isEmpty }

    /// The roots polled instead of watched, with when each was last listed
    /// whole (nil before the first poll: they were listed when they were added).
    public var polledRoots: [(root: String, lastScan: Date?)] {
        loop.polledRoots.map { ($0, loop.lastScans[ExactName($0)]) }
    }

    /// Lists the directories that are polled (those of polled roots, and
    /// those a limit kept from being watched) and returns what changed in
    /// them since the last look, as inotify events would have said it; a
    /// directory a limit kept unwatched is watched once it can be. Call it
    /// every poll interval while `isPolling`.
    public func pollUnwatched() -> [FileEvent] {
        guard !closed else { return [] }
        return loop.pollUnwatched()
    }

    /// Changes which links are followed; links met from then on (and at
    /// the next look at each, after a change on its way) follow it.
    public func setLinkPolicy(_ links: LinkPolicy) {
        loop.links = links
    }

    /// Changes which roots are polled, for roots added from then on.
    public func setPolledRoots(_ roots: [String]) {
        loop.polledRoots = roots
    }

    /// Watches another root (a directory), then lists it: returns the table
    /// and other files already in it (as `listed`), for the caller to read.
    /// A root already watched is listed again.
    public func addRoot(_ root: String) throws(StartError) -> [String] {
        var info = stat()
        guard stat(root, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { throw StartError(description: "\(root): not a directory") }
        let root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        if !loop.roots.contains(where: { $0.hasSameBytes(as: root) }) { loop.roots.append(root) }
        defer { loop.watchLinks(of: root) }
        return loop.watchTree(root).compactMap { if case .listed(let path) = $0 { path } else { nil } }
    }

    /// Stops watching `root` and everything under it (a root that went
    /// missing is no longer waited for).
    public func removeRoot(_ root: String) {
        loop.removeRoot(root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root)
    }

    /// Changes which directories are excluded; directories the change lets
    /// in are watched when the roots are walked again (`rewalk`).
    public func setExclusion(_ isExcluded: @escaping @Sendable (String) -> Bool) {
        loop.isExcluded = isExcluded
    }

    /// Walks every root again, watching directories not watched yet (after
    /// an exclusion changed); returns the files listed.
    public func rewalk() -> [String] {
        loop.roots.flatMap { loop.watchTree($0) }.compactMap { if case .listed(let path) = $0 { path } else { nil } }
    }

    /// Reads the events queued up to now, as one batch: nil when none is
    /// queued (without `waiting`), or when inotify fails. With `waiting`,
    /// sleeps until there is one. Nothing read is kept back: when the batch
    /// is returned, `descriptor` is readable again exactly if more came
    /// (events `queuedPaths` looked at come first in the batch, and
    /// `hasQueuedEvents` says so while they wait).
    public func readBatch(waiting: Bool) -> WatchBatch? {
        guard !closed else { return nil }
        return loop.readBatch(waiting: waiting)
    }

    /// The paths that events queued since the last batch are about (files,
    /// and directories that moved or went), without taking the events out of
    /// the next batch. A file read after the last batch whose path (or a
    /// directory above it) is here may have been read half-written or
    /// replaced: its next event says what it is now.
    public func queuedPaths() -> Set<ExactName> {
        guard !closed else { return [] }
        return loop.queuedPaths()
    }

    /// Whether `queuedPaths` holds events back for the next batch (the
    /// descriptor may not be readable for them: read a batch without waiting).
    public var hasQueuedEvents: Bool { !closed && loop.hasCarried }

    /// Drops the control marker `name` into `control`; it comes back in the
    /// `signals` of a batch once every earlier event has been read
    /// (`MarkerSync` is the one user). It creates a file and does not call
    /// libinotifytools, so any thread may. False when the file could not be made.
    @discardableResult
    static func signal(_ name: String, in control: String) -> Bool {
        WatchLoop.touch(control + "/" + name)
    }

    /// Releases inotify and removes the control directory. Idempotent.
    public func close() {
        guard !closed else { return }
        closed = true
        inotifytools_cleanup()
        DirectoryListing.forEachEntry(of: controlDirectory) { _, marker, _ in unlink(marker) }
        rmdir(controlDirectory)
        Self.instanceExists.withLock { $0 = false }
    }

    /// Where the private control directory goes: the first writable
    /// directory of `$RUNTIME_DIRECTORY` (systemd's `RuntimeDirectory=`),
    /// `$XDG_RUNTIME_DIR`, `/dev/shm`, `$TMPDIR`, `/tmp`. Memory-backed
    /// ones come first: a marker is created and removed for every `sync`,
    /// and on a disk filesystem each is journal work beside the user's saves.
    public static func controlParent(environment: [String: String]) -> String {
        let candidates = [environment["RUNTIME_DIRECTORY"].flatMap { $0.split(separator: ":").first.map(String.init) },
                          environment["XDG_RUNTIME_DIR"], "/dev/shm", environment["TMPDIR"], "/tmp"]
        for case let candidate? in candidates where !candidate.isEmpty {
            var info = stat()
            if stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, access(candidate, W_OK | X_OK) == 0 { return candidate }
        }
        return "/tmp"
    }

    /// Removes the control directories (`lprojd-watch-<pid>-…`, ours) that
    /// processes which no longer run left in `parent`: a daemon killed with
    /// SIGKILL cannot remove its own.
    public static func removeStaleControlDirectories(in parent: String) {
        DirectoryListing.forEachEntry(of: parent) { name, path, kind in
            guard kind == .directory, name.hasPrefix("lprojd-watch-") else { return }
            let fields = name.dropFirst("lprojd-watch-".count).split(separator: "-", maxSplits: 1)
            guard fields.count == 2, let pid = Int32(fields[0]), pid > 0 else { return }
            var info = stat()
            guard stat(path, &info) == 0, info.st_uid == getuid() else { return }
            guard kill(pid, 0) != 0, errno == ESRCH else { return }
            DirectoryListing.forEachEntry(of: path) { _, marker, _ in unlink(marker) }
            rmdir(path)
        }
    }

    /// libinotifytools does not say which descriptor it reads: the inotify
    /// descriptor of this process whose watch `watch` is on the control
    /// directory's inode (as `/proc/self/fdinfo` lists its watches).
    private static func inotifyDescriptor(watching control: String, as watch: Int32) -> Int32? {
        var info = stat()
        guard watch >= 0, stat(control, &info) == 0 else { return nil }
        let wanted = "inotify wd:\(String(watch, radix: 16)) ino:\(String(info.st_ino, radix: 16)) "
        var found: Int32?
        DirectoryListing.forEachLink(of: "/proc/self/fd") { name, target in
            guard found == nil, target == "anon_inode:inotify", let number = Int32(name),
                  let details = try? String(contentsOfFile: "/proc/self/fdinfo/\(name)", encoding: .utf8) else { return }
            if details.split(separator: "\n").contains(where: { $0.hasPrefix(wanted) }) { found = number }
        }
        return found
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

/// The reading and walking of a `WatchedTree`, on its owner's thread: the only code that calls libinotifytools.
private final class WatchLoop {
    /// `IN_MODIFY` is not acted on alone: it tells a reader that a file it
    /// read was being written again (and `quiet` rules a listed file).
    static let mask: Int32 = Int32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF
                                   | IN_MODIFY)
    /// At most this many raw events in one batch (the kernel's default queue length).
    static let batchLimit = 16384

    var roots: [String]
    let control: String
    let isIgnored: (String) -> Bool
    var isExcluded: (String) -> Bool
    /// Watched directories (path with a trailing slash; bytes: `Café` in NFC
    /// and in NFD are two directories) and their watch descriptors, kept
    /// here, not in libinotifytools: its table goes stale when the kernel
    /// drops a watch by itself (a deleted directory's `IN_IGNORED` is only
    /// seen by its own reader), and a later directory of the same name then
    /// resolved to the dead descriptor — its removal missed the live watch,
    /// and events in a renamed directory came under the old name.
    var watched: [ExactName: Int32] = [:]
    /// Each watch descriptor's directory (no trailing slash), the watched
    /// directories' and the parents' watched for a missing root.
    var directories: [Int32: String] = [:]
    let controlDescriptor: Int32
    /// Roots that are gone, by the parent watched to see them return.
    var missingRoots: [ExactName: String] = [:]
    /// The watches on those parents (not watched directories of the tree).
    var parentWatches: [ExactName: Int32] = [:]
    /// Directories that hold a symbolic link on the way to a root (`current`
    /// in `/srv/app/current/Resources`), by watch: the link's name and its root.
    var linkWatches: [Int32: [(name: String, root: String)]] = [:]
    /// Events read by `queuedPaths`, to start the next batch.
    private var carried: [RawEvent] = []
    /// Directories that could not be watched (the kernel's watch limit), by
    /// path with a trailing slash, with their files as last listed.
    var unwatched: [ExactName: [String: FileStamp]] = [:]
    /// Whether a watch was refused for the limit (cleared once every directory is watched again).
    var watchLimitReached = false
    /// Roots polled instead of watched (`[Watch] Poll=`): their directories
    /// are among `unwatched` from the start and never get a watch.
    var polledRoots: [String] = []
    /// When each polled root was last listed whole.
    var lastScans: [ExactName: Date] = [:]
    /// Other paths of a watched directory reached twice (through a link
    /// inside the tree to a directory also walked): inotify gives an inode
    /// one watch, so its events are reported under each of its paths.
    var aliases: [Int32: [String]] = [:]
    /// Which symbolic links are followed (`LinkPolicy`, the one rule).
    var links: LinkPolicy
    /// The symbolic links met inside the tree, by path, with what each led
    /// to when last looked at: a change on the way of any of them (kubelet's
    /// `..data` renamed over) has them all looked at again.
    var linksSeen: [ExactName: LinkPolicy.Resolution] = [:]
    /// The file links among them, by the real path they lead to: a write
    /// there is a write of each link.
    var fileLinks: [ExactName: [String]] = [:]
    /// Where the links skipped lead, as their text says (one level): a file
    /// created there may make one of them followable.
    var skippedTargets: [ExactName: ExactName] = [:]
    /// Hears of what is skipped (its path, and why): a link once per
    /// reason, a directory or a special file once.
    let noteSkipped: (String, String) -> Void
    /// The directories and special files said to be skipped (said once each).
    private var skippedNoted = Set<ExactName>()
    /// Set while translating a batch in which a link may have moved.
    private var linksMayHaveMoved = false
    /// Whether a directory could not be listed for want of descriptors
    /// (`EMFILE`, `ENFILE`); it is among `unwatched` until a poll lists it.
    var descriptorLimitReached = false
    /// What `linksSeen` holds for a link met in an event, until the batch is read and it is looked at.
    static let notLookedAt = LinkPolicy.Resolution.skipped("")

    /// The inotify descriptor, read here (libinotifytools only manages the watches).
    let descriptor: Int32
    /// Room for at least one event with the longest name.
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)

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

    var watchCount: Int { watched.count }

    /// Adds a kernel watch on `directory` with `mask` on libinotifytools'
    /// instance; nil when it fails (the directory went, or a limit).
    private func addWatch(_ directory: String, mask: Int32) -> Int32? {
        let watch = inotify_add_watch(descriptor, directory, UInt32(bitPattern: mask))
        guard watch >= 0 else { return nil }
        if let known = directories[watch], !known.hasSameBytes(as: directory) {
            // The same directory by another path (a link): one watch, its events under both.
            if !(aliases[watch] ?? []).contains(where: { $0.hasSameBytes(as: directory) }) { aliases[watch, default: []].append(directory) }
        } else {
            directories[watch] = directory
        }
        return watch
    }

    /// Removes the kernel watch `watch` (its `IN_IGNORED` follows).
    private func removeWatch(_ watch: Int32) {
        inotify_rm_watch(descriptor, watch)
        directories[watch] = nil
        aliases[watch] = nil
    }

    /// The paths a watch's events are about: its directory, and the other paths it is reached by.
    private func paths(of watch: Int32) -> [String] {
        guard let directory = directories[watch] else { return [] }
        return [directory] + (aliases[watch] ?? [])
    }

    /// Stops reporting `watch` under `directory`; the kernel's watch goes
    /// (with `removingFromKernel`) once no other path is left to it.
    private func release(_ watch: Int32, of directory: String, removingFromKernel: Bool) {
        if var others = aliases[watch], !others.isEmpty {
            if directories[watch]?.hasSameBytes(as: directory) == true { directories[watch] = others.removeFirst() }
            others.removeAll { $0.hasSameBytes(as: directory) }
            aliases[watch] = others.isEmpty ? nil : others
            return
        }
        if removingFromKernel { removeWatch(watch) } else { directories[watch] = nil }
    }

    /// Whether `directory` lies in a root that is polled, never watched.
    func isPolled(_ directory: String) -> Bool {
        !polledRoots.isEmpty && polledRoots.contains { ExactName(directory).isWithin($0) }
    }

    var hasCarried: Bool { !carried.isEmpty }

    func queuedPaths() -> Set<ExactName> {
        while carried.count < Self.batchLimit {
            let before = carried.count
            guard read(into: &carried, waitingMilliseconds: 0), carried.count > before else { break }
        }
        var paths = Set<ExactName>()
        for event in carried where event.descriptor != controlDescriptor && !event.name.isEmpty {
            for directory in self.paths(of: event.descriptor) { paths.insert(ExactName(directory + "/" + event.name)) }
        }
        return paths
    }

    func readBatch(waiting: Bool) -> WatchBatch? {
        var raw = carried
        carried = []
        while raw.isEmpty {
            guard read(into: &raw, waitingMilliseconds: waiting ? -1 : 0) else { return nil }
            if !waiting { break }
        }
        guard !raw.isEmpty else { return nil }
        // Everything queued by now, in as many reads as it takes (bounded:
        // a writer faster than us must not keep the batch open for ever).
        while raw.count < Self.batchLimit {
            let before = raw.count
            guard read(into: &raw, waitingMilliseconds: 0), raw.count > before else { break }
        }
        var events: [FileEvent] = []
        var signals: [String] = []
        var overflowed = false
        for event in raw {
            if event.descriptor == controlDescriptor {
                if !event.name.isEmpty {
                    signals.append(event.name)
                    unlink(control + "/" + event.name)
                }
                continue
            }
            if event.mask & UInt32(IN_Q_OVERFLOW) != 0 { overflowed = true }
            translate(event, into: &events)
        }
        if linksMayHaveMoved {
            linksMayHaveMoved = false
            recheckLinks(into: &events)
        }
        return WatchBatch(events: Self.coalesce(events), signals: signals, overflowed: overflowed)
    }

    /// One inotify event, as read.
    struct RawEvent {
        var descriptor: Int32
        var mask: UInt32
        var name: String
    }

    /// Reads what the kernel has queued (waiting up to `waitingMilliseconds`,
    /// -1 for ever, for something to be there) and appends it to `raw`.
    /// False when inotify fails. (Read here, not through libinotifytools:
    /// its reader keeps events it has read in a buffer of its own, where a
    /// poll of the descriptor cannot see them.)
    private func read(into raw: inout [RawEvent], waitingMilliseconds: Int32) -> Bool {
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let count = poll(&ready, 1, waitingMilliseconds)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return false }
            if count == 0 { return true }
            break
        }
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 { return errno == EAGAIN || errno == EINTR }
        guard count > 0 else { return false }
        buffer.withUnsafeBytes { bytes in
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                let nameBytes = bytes[(offset + header)..<min(count, offset + header + Int(event.len))]
                // The name is padded with NULs to an aligned length.
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                raw.append(RawEvent(descriptor: event.wd, mask: event.mask, name: name))
                offset += header + Int(event.len)
            }
        }
        return true
    }

    private func translate(_ event: RawEvent, into events: inout [FileEvent]) {
        if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
            events.append(.overflow)
            for root in roots { _ = watchTree(root) }   // pick up directories whose creation was lost
            return
        }
        if let links = linkWatches[event.descriptor], !event.name.isEmpty {
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
            if let directory = directories[event.descriptor], watched[ExactName(directory + "/")] != event.descriptor { return }
        }
        if event.mask & UInt32(IN_IGNORED) != 0 {
            // The kernel dropped the watch (its directory was deleted, or we removed it).
            for directory in paths(of: event.descriptor) where watched[ExactName(directory + "/")] == event.descriptor {
                watched[ExactName(directory + "/")] = nil
            }
            directories[event.descriptor] = nil
            aliases[event.descriptor] = nil
            return
        }
        for directory in paths(of: event.descriptor) { translate(event, in: directory, into: &events) }
    }

    /// An event of a watched directory, under one of its paths.
    private func translate(_ event: RawEvent, in directory: String, into events: inout [FileEvent]) {
        let moving = UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF)
        // Anything that comes, goes or moves may be on the way of a link (or be where a dangling one leads).
        if !linksSeen.isEmpty, event.mask & moving != 0, !linksMayHaveMoved, mayMoveALink(event, in: directory) { linksMayHaveMoved = true }
        if let root = missingRoots.first(where: { $0.value.hasSameBytes(as: directory) })?.key, !event.name.isEmpty,
           root.matches(directory + "/" + event.name), event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
            // A root came back (perhaps as a link: its way is watched for the link's next move).
            missingRoots[root] = nil
            releaseParentWatch(directory)
            events += watchTree(root.string)
            watchLinks(of: root.string)
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
            if event.mask & moving != 0, links.followsAny { linksMayHaveMoved = true }
            return
        }
        if event.mask & UInt32(IN_ISDIR) == 0, event.mask & moving != 0, links.followsAny {
            // A link (new, replaced or gone) is looked at once the batch is read.
            if linksSeen[ExactName(path)] != nil { return }
            if event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0, Self.isSymbolicLink(path) {
                guard !isExcluded(path), !isIgnored(event.name) else { return }
                linksSeen[ExactName(path)] = Self.notLookedAt
                linksMayHaveMoved = true
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
            if !fileLinks.isEmpty, let real = LinkPolicy.realPath(directory), let linked = fileLinks[ExactName(real + "/" + event.name)] {
                // A file that links lead to: written for each of them too.
                events += linked.map { .written($0) }
            }
        } else if event.mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
            events.append(.removed(path))
        } else if event.mask & UInt32(IN_MODIFY) != 0 {
            events.append(.modified(path))
        }
    }

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
            var polled = unwatched[ExactName(key)] != nil
            if watched[ExactName(key)] == nil, !polled {
                // Watch first, then list: nothing created in between is missed.
                if isPolled(directory) {
                    unwatched[ExactName(key)] = [:]
                    polled = true
                } else if let watch = addWatch(directory, mask: Self.mask) {
                    watched[ExactName(key)] = watch
                } else if errno == ENOSPC || errno == ENOMEM {
                    // Past the kernel's watch limit: listed now, polled from now on (`pollUnwatched`).
                    watchLimitReached = true
                    unwatched[ExactName(key)] = [:]
                    polled = true
                } else {
                    // Gone already, or not ours to read.
                    if errno == EACCES { noteOnce(directory, "directory skipped: permission denied (not watched, not read)") }
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
                // Out of descriptors: listed again by the next poll (`descriptorLimitReached` says so).
                descriptorLimitReached = true
                unwatched[ExactName(key)] = [:]
                continue
            }
            if !readable, errno == EACCES { noteOnce(directory, "directory skipped: permission denied (watched, not read)") }
            if polled { unwatched[ExactName(key)] = stamps }
            if !files.isEmpty {
                listedFiles += files.count
                listed.append(ListedDirectory(path: directory, files: files))
            }
        }
        return events
    }

    /// Lists every directory that could not be watched and reports what
    /// changed since the last look, as inotify would have (`listed` for a
    /// new or changed file, so that it is read once complete); a directory
    /// that can be watched now is watched, and listed once more.
    func pollUnwatched() -> [FileEvent] {
        var events: [FileEvent] = []
        descriptorLimitReached = false
        for key in unwatched.keys.sorted() {
            guard let before = unwatched[key] else { continue }   // gone with a parent this turn (or a link's old target)
            let directory = String(key.string.dropLast())
            var info = stat()
            guard stat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                for (inner, _) in unwatched where inner.isWithin(directory) { unwatched[inner] = nil }
                unwatchTree(directory, removingFromKernel: true)
                events.append(.directoryGone(directory))
                continue
            }
            if !isPolled(directory), let watch = addWatch(directory, mask: Self.mask) {
                // Room again: watched from now on, and read once more in case of a change meanwhile.
                unwatched[key] = nil
                watched[key] = watch
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
                    if !isExcluded(child), watched[ExactName(child + "/")] == nil, unwatched[ExactName(child + "/")] == nil {
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
                descriptorLimitReached = true
                continue
            }
            for name in before.keys where now[name] == nil { events.append(.removed(key.string + name)) }
            unwatched[key] = now
        }
        let scanned = Date()
        for root in polledRoots { lastScans[ExactName(root)] = scanned }
        if !unwatched.keys.contains(where: { watched[$0] == nil && !isPolled($0.string) }) { watchLimitReached = false }
        return Self.coalesce(events)
    }

    /// A link met by a listing, and what it leads to now: a link first met
    /// is noted (and walked by the listing, when followed); one that leads
    /// elsewhere than it did has its old target's watches go (`linkSwapped`,
    /// the listing walks the new one).
    private func lookedAt(_ path: String, _ resolution: LinkPolicy.Resolution, into events: inout [FileEvent]) {
        let before = linksSeen[ExactName(path)]
        guard before != resolution else { return }
        moved(path, from: before, to: resolution, walking: false, into: &events)
    }

    /// Looks at every link met again (after a batch in which something on
    /// their way may have moved): each that leads elsewhere now is moved.
    private func recheckLinks(into events: inout [FileEvent]) {
        for (key, before) in linksSeen.sorted(by: { $0.key < $1.key }) {
            // Gone meanwhile with a directory above it, or looked at already by a walk this turn.
            guard linksSeen[key] == before else { continue }
            let now = Self.isSymbolicLink(key.string) ? links.resolve(key.string) : nil
            if now != before { moved(key.string, from: before, to: now, walking: true, into: &events) }
        }
    }

    /// The link at `path` led to `before` (nil: not met yet) and leads to
    /// `now` (nil: the link is gone): what that changes, as events — with
    /// `walking`, a directory it leads to now is walked here.
    private func moved(_ path: String, from before: LinkPolicy.Resolution?, to now: LinkPolicy.Resolution?, walking: Bool,
                       into events: inout [FileEvent]) {
        let key = ExactName(path)
        linksSeen[key] = now
        // Where a skipped link leads (its text, one level, resolved from its directory): watched for a file that makes it followable.
        if case .skipped? = now, let text = LinkPolicy.linkText(path) {
            // The target's directory resolved (it usually exists while the file does not), then the target's name.
            let written = text.hasPrefix("/") ? text : (path as NSString).deletingLastPathComponent + "/" + text
            let parent = LinkPolicy.realPath((written as NSString).deletingLastPathComponent)
            skippedTargets[key] = parent.map { ExactName($0 + "/" + (written as NSString).lastPathComponent) }
        } else {
            skippedTargets[key] = nil
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
            fileLinks[ExactName(target)]?.removeAll { $0.hasSameBytes(as: path) }
            if fileLinks[ExactName(target)]?.isEmpty == true { fileLinks[ExactName(target)] = nil }
            if case .file? = now {} else { events.append(.removed(path)) }
        default:
            break
        }
        switch now {
        case .directory?:
            if walking { events += watchTree(path) }
        case .file(let target)?:
            fileLinks[ExactName(target), default: []].append(path)
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
    private func mayMoveALink(_ event: RawEvent, in directory: String) -> Bool {
        if event.name.isEmpty || event.mask & UInt32(IN_ISDIR | IN_DELETE_SELF | IN_MOVE_SELF) != 0 { return true }
        let path = directory + "/" + event.name
        if !LinkPolicy.isWalked(event.name) || linksSeen[ExactName(path)] != nil || Self.isSymbolicLink(path) { return true }
        guard !fileLinks.isEmpty || !skippedTargets.isEmpty, let real = LinkPolicy.realPath(directory) else { return false }
        let target = ExactName(real + "/" + event.name)
        return fileLinks[target] != nil || skippedTargets.values.contains(target)
    }

    /// Says once that `path` is skipped, and why.
    private func noteOnce(_ path: String, _ reason: String) {
        guard skippedNoted.insert(ExactName(path)).inserted else { return }
        noteSkipped(path, reason)
    }

    /// A FIFO, socket or device named like a table: never opened (a FIFO would block a reader), said once.
    private func noteSpecial(_ path: String, _ kind: String) {
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
            if directories[watch] == nil { directories[watch] = parent }
            if !(linkWatches[watch] ?? []).contains(where: { $0.name == String(component) && $0.root.hasSameBytes(as: root) }) {
                linkWatches[watch, default: []].append((String(component), root))
            }
        }
    }

    /// A link on the way to `root` points elsewhere: the old target's
    /// watches go, the new target is watched and listed under the root's path.
    private func swapRoot(_ root: String, into events: inout [FileEvent]) {
        unwatchTree(root, removingFromKernel: true)
        missingRoots[ExactName(root)] = nil
        events.append(.linkSwapped(root))
        var info = stat()
        guard stat(root, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            events.append(.directoryGone(root))
            return
        }
        events += watchTree(root)
        watchLinks(of: root)
    }

    /// Stops watching a root and what is under it.
    func removeRoot(_ root: String) {
        roots.removeAll { $0.hasSameBytes(as: root) }
        for (watch, links) in linkWatches {
            let kept = links.filter { !$0.root.hasSameBytes(as: root) }
            linkWatches[watch] = kept.isEmpty ? nil : kept
        }
        unwatchTree(root, removingFromKernel: true)
        if let parent = missingRoots.removeValue(forKey: ExactName(root)) { releaseParentWatch(parent) }
    }

    /// Forgets the watches on `path` and below; a directory moved away still
    /// has kernel watches, which are removed.
    private func unwatchTree(_ path: String, removingFromKernel: Bool) {
        for (key, _) in unwatched where key.isWithin(path) { unwatched[key] = nil }
        for (key, watch) in watched where key.isWithin(path) {
            release(watch, of: String(key.string.dropLast()), removingFromKernel: removingFromKernel)
            watched[key] = nil
        }
        // The links met under it (not a link at `path` itself: its caller decides).
        for (key, resolution) in linksSeen where key.isWithin(path) && !key.matches(path) {
            linksSeen[key] = nil
            skippedTargets[key] = nil
            if case .file(let target) = resolution {
                fileLinks[ExactName(target)]?.removeAll { $0.hasSameBytes(as: key.string) }
                if fileLinks[ExactName(target)]?.isEmpty == true { fileLinks[ExactName(target)] = nil }
            }
        }
    }

    /// Stops watching a root's parent once no missing root needs it (unless
    /// it is itself a watched directory).
    private func releaseParentWatch(_ directory: String) {
        let key = directory + "/"
        guard watched[ExactName(key)] == nil, !missingRoots.values.contains(where: { $0.hasSameBytes(as: directory) }),
              let watch = parentWatches.removeValue(forKey: ExactName(directory)) else { return }
        removeWatch(watch)
    }

    /// A root went away: forget its watches and watch its nearest existing
    /// ancestor for its return.
    private func rootGone(_ root: String, movedAway: Bool, into events: inout [FileEvent]) {
        // A moved tree keeps its kernel watches (they would follow it); a deleted one has none left.
        unwatchTree(root, removingFromKernel: movedAway)
        events.append(.directoryGone(root))
        var ancestor = (root as NSString).deletingLastPathComponent
        while !ancestor.isEmpty, access(ancestor, F_OK) != 0 { ancestor = (ancestor as NSString).deletingLastPathComponent }
        // Only the direct parent is watched for the name; a deeper loss waits for an overflow rescan.
        let parent = (root as NSString).deletingLastPathComponent
        if ancestor == parent, watched[ExactName(parent + "/")] == nil, parentWatches[ExactName(parent)] == nil {
            parentWatches[ExactName(parent)] = addWatch(parent, mask: Int32(IN_CREATE | IN_MOVED_TO))
        }
        missingRoots[ExactName(root)] = parent
    }

    /// Later events about a file replace earlier ones within a batch (paths
    /// compared by bytes), except that directory events and overflow are
    /// kept in order.
    static func coalesce(_ events: [FileEvent]) -> [FileEvent] {
        var lastIndex: [ExactName: Int] = [:]
        for (index, event) in events.enumerated() {
            switch event {
            case .written(let path), .removed(let path), .modified(let path), .listed(let path): lastIndex[ExactName(path)] = index
            default: break
            }
        }
        var result: [FileEvent] = []
        for (index, event) in events.enumerated() {
            switch event {
            case .written(let path), .removed(let path), .modified(let path), .listed(let path):
                if lastIndex[ExactName(path)] == index { result.append(event) }
            case .overflow:
                if !result.contains(.overflow) { result.append(event) }
            default:
                result.append(event)
            }
        }
        return result
    }

    /// Creates an empty file (a control marker).
    @discardableResult
    static func touch(_ path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }
}

extension WatchedTree {
    /// Exposed for tests: the coalescing of one batch.
    static func coalesce(_ events: [FileEvent]) -> [FileEvent] { WatchLoop.coalesce(events) }
}
