#if canImport(Glibc)
import Glibc
#endif
import CLinux
import CSystemd
import Foundation
import LprojCatalog
import LprojProtocol
import LprojTables
import LprojWatch

/// lprojd's shell: the event loop and every descriptor — the listening
/// socket, the clients, a signalfd (SIGTERM, SIGINT), the inotify
/// descriptor and a one-shot timer — on one thread, with no locks on the
/// hot path and no thread between a save and its event.
///
/// What to do with what arrives is the core's: the `Catalog` (files in,
/// changes out), the `Publisher` (changes in, lines for each session out)
/// and `PendingChanges` (which changes wait, and until when). The shell
/// reads, hands over, and writes what they decide. Idle means idle: the
/// timer runs only while a change waits (and the watchdog only when
/// systemd asks for one).
public final class Daemon {
    /// The program and version, as `hello` and `status` report them.
    public static let server = "lprojd 0.1.0"

    var configuration: Configuration
    let log: Log
    /// The roots, canonical (symlinks resolved), in the configuration's order.
    var roots: [String]
    let publisher: Publisher
    let catalog: Catalog
    var selections: Selections
    var access: AccessPolicy
    /// Reads the configuration again (SIGHUP); nil: reloading is not possible.
    let reloadSource: (@Sendable () throws(ConfigurationError) -> Configuration)?
    /// What went wrong last and still holds (a failed reload), for `status` and systemd.
    var lastError: String?
    let service = ServiceManager()
    var clients: [Int32: ClientConnection] = [:]
    /// The shell's counters for `status` (the publisher keeps its own).
    var counters: [String: UInt64] = [:]
    let started = ContinuousClock.now
    private let listener: Listener
    private let poller: Int32
    private let signals: Int32
    private let timer: Int32
    /// When the timer is set to fire (nil: disarmed).
    private var timerDeadline: ContinuousClock.Instant?
    /// When the polled directories are listed next, and the files that
    /// could not be opened read again (nil: nothing is polled).
    private var nextPoll: ContinuousClock.Instant?
    /// What a kernel limit keeps from working as it should, by limit
    /// (`watches`, `descriptors`): logged once per episode, shown in `status`.
    var limitWarnings: [String: String] = [:]
    /// The roots polled instead of watched, with why.
    var polledRoots: [ExactName: String] = [:]
    /// Table files that could not be opened for want of file descriptors:
    /// their tables stay as they were, and they are read again each poll.
    var unreadable = Set<ExactName>()
    var tree: WatchedTree?
    private var markers: MarkerSync<PendingSync>?
    var pending: PendingChanges
    /// Syncs whose marker came back, waiting for the pending changes up to their ticket.
    private var settling: [(ticket: UInt64, sync: PendingSync)] = []
    private var handlers = Handlers()
    private var stopping = false
    /// The bundles' cross-language checks, and the tables whose checks wait for the end of the loop's turn.
    let checks = Checks()
    private var pendingChecks: [ExactName: [TableAddress: Checks.ChangedKeys]] = [:]
    /// Connections by their session (the publisher names sessions, not descriptors).
    private var bySession: [Int: Int32] = [:]
    /// Connections refused (access, limits), kept until their peer closes.
    private var refused = Set<Int32>()
    /// Who may take a connection slot, and how many each user holds.
    var admission: Admission
    /// Connections that have not sent a complete request yet, oldest first
    /// (each is closed when `[Limits] FirstRequestTimeout=` passes).
    private var awaitingFirstRequest: [(descriptor: Int32, connected: ContinuousClock.Instant)] = []
    private var awaitingStart = 0
    /// A descriptor held in reserve: with none left to accept with, it is
    /// closed so that the waiting connection can be told `busy` and closed.
    private var spareDescriptor: Int32 = -1
    /// The listening socket is out of the loop: no descriptor, not even the spare, was left to refuse with.
    private var acceptPaused = false

    /// A `sync` request waiting for the tree: which connection (and which
    /// connection it was: descriptors are reused), and the request's id.
    struct PendingSync {
        var descriptor: Int32
        var connected: ContinuousClock.Instant
        var id: RequestID
    }

