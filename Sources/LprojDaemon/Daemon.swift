#if canImport(Glibc)
import Glibc
#endif
import CLinux
import CSystemd
import Foundation
import LprojFormats
import LprojPaths
import LprojProtocol
import LprojTables
import LprojWatch

/// lprojd's shell: the event loop and every descriptor — the listening
/// socket, the clients, a signalfd (SIGTERM, SIGINT, SIGHUP), the inotify
/// descriptor and a one-shot timer — on one thread, with no locks on the
/// hot path and no thread between a save and its event.
///
/// What to do with what arrives is the core's (`DaemonCore`): the shell
/// accepts and reads connections, hands their lines and the watched tree's
/// batches (through its `TreeFeed`) to the core, and writes what the core
/// queued. Idle means idle: the timer runs only while a change waits, a
/// directory is polled, or a new connection has not sent its first
/// request (and the watchdog only when systemd asks for one).
public final class Daemon {
    /// The program and version, as `hello` and `status` report them.
    public static let server = DaemonCore.server

    let core: DaemonCore
    /// Reads the configuration again (SIGHUP); nil: reloading is not possible.
    let reloadSource: (@Sendable () throws(ConfigurationError) -> Configuration)?
    let service = ServiceManager()
    var clients: [Int32: ClientConnection] = [:]
    /// The table images clients map (`images`), shared between them.
    let images = ImageShelf()
    /// What is published, kept for the next start (nothing kept until the publisher is set).
    var publishedAddresses = PublishedAddresses(stateDirectory: nil, limit: 0)
    /// What may be in flight to clients as descriptors (the kernel's limit is this process's).
    let descriptorBudget: DescriptorBudget
    let feed: TreeFeed
    let listener: Listener
    let poller: Int32
    private let signals: Int32
    private let timer: Int32
    /// `[Socket] MetricsListen=`'s HTTP endpoint, when set.
    private var metrics: MetricsEndpoint?
    /// When the timer is set to fire (nil: disarmed).
    private var timerDeadline: ContinuousClock.Instant?
    private var stopping = false
    /// Connections by their session (the core names sessions, not descriptors).
    var bySession: [Int: Int32] = [:]
    /// Connections refused (access, limits), kept until their peer closes.
    var refused = Set<Int32>()
    /// Connections that have not sent a complete request yet, oldest first
    /// (each is closed when `[Limits] FirstRequestTimeout=` passes).
    var awaitingFirstRequest: [(descriptor: Int32, connected: ContinuousClock.Instant)] = []
    var awaitingStart = 0
    /// A descriptor held in reserve: with none left to accept with, it is
    /// closed so that the waiting connection can be told `busy` and closed.
    var spareDescriptor: Int32 = -1
    /// The listening socket is out of the loop: no descriptor, not even the spare, was left to refuse with.
    var acceptPaused = false
    /// Where each client's read lands (one for the loop: made once, not zeroed for every read).
    private let receiveBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)

    deinit {
        receiveBuffer.deallocate()
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
        reloadSource = reload
        let canonical = try Self.canonicalRoots(configuration.watch.roots)
        // A Poll= root that is no root is a typo, refused as --check-config and a reload refuse it.
        if let problem = configuration.problems(environment: environment).first(where: { $0.hasPrefix("[Watch] Poll") }) {
            throw DaemonError(problem)
        }
        Self.raiseDescriptorLimit(to: configuration.limits.descriptorsNeeded)
        descriptorBudget = DescriptorBudget(limit: Self.descriptorLimit)
        for warning in configuration.warnings() { log.warning(warning) }
        let selections: Selections
        do throws(SelectionError) {
            selections = try Selections(stateDirectory: configuration.state.resolvedDirectory(environment: environment),
                                        maximumApps: configuration.state.maximumApps)
        } catch {
            throw DaemonError("state directory: \(error.message)")
        }
        core = DaemonCore(configuration: configuration, roots: canonical, selections: selections, log: log)
        core.polledRoots = Self.polledRoots(canonical, configuration: configuration, log: log)
        spareDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
        if let activated = try Listener.activated() {
            listener = activated
        } else {
            listener = try Listener.open(path: configuration.socket.resolvedPath(environment: environment), mode: configuration.socket.mode,
                                         group: configuration.socket.group?.id)
        }
        poller = lproj_epoll_create()
        signals = lproj_signalfd_term()
        timer = lproj_timer_create()
        guard poller >= 0, signals >= 0, timer >= 0 else {
            listener.close()
            throw DaemonError("cannot set up the event loop: \(String(cString: strerror(errno)))")
        }
        if let listen = configuration.socket.metricsListen {
            do throws(MetricsEndpointError) {
                metrics = try MetricsEndpoint(address: listen.address, port: listen.port)
            } catch {
                listener.close()
                throw DaemonError("[Socket] MetricsListen=\(listen): cannot listen: \(error.message)")
            }
        }
        let startedWatching = ContinuousClock.now
        _ = DaemonCore.systemFileLimit   // read now: with no descriptor left it could not be
        do throws(WatchedTree.StartError) {
            feed = try TreeFeed(core: core, noteSkipped: Self.skipNoter(log))
        } catch {
            listener.close()
            throw DaemonError("cannot watch: \(error.description)")
        }
        // The parse's buffers are freed but held by malloc's per-thread arenas: give them back.
        let applied = ContinuousClock.now
        lproj_release_free_memory()
        // From now on large blocks (events the history keeps) are mapped and unmapped, never held in the heap's holes. (After
        // the first load: its readers' arenas are sized for blocks under the threshold as it was.)
        lproj_fix_mmap_threshold()
        log.debug("start: \(feed.filesRead) files read and applied after \(applied - startedWatching), "
                  + "memory returned after \(ContinuousClock.now - startedWatching)")
        let tables = core.tables
        // (Every file's record is walked only when a parse failed: 15 ms for 50,000 files.)
        if tables.parseFailures > 0 {
            for (_, record) in tables.files where record.isInvalid {
                for diagnostic in record.diagnostics where diagnostic.severity == .error { log.warning("\(diagnostic) (not served)") }
            }
        }
        log.info("watching \(canonical.joined(separator: ", ")): \(tables.bundles.count) bundles, \(tables.served.count) tables, "
                 + "\(feed.tree.watchCount) directories; listening on \(listener.path)")
        if configuration.socket.publishesImages && configuration.limits.sharedImages > 0 {
            do throws(DaemonError) {
                images.publisher = try ImagePublisher(path: SocketPath.publishedImages(socket: listener.path))
                images.mayPublish = { [access = core.publisher.readAccess] in access.allowsEveryone(table: $0) }
                core.recordsChangedTables = true
                // Published before ready: the processes that start with the daemon find them.
                publishedAddresses = PublishedAddresses(stateDirectory: selections.stateDirectory, limit: configuration.limits.sharedImages)
                images.publishAhead(try publishedAddresses.load().compactMap { address in
                    tables.served[address].map { AttachedImage(address: address, table: $0) }
                })
                if images.takeHandedOut() { trimAndCountImages() }
            } catch {
                log.warning(error.description)
            }
        }
        let feed = self.feed
        core.treeStatus = { feed.status }
        descriptorBudget.settleRead = { [unowned self] in
            for client in clients.values { client.settleIfRead() }
        }
        add(listener.descriptor, events: interestIn)
        add(feed.tree.descriptor, events: interestIn)
        add(signals, events: interestIn)
        add(timer, events: interestIn)
        if let metrics {
            add(metrics.wakeUp, events: interestIn)
            core.metricsURL = metrics.url
            log.info("metrics on \(metrics.url)")
        }
        core.treeChanged(feed.status)
    }

    /// Raises the soft limit of open files towards `needed`, as far as the hard limit lets it.
    /// How many descriptors this process may open (its soft RLIMIT_NOFILE).
    static var descriptorLimit: Int {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return 1024 }
        return Int(clamping: limits.rlim_cur)
    }

    static func raiseDescriptorLimit(to needed: Int) {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0, limits.rlim_cur < rlim_t(needed) else { return }
        limits.rlim_cur = min(limits.rlim_max, rlim_t(needed))
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
    }

    /// What the watched tree says of what it skips (a warning: a link once per reason, a directory or special file once).
    static func skipNoter(_ log: Log) -> (String, String) -> Void {
        { path, reason in log.warning("\(path): \(reason)") }
    }

    /// The roots to poll instead of watching (`[Watch] Poll=`), with why;
    /// logged. `auto` polls a root on a filesystem inotify does not see whole.
    static func polledRoots(_ roots: [String], configuration: Configuration, log: Log) -> [ExactName: String] {
        var polled: [ExactName: String] = [:]
        let interval = "\(Configuration.milliseconds(configuration.watch.pollInterval)) ms"
        for root in roots {
            switch configuration.watch.pollMode(for: root) {
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

    /// The socket path the daemon listens on.
    public var socketPath: String { listener.path }

    /// Serves until SIGTERM or SIGINT; then stops accepting, flushes what
    /// clients are owed, removes the socket. Returns the exit status.
    /// SIGHUP reloads the configuration (`reload()`).
    public func run() -> Int32 {
        service.ready(status: core.statusLine)
        var descriptors = [Int32](repeating: 0, count: 64)
        var events = [UInt32](repeating: 0, count: 64)
        while !stopping {
            // Events taken out of the kernel's queue to check a read are handled at once.
            let held = feed.tree.hasQueuedEvents
            let timeout = held ? 0 : service.sleepLimit()
            let count = lproj_epoll_wait(poller, &descriptors, &events, 64, timeout)
            // From the loop itself: a loop stuck in one batch stops pinging.
            service.pingIfDue()
            if count < 0 {
                if errno == EINTR { continue }
                core.log.error("epoll_wait: \(String(cString: strerror(errno)))")
                break
            }
            var treeRead = false
            for (descriptor, event) in zip(descriptors.prefix(Int(count)), events) {
                if descriptor == listener.descriptor {
                    acceptClients()
                } else if descriptor == feed.tree.descriptor {
                    // One batch; more waiting keeps the descriptor readable for the next turn.
                    feed.readBatch(into: core)
                    treeRead = true
                } else if descriptor == timer {
                    lproj_timer_drain(timer)
                    timerDeadline = nil
                    closeSilentConnections(at: .now)
                    feed.timerFired(into: core)
                } else if let metrics, descriptor == metrics.wakeUp {
                    metrics.render {
                        core.counters["metrics-scrapes", default: 0] += 1
                        return core.metricsText()
                    }
                } else if descriptor == signals {
                    while case let signal = lproj_signalfd_read(signals), signal != 0 {
                        if signal == SIGHUP {
                            reload()
                        } else {
                            core.log.info("signal \(signal): stopping")
                            stopping = true
                        }
                    }
                } else if let client = clients[descriptor] {
                    service(client, events: event)
                } else if refused.contains(descriptor) {
                    drainRefused(descriptor)
                }
            }
            if held, !treeRead { feed.readBatch(into: core) }
            feed.dropMarkers(for: core)
            // A published table that changed is published again (or withdrawn) in the turn that changed it.
            if core.recordsChangedTables { images.republish(core.takeChangedTables()) { [tables = core.tables] in tables.served[$0] } }
            core.answerSyncs()
            core.releaseHolds(at: .now)
            core.answerWaits(at: .now)
            flushTouched()
            // The checks of what changed run once its events are on their way.
            if core.hasDueChecks {
                core.runDueChecks()
                flushTouched()
            }
            core.keepGenerations()
            keepPublishedAddresses()
            armTimer()
            service.status(core.statusLine)
        }
        shutDown()
        return 0
    }

    /// Arms the timer for the core's next deadline or a connection's first-request deadline, or disarms it when nothing waits.
    private func armTimer() {
        let next = [core.nextDeadline, nextFirstRequestDeadline(), publishedAddresses.deadline].compactMap { $0 }.min()
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

    /// Reads what a client sent and answers it; writes what it is owed.
    private func service(_ client: ClientConnection, events: UInt32) {
        if events & interestOut != 0 { flush(client) }
        guard events & (interestIn | interestHangUp | interestError | interestPeerClosed) != 0 else { return }
        let count = recv(client.descriptor, receiveBuffer.baseAddress, receiveBuffer.count, 0)
        if count < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
            return disconnect(client, reason: String(cString: strerror(errno)))
        }
        if count == 0 {
            return disconnect(client, reason: nil)
        }
        for output in client.framer.append(UnsafeRawBufferPointer(rebasing: receiveBuffer[..<count])) {
            switch output {
            case .line(let line):
                if line.isEmpty { continue }
                client.hasSentRequest = true
                core.handle(line, from: client.session)
            case .overlong:
                core.counters["requests-refused", default: 0] += 1
                core.publisher.send(Wire.failure(ProtocolError(.lineTooLong,
                    "a request line is longer than the \(ByteCountText.describe(core.configuration.limits.maximumRequestBytes)) limit; skipped to its end"),
                    to: nil), to: client.session)
            }
        }
    }

    /// Writes to every session the publisher gave output.
    private func flushTouched() {
        for id in core.publisher.takeTouched() {
            guard let descriptor = bySession[id], let client = clients[descriptor] else { continue }
            flush(client)
        }
    }

    /// Writes what `client` is owed; pauses reading from it while its queue
    /// is full and resumes when it drains; settles lagging subscriptions.
    func flush(_ client: ClientConnection) {
        guard client.flush() else { return disconnect(client, reason: "write failed") }
        // Only a flush that handed out images has anything to trim or count.
        if images.takeHandedOut() { trimAndCountImages() }
        let owed = core.publisher.settleLagging(client.session)
        for subscription in owed {
            core.log.info("subscription \"\(subscription.name)\" of pid \(client.session.peer.pid) fell behind: told to resync")
        }
        if !owed.isEmpty, !client.flush() { return disconnect(client, reason: "write failed") }
        // The user's connections fell below their bound together: those paused for it read again.
        if let share = client.session.share, share.takeReleased() {
            for other in clients.values where other !== client && other.session.share === share && other.interest & interestIn == 0 {
                flush(other)
            }
        }
        // Wait for room to write; stop reading while the queue is full.
        var events = interestPeerClosed
        if !client.session.isFull { events |= interestIn }
        if client.session.queuedBytes > 0 { events |= interestOut }
        if events != client.interest {
            modify(client.descriptor, events: events)
            client.interest = events
        }
    }

    func disconnect(_ client: ClientConnection, reason: String?) {
        // Never written to again: the descriptor's number may be the next connection's.
        client.session.writeNow = nil
        lproj_epoll_remove(poller, client.descriptor)
        close(client.descriptor)
        client.settleDescriptors()
        clients[client.descriptor] = nil
        bySession[client.session.id] = nil
        core.close(client.session)
        resumeAccepting()
        core.log.debug("client pid \(client.session.peer.pid) disconnected\(reason.map { ": \($0)" } ?? "")")
    }

    private func shutDown() {
        service.stopping()
        // Before the socket goes: whoever waits for that finds the list written.
        keepPublishedAddresses(now: nil)
        metrics?.stop()
        lproj_epoll_remove(poller, listener.descriptor)
        listener.close()
        feed.close()
        if let publisher = images.publisher {
            publisher.removeAll()
            rmdir(publisher.path)
        }
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
        core.log.info("stopped")
    }

    func add(_ descriptor: Int32, events: UInt32) {
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
