#if canImport(Glibc)
import Glibc
#endif
import CInotifyTools
import Foundation
import LprojPaths
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
    /// The events every watched directory is watched for. `IN_MODIFY` is
    /// not acted on alone: it tells a reader that a file it read was being
    /// written again (and `quiet` rules a listed file). (The benchmarks'
    /// floors watch with it too: what a watcher of these events must wake for.)
    public static let inotifyMask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_DELETE_SELF
                                           | IN_MOVE_SELF | IN_MODIFY)

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
        loop.polling.roots = polled.map { $0.count > 1 && $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
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
        loop.polling.unwatched.keys.count { loop.table.watched[$0] == nil && !loop.isPolled($0.string) }
    }

    /// Whether a directory could not be listed for want of file descriptors
    /// (`EMFILE`: the process's `RLIMIT_NOFILE`; `ENFILE`: the system's
    /// `fs.file-max`): it is listed again by each poll until it can be.
    public var descriptorLimitReached: Bool { loop.polling.descriptorLimitReached }

    /// Whether anything is listed by polls: directories of polled roots,
    /// or ones a limit kept from being watched or listed.
    public var isPolling: Bool { !loop.polling.unwatched.isEmpty }

    /// The roots polled instead of watched, with when each was last listed
    /// whole (nil before the first poll: they were listed when they were added).
    public var polledRoots: [(root: String, lastScan: Date?)] {
        loop.polling.roots.map { ($0, loop.polling.lastScans[ExactName($0)]) }
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
        loop.polling.roots = roots
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

extension WatchedTree {
    /// Exposed for tests: the coalescing of one batch.
    static func coalesce(_ events: [FileEvent]) -> [FileEvent] { WatchLoop.coalesce(events) }
}