    /// Blocks the signals the loop reads from a signalfd. Call it first in
    /// `main`, before any thread starts, so every thread inherits the mask.
    public static func blockSignals() {
        var mask = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, SIGTERM)
        sigaddset(&mask, SIGINT)
        sigaddset(&mask, SIGHUP)
        pthread_sigmask(SIG_BLOCK, &mask, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    /// Prepares everything: roots, state, socket, watcher, initial crawl.
    /// Throws with one line saying what is wrong. `reload` reads the
    /// configuration again on SIGHUP (the file and the flags over it).
    public init(configuration: Configuration, environment: [String: String], log: Log,
                reload: (@Sendable () throws(ConfigurationError) -> Configuration)? = nil) throws(DaemonError) {
        self.configuration = configuration
        self.log = log
        reloadSource = reload
        let canonical = try Self.canonicalRoots(configuration.roots)
        // A Poll= root that is no root is a typo, refused as --check-config and a reload refuse it.
        if let problem = configuration.problems(environment: environment).first(where: { $0.hasPrefix("[Watch] Poll") }) {
            throw DaemonError(problem)
        }
        roots = canonical
        publisher = Publisher(instance: String(UInt64.random(in: 1...UInt64.max), radix: 16), historyLength: configuration.historyLength,
                              historyBytes: configuration.historyBytes, queueLimit: configuration.clientQueueBytes)
        pending = PendingChanges(rules: .init(grace: configuration.removalGrace, quiet: configuration.quietPeriod))
        let exclusions = Exclusions(patterns: configuration.excludes, roots: canonical)
        let links = Self.linkPolicy(roots: canonical, configuration: configuration)
        catalog = Catalog(limits: configuration.tableLimits, exclusions: exclusions, links: links)
        polledRoots = Self.polledRoots(canonical, configuration: configuration, log: log)
        access = AccessPolicy(configuration, ownUser: getuid())
        admission = Admission(configuration, ownUser: getuid())
        Self.raiseDescriptorLimit(to: configuration.descriptorsNeeded)
        for warning in configuration.warnings() { log.warning(warning) }
        spareDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
        do throws(SelectionError) {
            selections = try Selections(stateDirectory: configuration.resolvedStateDirectory(environment: environment),
                                        maximumApps: configuration.maximumApps)
        } catch {
            throw DaemonError("state directory: \(error.message)")
        }
        if let activated = try Listener.activated() {
            listener = activated
        } else {
            listener = try Listener.open(path: configuration.resolvedSocketPath(environment: environment), mode: configuration.socketMode,
                                         group: configuration.socketGroup?.id)
        }
        poller = lproj_epoll_create()
        signals = lproj_signalfd_term()
        timer = lproj_timer_create()
        guard poller >= 0, signals >= 0, timer >= 0 else {
            listener.close()
            throw DaemonError("cannot set up the event loop: \(String(cString: strerror(errno)))")
        }
        registerHandlers(into: &handlers)
        // The tree is watched a directory at a time, each watched and then
        // listed: a change made meanwhile is seen twice (listed and as an
        // event), never missed. What is listed is read on worker threads
        // while the walk goes on.
        let startedWatching = ContinuousClock.now
        Catalog.warmUp()
        _ = Self.systemFileLimit   // read now: with no descriptor left it could not be
        let firstLoad = FirstLoad(limits: catalog.limits, exclusions: exclusions, links: links)
        let walked: Result<WatchedTree, WatchedTree.StartError>
        do throws(WatchedTree.StartError) {
            walked = .success(try WatchedTree(roots: canonical, isExcluded: { exclusions.excludes($0) }, links: links,
                                              polled: polledRoots.keys.map(\.string), noteSkipped: Self.skipNoter(log),
                                              listed: { firstLoad.read($0) }))
        } catch {
            walked = .failure(error)
        }
        firstLoad.walkFinished()
        // What the workers read is taken in here, as it comes, once room for every file listed is made.
        catalog.reserveCapacity(files: firstLoad.tableFiles)
        var loaded = 0
        while let batch = firstLoad.nextBatch() {
            loaded += batch.count
            // Nobody listens yet: the state only.
            _ = catalog.apply(batch, reporting: false)
        }
        switch walked {
        case .success(let walked):
            tree = walked
            markers = MarkerSync(tree: walked)
        case .failure(let error):
            listener.close()
            throw DaemonError("cannot watch: \(error.description)")
        }
        // The parse's buffers are freed but held by malloc's per-thread arenas: give them back.
        let applied = ContinuousClock.now
        lproj_release_free_memory()
        log.debug("start: \(loaded) files read and applied after \(applied - startedWatching), "
                  + "memory returned after \(ContinuousClock.now - startedWatching)")
        // (Every file's record is walked only when a parse failed: 15 ms for 50,000 files.)
        if catalog.parseFailures > 0 {
            for (_, record) in catalog.files where record.isInvalid {
                for diagnostic in record.diagnostics where diagnostic.severity == .error { log.warning("\(diagnostic) (not served)") }
            }
        }
        log.info("watching \(canonical.joined(separator: ", ")): \(catalog.bundles.count) bundles, \(catalog.served.count) tables, "
                 + "\(tree?.watchCount ?? 0) directories; listening on \(listener.path)")
        add(listener.descriptor, events: interestIn)
        if let tree { add(tree.descriptor, events: interestIn) }
        add(signals, events: interestIn)
        add(timer, events: interestIn)
        checkPolling()
    }

    /// Says (once per episode) what a kernel limit keeps from being
    /// watched or read, and starts polling while anything is polled (or
    /// waits to be read), or stops it.
    func checkPolling() {
        let interval = "\(Configuration.milliseconds(configuration.pollInterval)) ms"
        let unwatched = tree?.unwatchedCount ?? 0
        var watchWarning: String?
        if unwatched > 0 {
            let limit = Self.firstLine(of: "/proc/sys/fs/inotify/max_user_watches") ?? "?"
            watchWarning = "\(unwatched) directories are not watched: the inotify watch limit is reached (fs.inotify.max_user_watches = "
                + "\(limit); raise it, e.g. sysctl fs.inotify.max_user_watches=\(max(524_288, (Int(limit) ?? 0) * 2))); "
                + "they are polled every \(interval)"
        }
        note(watchWarning, for: "watches", over: "every directory is watched again: polling stops")
        var descriptorWarning: String?
        if tree?.descriptorLimitReached == true || !unreadable.isEmpty || markers?.hasUnsent == true {
            var limits = rlimit()
            getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
            // (fs.file-max was read at start: with no descriptor left, /proc cannot be read now.)
            descriptorWarning = "out of file descriptors (EMFILE: this process may open \(limits.rlim_cur) — raise LimitNOFILE= in the "
                + "unit or ulimit -n; ENFILE: the system's fs.file-max = \(Self.systemFileLimit)): "
                + "\(unreadable.count) table file(s) keep their last contents, and what could not be read or listed is tried again "
                + "every \(interval)"
        }
        note(descriptorWarning, for: "descriptors", over: "file descriptors are available again: every table file is read")
        if tree?.isPolling == true || descriptorWarning != nil {
            if nextPoll == nil { nextPoll = .now + configuration.pollInterval }
        } else {
            nextPoll = nil
        }
    }

    /// Logs `warning` when it is new for `limit`, or `over` when the limit no longer bites.
    private func note(_ warning: String?, for limit: String, over: String) {
        if let warning {
            if limitWarnings[limit] == nil { log.warning(warning) }
            limitWarnings[limit] = warning
        } else if limitWarnings.removeValue(forKey: limit) != nil {
            log.info(over)
        }
    }

    /// Raises the soft limit of open files towards `needed`, as far as the hard limit lets it.
    static func raiseDescriptorLimit(to needed: Int) {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0, limits.rlim_cur < rlim_t(needed) else { return }
        limits.rlim_cur = min(limits.rlim_max, rlim_t(needed))
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
    }

    /// The system's limit of open files, as `fs.file-max` said when the daemon started.
    static let systemFileLimit = firstLine(of: "/proc/sys/fs/file-max") ?? "?"

    /// The first line of a small file (a sysctl under /proc).
    private static func firstLine(of path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.split(separator: "\n").first.map(String.init)
    }

    /// Which links inside the roots are followed: into the roots and `FollowLinksTo=`.
    static func linkPolicy(roots: [String], configuration: Configuration) -> LinkPolicy {
        LinkPolicy(under: roots + configuration.followLinksTo.map(PathText.tidy))
    }

    /// What the watched tree says of what it skips (a warning: a link once per reason, a directory or special file once).
    static func skipNoter(_ log: Log) -> (String, String) -> Void {
        { path, reason in log.warning("\(path): \(reason)") }
    }

    /// The roots to poll instead of watching (`[Watch] Poll=`), with why;
    /// logged. `auto` polls a root on a filesystem inotify does not see whole.
    static func polledRoots(_ roots: [String], configuration: Configuration, log: Log) -> [ExactName: String] {
        var polled: [ExactName: String] = [:]
        let interval = "\(Configuration.milliseconds(configuration.pollInterval)) ms"
        for root in roots {
            switch configuration.pollMode(for: root) {
            case .off:
                if let filesystem = RemoteFilesystem.name(at: root) {
                    log.warning("\(root) is on \(filesystem), but Poll=off: changes made on other hosts are not seen")
                }
            case .on:
                polled[ExactName(root)] = "Poll=on"
                log.info("\(root): polled every \(interval) (Poll=on), not watched")
            case .auto:
                guard let filesystem = RemoteFilesystem.name(at: root) else { continue }
                polled[ExactName(root)] = "on \(filesystem)"
                log.warning("\(root) is on \(filesystem), where inotify does not see changes made on other hosts: polled every "
                            + "\(interval) instead (Poll=off \(root) to watch it with inotify alone)")
            }
        }
        return polled
    }

    /// Directories watched now.
    var watchCount: Int { tree?.watchCount ?? 0 }

    /// The socket path the daemon listens on.
    public var socketPath: String { listener.path }

    /// Serves until SIGTERM or SIGINT; then stops accepting, flushes what
    /// clients are owed, removes the socket. Returns the exit status.
    /// SIGHUP reloads the configuration (`reload()`).
    public func run() -> Int32 {
        service.ready(status: statusLine)
        var descriptors = [Int32](repeating: 0, count: 64)
        var events = [UInt32](repeating: 0, count: 64)
        while !stopping {
            // Events taken out of the kernel's queue to check a read are handled at once.
            let held = tree?.hasQueuedEvents == true
            let timeout = held ? 0 : service.sleepLimit()
            let count = lproj_epoll_wait(poller, &descriptors, &events, 64, timeout)
            // From the loop itself: a loop stuck in one batch stops pinging.
            service.pingIfDue()
            if count < 0 {
                if errno == EINTR { continue }
                log.error("epoll_wait: \(String(cString: strerror(errno)))")
                break
            }
            var treeRead = false
            for (descriptor, event) in zip(descriptors.prefix(Int(count)), events) {
                if descriptor == listener.descriptor {
                    acceptClients()
                } else if descriptor == tree?.descriptor {
                    // One batch; more waiting keeps the descriptor readable for the next turn.
                    let reading = ContinuousClock.now
                    if let batch = tree?.readBatch(waiting: false) { handle(batch, read: ContinuousClock.now - reading) }
                    treeRead = true
                } else if descriptor == timer {
                    lproj_timer_drain(timer)
                    timerDeadline = nil
                    timerFired()
                } else if descriptor == signals {
                    while case let signal = lproj_signalfd_read(signals), signal != 0 {
                        if signal == SIGHUP {
                            reload()
                        } else {
                            log.info("signal \(signal): stopping")
                            stopping = true
                        }
                    }
                } else if let client = clients[descriptor] {
                    service(client, events: event)
                } else if refused.contains(descriptor) {
                    drainRefused(descriptor)
                }
            }
            if held, !treeRead, let batch = tree?.readBatch(waiting: false) { handle(batch) }
            armTimer()
            flushTouched()
            // The checks of what changed run once its events are on their way.
            if !pendingChecks.isEmpty {
                runChecks()
                flushTouched()
            }
            service.status(statusLine)
        }
        shutDown()
        return 0
    }

    // MARK: - Publishing

    /// The clock as of the last published event.
    var clock: Clock { publisher.clock }

    /// Logs and publishes what the catalog says changed.
    func publish(_ changes: [Catalog.Change]) {
        for change in changes {
            switch change {
            case .tableChanged(let address, let diff, let deleted):
                log.debug("\(address.bundle)/\(address.localization)/\(address.table): +\(diff.added.count) ~\(diff.changed.count) -\(diff.removed.count)")
                // The keys the diff names (a table that came or went: whole); two changes before the checks run add up.
                let keys: Checks.ChangedKeys = deleted ? nil
                    : Set(diff.added.keys.map(ExactName.init) + diff.changed.keys.map(ExactName.init) + diff.removed.map(ExactName.init))
                let bundle = ExactName(address.bundle)
                if let waiting = pendingChecks[bundle]?[address] {
                    pendingChecks[bundle]![address] = waiting.flatMap { earlier in keys.map { earlier.union($0) } }
                } else {
                    pendingChecks[bundle, default: [:]][address] = keys
                }
            case .bundleRemoved(let bundle):
                checks.forget(bundle)
                pendingChecks[ExactName(bundle)] = nil
            case .tableInvalid(let file, _, _, _, let diagnostics, let kept):
                log.info("\(file): \(diagnostics.filter { $0.severity == .error }.count) error(s); \(kept ? "last good version kept" : "not served")")
            default:
                break
            }
        }
        publisher.publish(changes)
    }

    /// Checks the tables that changed again (`Checks`) and publishes each
    /// bundle's set of diagnostics that changed.
    private func runChecks() {
        let started = ContinuousClock.now
        let due = pendingChecks
        pendingChecks.removeAll()
        for (bundle, tables) in due.sorted(by: { $0.key < $1.key }) {
            let listened = publisher.hasSubscribers(for: .checks(bundle: bundle.string))
            guard let diagnostics = checks.update(bundle.string, changes: tables, listened: listened, in: catalog) else { continue }
            publisher.publish(scope: .checks(bundle: bundle.string)) { Diagnostics(clock: $0, bundle: bundle.string, diagnostics: diagnostics) }
        }
        log.debug("checks of \(due.count) bundle(s) in \(ContinuousClock.now - started)")
    }

    // MARK: - The loop's inputs

    private func handle(_ batch: WatchBatch, read: Duration = .zero) {
        let received = ContinuousClock.now
        if batch.overflowed {
            counters["overflows", default: 0] += 1
            let limit = Self.firstLine(of: "/proc/sys/fs/inotify/max_queued_events") ?? "?"
            let overflows = counters["overflows"] ?? 1
            log.warning("inotify queue overflowed (fs.inotify.max_queued_events = \(limit); raise it if this recurs): rescanning every root")
            // Said in status from then on: nothing is lost (the rescan publishes the differences), but the limit is worth raising.
            limitWarnings["queue"] = "the inotify queue overflowed \(overflows) time\(overflows == 1 ? "" : "s") (fs.inotify.max_queued_events = "
                + "\(limit)): each time every root was rescanned and subscribers told to resync"
            // Everything is read now: nothing waits any more.
            pending.removeAll()
            let paths = Set(catalog.files.keys).union(catalog.crawl(roots: roots).map(ExactName.init)).map(\.string)
            publish(catalog.refresh(paths))
            publisher.resyncEveryone(.overflow)
        } else if !batch.events.isEmpty {
            let paths = pending.take(Self.readingSwappedLinksNow(batch.events, knownFiles: catalog.files(under:)), at: received,
                                     isKnown: catalog.knows, knownFiles: catalog.files(under:))
            refresh(paths)
            // Only a batch that read something is logged: a log file inside a root would otherwise feed itself (a write, a line, a write…).
            if !paths.isEmpty {
                log.debug("batch of \(batch.events.count) file event(s) read in \(read), handled in \(ContinuousClock.now - received)")
            }
        }
        // New directories may have met a limit (or freed watches let polled ones be watched).
        if tree?.isPolling == true || !limitWarnings.isEmpty { checkPolling() }
        if var markers {
            for sync in markers.settle(batch) { settling.append((pending.lastTicket, sync)) }
            self.markers = markers
        }
        answerSettledSyncs()
    }

    /// Reads `paths` and publishes what changed, except reads that a newer
    /// change of the same file overtook: after reading, the events queued
    /// since are looked at, and a file written, truncated, moved or removed
    /// again meanwhile (or whose directory moved) is left to those events —
    /// a save is published only as it was completed, never half-written.
    /// A file read empty is held for the quiet period first (unless
    /// `holdingEmpty` is false: the hold is over), as the empty file may be
    /// a save between its truncate and its write whose event is not queued yet.
    func refresh(_ paths: [String], holdingEmpty: Bool = true) {
        guard !paths.isEmpty else { return }
        var loaded = catalog.read(paths)
        // Out of descriptors: the file stays as it was, and is read again at the next poll.
        loaded.removeAll { item in
            guard case .failure(let error) = item.outcome, error.isOutOfDescriptors else { return false }
            unreadable.insert(item.path)
            return true
        }
        if !unreadable.isEmpty { checkPolling() }
        if let queued = tree?.queuedPaths(), !queued.isEmpty {
            let before = loaded.count
            loaded.removeAll { Self.isOvertaken($0.path.string, by: queued) }
            if loaded.count < before {
                counters["reads-overtaken", default: 0] += UInt64(before - loaded.count)
                log.debug("\(before - loaded.count) read(s) overtaken by a newer change: left to its event")
            }
        }
        if holdingEmpty {
            let now = ContinuousClock.now
            loaded.removeAll { item in
                guard case .success(let file) = item.outcome, file.wasEmpty else { return false }
                pending.hold(item.path.string, at: now)
                return true
            }
        }
        publish(catalog.apply(loaded))
    }

    /// A root whose link was swapped (a deploy's `current`) is read at once,
    /// whole: its files as listed in the new target and those known from the
    /// old become `written` (a release is complete when its link moves), so
    /// each table publishes the difference between the two in one change.
    static func readingSwappedLinksNow(_ events: [FileEvent], knownFiles: (String) -> [String]) -> [FileEvent] {
        let swapped = events.compactMap { if case .linkSwapped(let root) = $0 { root } else { nil } }
        guard !swapped.isEmpty else { return events }
        var listed = Set<ExactName>()
        var result = events.map { event -> FileEvent in
            if case .listed(let path) = event, swapped.contains(where: { ExactName(path).isWithin($0) }) {
                listed.insert(ExactName(path))
                return .written(path)
            }
            return event
        }
        // Known files the new target does not have are read too (and found gone); each file once.
        for root in swapped { result += knownFiles(root).filter { !listed.contains(ExactName($0)) }.map { .written($0) } }
        return result
    }

    /// Whether the file at `path`, or its directory or the one above, is among `queued`.
    private static func isOvertaken(_ path: String, by queued: Set<ExactName>) -> Bool {
        var current = Substring(path)
        for _ in 0..<3 {
            if queued.contains(ExactName(String(current))) { return true }
            guard let slash = current.lastIndex(of: "/"), slash != current.startIndex else { return false }
            current = current[..<slash]
        }
        return false
    }

    /// Reads what waited and is due; lists the unwatched directories when their time has come.
    private func timerFired() {
        closeSilentConnections(at: .now)
        refresh(pending.takeDue(at: .now), holdingEmpty: false)
        if let poll = nextPoll, poll <= .now {
            nextPoll = nil
            counters["polls", default: 0] += 1
            let events = tree?.pollUnwatched() ?? []
            if !events.isEmpty {
                refresh(pending.take(Self.readingSwappedLinksNow(events, knownFiles: catalog.files(under:)), at: .now, isKnown: catalog.knows,
                                     knownFiles: catalog.files(under:)))
            }
            let retried = unreadable
            unreadable = []
            refresh(retried.map(\.string))
            markers?.resend()
            checkPolling()
        }
        answerSettledSyncs()
    }

    /// Arms the timer for the next pending change, or disarms it when nothing waits.
    private func armTimer() {
        let next = [pending.nextDeadline, nextPoll, nextFirstRequestDeadline()].compactMap { $0 }.min()
        guard next != timerDeadline else { return }
        timerDeadline = next
        guard let next else {
            lproj_timer_arm(timer, 0)
            return
        }
        let wait = next - .now
        let nanoseconds = wait.components.seconds * 1_000_000_000 + wait.components.attoseconds / 1_000_000_000
        lproj_timer_arm(timer, max(1, nanoseconds))
    }

    /// Answers the syncs whose marker came back once the changes that waited at that moment are settled.
    /// (The checks of what was published run first: a sync answered means its changes' diagnostics went out too.)
    private func answerSettledSyncs() {
        if let first = settling.first, pending.isSettled(through: first.ticket), !pendingChecks.isEmpty { runChecks() }
        while let first = settling.first, pending.isSettled(through: first.ticket) {
            settling.removeFirst()
            guard let client = clients[first.sync.descriptor], client.connected == first.sync.connected else { continue }
            reply(Sync.Reply(clock: clock), to: first.sync.id, on: client)
        }
    }

    private func acceptClients() {
        while true {
            let descriptor = lproj_accept(listener.descriptor)
            if descriptor < 0 {
                if errno == EINTR { continue }
                if errno == EMFILE || errno == ENFILE { return refuseForWantOfDescriptors() }
                if errno != EAGAIN && errno != EWOULDBLOCK { log.warning("accept: \(String(cString: strerror(errno)))") }
                return
            }
            note(nil, for: "clients", over: "file descriptors are available again: connections are accepted")
            guard let peer = PeerCredentials(socket: descriptor) else {
                close(descriptor)
                continue
            }
            let refusal = access.mayConnect(peer)
                ? admission.refusal(for: peer.uid)
                : ProtocolError(.forbidden, "user \(peer.uid) may not connect (see [Access] AllowUsers/AllowGroups)")
            if let refusal {
                counters["connections-refused", default: 0] += 1
                log.info("refused a connection from pid \(peer.pid) (uid \(peer.uid)): \(refusal.message)")
                refuse(descriptor, with: refusal)
                continue
            }
            admission.admit(peer.uid)
            let client = ClientConnection(descriptor: descriptor, peer: peer, session: publisher.openSession(),
                                          maximumLineLength: configuration.maximumRequestBytes)
            clients[descriptor] = client
            bySession[client.session.id] = descriptor
            awaitingFirstRequest.append((descriptor, client.connected))
            counters["connections", default: 0] += 1
            add(descriptor, events: client.interest)
            log.debug("client connected: pid \(peer.pid), uid \(peer.uid)")
        }
    }

    /// No descriptor is left to accept with: the spare one is given up to
    /// accept each waiting connection, tell it `busy` and close it, then
    /// taken back — so clients hear why, and the loop does not spin on a
    /// listening socket it cannot empty. Said once until accepting works again.
    private func refuseForWantOfDescriptors() {
        var limits = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
        let reason = "out of file descriptors (this process may open \(limits.rlim_cur): raise LimitNOFILE= in the unit or ulimit -n, "
            + "or lower [Limits] MaxClients=\(configuration.maximumClients)): new connections are refused with busy"
        note(reason, for: "clients", over: "file descriptors are available again: connections are accepted")
        let line = Wire.failure(ProtocolError(.busy, "the daemon is out of file descriptors; try again later"), to: nil)
        while spareDescriptor >= 0 {
            close(spareDescriptor)
            spareDescriptor = -1
            let descriptor = lproj_accept(listener.descriptor)
            let failure = errno
            if descriptor >= 0 {
                counters["connections-refused", default: 0] += 1
                _ = line.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                shutdown(descriptor, Int32(SHUT_WR))
                close(descriptor)
            }
            spareDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
            if descriptor < 0, failure == EAGAIN || failure == EWOULDBLOCK { return }
        }
        // Not even the spare: stop listening until a connection closes.
        lproj_epoll_remove(poller, listener.descriptor)
        acceptPaused = true
    }

    /// Listens again once a descriptor is free (a connection closed).
    private func resumeAccepting() {
        if spareDescriptor < 0 { spareDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC) }
        guard acceptPaused else { return }
        acceptPaused = false
        add(listener.descriptor, events: interestIn)
    }

    /// Closes the connections that sent no complete request within `FirstRequestTimeout=` of connecting.
    private func closeSilentConnections(at now: ContinuousClock.Instant) {
        while awaitingStart < awaitingFirstRequest.count {
            let (descriptor, connected) = awaitingFirstRequest[awaitingStart]
            if let client = clients[descriptor], client.connected == connected, !client.hasSentRequest {
                guard connected + configuration.firstRequestTimeout <= now else { break }
                counters["connections-timed-out", default: 0] += 1
                publisher.send(Wire.failure(ProtocolError(.limit,
                    "no complete request within \(Configuration.milliseconds(configuration.firstRequestTimeout)) ms of connecting "
                    + "([Limits] FirstRequestTimeout); closing"), to: nil), to: client.session)
                _ = client.flush()
                log.info("closed a connection from pid \(client.peer.pid) (uid \(client.peer.uid)): no request within the first-request timeout")
                disconnect(client, reason: "no first request")
            }
            awaitingStart += 1
        }
        if awaitingStart > 64, awaitingStart * 2 > awaitingFirstRequest.count {
            awaitingFirstRequest.removeFirst(awaitingStart)
            awaitingStart = 0
        }
    }

    /// When the oldest connection still waiting for its first request is
    /// closed (those that sent one, or went, are passed over for good).
    private func nextFirstRequestDeadline() -> ContinuousClock.Instant? {
        while awaitingStart < awaitingFirstRequest.count {
            let (descriptor, connected) = awaitingFirstRequest[awaitingStart]
            if let client = clients[descriptor], client.connected == connected, !client.hasSentRequest {
                return connected + configuration.firstRequestTimeout
            }
            awaitingStart += 1
        }
        awaitingFirstRequest.removeAll(keepingCapacity: true)
        awaitingStart = 0
        return nil
    }

    /// Says why, then waits for the peer to close before closing: closing
    /// with its first request unread would reset the connection and lose the
    /// reason. At most 64 refused connections linger; more are closed at once.
    private func refuse(_ descriptor: Int32, with refusal: ProtocolError) {
        let line = Wire.failure(refusal, to: nil)
        _ = line.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        shutdown(descriptor, Int32(SHUT_WR))
        guard refused.count < 64 else {
            close(descriptor)
            return
        }
        refused.insert(descriptor)
        add(descriptor, events: interestIn | interestPeerClosed)
    }

    /// Reads and drops what a refused peer sends, until it closes.
    private func drainRefused(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        if count > 0 || (count < 0 && (errno == EAGAIN || errno == EINTR)) { return }
        lproj_epoll_remove(poller, descriptor)
        close(descriptor)
        refused.remove(descriptor)
        resumeAccepting()
    }

    /// Reads what a client sent and answers it; writes what it is owed.
    private func service(_ client: ClientConnection, events: UInt32) {
        if events & interestOut != 0 { flush(client) }
        guard events & (interestIn | interestHangUp | interestError | interestPeerClosed) != 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(client.descriptor, $0.baseAddress, $0.count, 0) }
        if count < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
            return disconnect(client, reason: String(cString: strerror(errno)))
        }
        if count == 0 {
            return disconnect(client, reason: nil)
        }
        for output in client.framer.append(buffer.prefix(count)) {
            switch output {
            case .line(let line):
                if line.isEmpty { continue }
                client.hasSentRequest = true
                counters["requests", default: 0] += 1
                handlers.handle(line, from: client, daemon: self)
            case .overlong:
                counters["requests-refused", default: 0] += 1
                publisher.send(Wire.failure(ProtocolError(.lineTooLong,
                    "a request line is longer than the \(ByteCountText.describe(configuration.maximumRequestBytes)) limit; skipped to its end"),
                    to: nil), to: client.session)
            }
        }
    }

    /// Writes to every session the publisher gave output.
    private func flushTouched() {
        for id in publisher.takeTouched() {
            guard let descriptor = bySession[id], let client = clients[descriptor] else { continue }
            flush(client)
        }
    }

    /// Writes what `client` is owed; pauses reading from it while its queue
    /// is full and resumes when it drains; settles lagging subscriptions.
    private func flush(_ client: ClientConnection) {
        guard client.flush() else { return disconnect(client, reason: "write failed") }
        let owed = publisher.settleLagging(client.session)
        for subscription in owed {
            log.info("subscription \"\(subscription.name)\" of pid \(client.peer.pid) fell behind: told to resync")
        }
        if !owed.isEmpty, !client.flush() { return disconnect(client, reason: "write failed") }
        // Wait for room to write; stop reading while the queue is full.
        var events = interestPeerClosed
        if !client.session.isFull { events |= interestIn }
        if client.session.queuedBytes > 0 { events |= interestOut }
        if events != client.interest {
            modify(client.descriptor, events: events)
            client.interest = events
        }
    }

    func reply<Reply: Encodable>(_ reply: Reply, to id: RequestID, on client: ClientConnection) {
        do {
            publisher.send(try Wire.reply(reply, to: id), to: client.session)
        } catch {
            publisher.send(Wire.failure(ProtocolError(.internal, "cannot encode the reply: \(error)"), to: id), to: client.session)
        }
    }

    func fail(_ error: ProtocolError, to id: RequestID?, on client: ClientConnection) {
        counters["requests-failed", default: 0] += 1
        publisher.send(Wire.failure(error, to: id), to: client.session)
    }

    /// Answers once every change made before now has been processed: a
    /// marker dropped in the watched tree comes back after every earlier
    /// event, and the changes that then wait (grace, quiet) settle first.
    func sync(_ id: RequestID, on client: ClientConnection) {
        guard markers != nil else { return reply(Sync.Reply(clock: clock), to: id, on: client) }
        markers!.request(PendingSync(descriptor: client.descriptor, connected: client.connected, id: id))
        // A marker that could not be made (no descriptor left) is made again at the next poll.
        if markers!.hasUnsent { checkPolling() }
    }

    private func disconnect(_ client: ClientConnection, reason: String?) {
        lproj_epoll_remove(poller, client.descriptor)
        close(client.descriptor)
        clients[client.descriptor] = nil
        bySession[client.session.id] = nil
        admission.release(client.peer.uid)
        publisher.closeSession(client.session)
        resumeAccepting()
        log.debug("client pid \(client.peer.pid) disconnected\(reason.map { ": \($0)" } ?? "")")
    }

    /// What `STATUS=` shows: bundles, tables, clients, and the last error.
    var statusLine: String {
        "\(catalog.bundleCount) bundles, \(catalog.served.count) tables, \(clients.count) clients"
            + (lastError.map { "; \($0)" } ?? "")
    }

    private func shutDown() {
        service.stopping()
        lproj_epoll_remove(poller, listener.descriptor)
        listener.close()
        tree?.close()
        tree = nil
        markers = nil
        // Flush what clients are owed, for at most a second; a stuck client does not hold the exit.
        let deadline = ContinuousClock.now + .seconds(1)
        for client in clients.values {
            while client.session.queuedBytes > 0, ContinuousClock.now < deadline {
                var poll = pollfd(fd: client.descriptor, events: Int16(POLLOUT), revents: 0)
                guard Glibc.poll(&poll, 1, 100) >= 0, client.flush() else { break }
            }
            shutdown(client.descriptor, Int32(SHUT_RDWR))
            close(client.descriptor)
        }
        clients.removeAll()
        log.info("stopped")
    }

    private func add(_ descriptor: Int32, events: UInt32) {
        lproj_epoll_control(poller, descriptor, events, 1)
    }

    private func modify(_ descriptor: Int32, events: UInt32) {
        lproj_epoll_control(poller, descriptor, events, 0)
    }
}

let interestIn = UInt32(LPROJ_POLL_IN)
private let interestOut = UInt32(LPROJ_POLL_OUT)
private let interestError = UInt32(LPROJ_POLL_ERR)
private let interestHangUp = UInt32(LPROJ_POLL_HUP)
let interestPeerClosed = UInt32(LPROJ_POLL_RDHUP)
