#if canImport(Glibc)
import Glibc
#endif
import CLinux
import CSystemd
import Foundation
import LprojProtocol
import LprojTables
import LprojWatch

/// lprojd's event loop: one thread owns the catalog, the connections, the
/// subscriptions, the history, the selections and the watched tree — no
/// locks on the hot path, no thread between a save and its event. It sleeps
/// in `epoll_wait` on the listening socket, the clients, a signalfd
/// (SIGTERM, SIGINT) and the inotify descriptor. Idle means idle: no timers
/// (unless systemd asked for a watchdog).
public final class Daemon {
    /// The program and version, as `hello` and `status` report them.
    public static let server = "lprojd 0.1.0"

    let configuration: Configuration
    let log: Log
    let roots: [String]
    let instance: String
    var sequence: UInt64 = 0
    var history: History
    let catalog: Catalog
    var selections: Selections
    let access: AccessPolicy
    var clients: [Int32: ClientConnection] = [:]
    var counters: [String: UInt64] = [:]
    let started = ContinuousClock.now
    private let listener: Listener
    private let poller: Int32
    private let signals: Int32
    private var tree: WatchedTree?
    /// `sync` requests waiting for their marker: (connection, its connect time, request id) by marker name.
    private var pendingSyncs: [String: (descriptor: Int32, connected: ContinuousClock.Instant, id: RequestID)] = [:]
    private var syncCount = 0
    private var handlers = Handlers()
    private var stopping = false
    /// Connections with output queued since the last flush.
    private var dirty = Set<Int32>()
    /// Connections refused (access, limits), kept until their peer closes.
    private var refused = Set<Int32>()

    /// Blocks the signals the loop reads from a signalfd. Call it first in
    /// `main`, before any thread starts, so every thread inherits the mask.
    public static func blockSignals() {
        var mask = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, SIGTERM)
        sigaddset(&mask, SIGINT)
        pthread_sigmask(SIG_BLOCK, &mask, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    /// Prepares everything: roots, state, socket, watcher, initial crawl.
    /// Throws with one line saying what is wrong.
    public init(configuration: Configuration, environment: [String: String], log: Log) throws(DaemonError) {
        self.configuration = configuration
        self.log = log
        guard !configuration.roots.isEmpty else { throw DaemonError("no root to watch: give --root DIR or Root= in [Watch]") }
        var canonical: [String] = []
        for root in configuration.roots {
            guard let resolved = realpath(root, nil) else {
                throw DaemonError("root \(root): \(String(cString: strerror(errno)))")
            }
            let path = String(cString: resolved)
            free(resolved)
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { throw DaemonError("root \(root): not a directory") }
            if !canonical.contains(path) { canonical.append(path) }
        }
        roots = canonical
        instance = String(UInt64.random(in: 1...UInt64.max), radix: 16)
        history = History(capacity: configuration.historyLength)
        let exclusions = Exclusions(patterns: configuration.excludes, roots: canonical)
        catalog = Catalog(limits: TableLimits(maximumFileBytes: configuration.maximumTableBytes), exclusions: exclusions)
        access = AccessPolicy(configuration, ownUser: getuid())
        do throws(SelectionError) {
            selections = try Selections(stateDirectory: configuration.resolvedStateDirectory(environment: environment))
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
        guard poller >= 0, signals >= 0 else {
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
        let firstLoad = FirstLoad(into: catalog, exclusions: exclusions)
        let walked: Result<WatchedTree, WatchedTree.StartError>
        do throws(WatchedTree.StartError) {
            walked = .success(try WatchedTree(roots: canonical, isExcluded: { exclusions.excludes($0) }, listed: { firstLoad.read($0) }))
        } catch {
            walked = .failure(error)
        }
        firstLoad.walkFinished()
        // The workers take what they read into the catalog; it is this thread's again after `finish`.
        let loaded = firstLoad.finish()
        switch walked {
        case .success(let walked):
            tree = walked
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
    }

    /// Directories watched now.
    var watchCount: Int { tree?.watchCount ?? 0 }

    /// The socket path the daemon listens on.
    public var socketPath: String { listener.path }

    /// Serves until SIGTERM or SIGINT; then stops accepting, flushes what
    /// clients are owed, removes the socket. Returns the exit status.
    public func run() -> Int32 {
        var watchdogMicroseconds: UInt64 = 0
        let watchdog = sd_watchdog_enabled(0, &watchdogMicroseconds) > 0
        sd_notify(0, "READY=1\nSTATUS=watching \(roots.count) root(s), \(catalog.served.count) tables")
        var descriptors = [Int32](repeating: 0, count: 64)
        var events = [UInt32](repeating: 0, count: 64)
        while !stopping {
            let timeout = watchdog ? Int32(watchdogMicroseconds / 2000) : -1
            let count = lproj_epoll_wait(poller, &descriptors, &events, 64, timeout)
            if watchdog { sd_notify(0, "WATCHDOG=1") }
            if count < 0 {
                if errno == EINTR { continue }
                log.error("epoll_wait: \(String(cString: strerror(errno)))")
                break
            }
            for (descriptor, event) in zip(descriptors.prefix(Int(count)), events) {
                if descriptor == listener.descriptor {
                    acceptClients()
                } else if descriptor == tree?.descriptor {
                    // One batch; more waiting keeps the descriptor readable for the next turn.
                    if let batch = tree?.readBatch(waiting: false) { handle(batch) }
                } else if descriptor == signals {
                    while case let signal = lproj_signalfd_read(signals), signal != 0 {
                        log.info("signal \(signal): stopping")
                        stopping = true
                    }
                } else if let client = clients[descriptor] {
                    service(client, events: event)
                } else if refused.contains(descriptor) {
                    drainRefused(descriptor)
                }
            }
            flushDirty()
        }
        shutDown()
        return 0
    }

    // MARK: - Publishing

    /// Gives `event` the next clock, records it in the history and queues it
    /// for every subscription it matches.
    func publish<E: Event>(scope: Scope, _ make: (Clock) -> E) {
        sequence += 1
        counters["events", default: 0] += 1
        let event = make(clock)
        let body: [UInt8]
        do {
            body = try Wire.eventBody(event)
        } catch {
            log.error("cannot encode \(E.name): \(error)")
            return
        }
        history.append(.init(sequence: sequence, body: body, scope: scope))
        for client in clients.values {
            for (name, subscription) in client.subscriptions where subscription.matches(scope, app: client.app) {
                if !client.enqueueEvent(body, for: name) { counters["events-dropped", default: 0] += 1 }
            }
            dirty.insert(client.descriptor)
        }
    }

    /// The clock as of the last published event.
    var clock: Clock { Clock(instance: instance, sequence: sequence) }

    /// Publishes what the catalog says changed.
    func publish(_ changes: [Catalog.Change]) {
        for change in changes {
            switch change {
            case .bundleAdded(let bundle):
                publish(scope: .bundle(bundle)) { BundleAdded(clock: $0, bundle: bundle) }
            case .bundleRemoved(let bundle):
                publish(scope: .bundle(bundle)) { BundleRemoved(clock: $0, bundle: bundle) }
            case .localizationAdded(let bundle, let localization):
                publish(scope: .localization(bundle: bundle, localization: localization)) {
                    LocalizationAdded(clock: $0, bundle: bundle, language: localization)
                }
            case .localizationRemoved(let bundle, let localization):
                publish(scope: .localization(bundle: bundle, localization: localization)) {
                    LocalizationRemoved(clock: $0, bundle: bundle, language: localization)
                }
            case .tableChanged(let address, let diff, let deleted):
                log.debug("\(address.bundle)/\(address.localization)/\(address.table): +\(diff.added.count) ~\(diff.changed.count) -\(diff.removed.count)")
                publish(scope: .table(bundle: address.bundle, localization: address.localization, table: address.table)) {
                    TableChanged(clock: $0, bundle: address.bundle, language: address.localization, table: address.table,
                                 diff: diff, deleted: deleted)
                }
            case .tableInvalid(let file, let bundle, let localization, let table, let diagnostics, let kept):
                log.info("\(file): \(diagnostics.filter { $0.severity == .error }.count) error(s); \(kept ? "last good version kept" : "not served")")
                publish(scope: .table(bundle: bundle, localization: localization, table: table)) {
                    TableInvalid(clock: $0, file: file, bundle: bundle, language: localization, table: table,
                                 diagnostics: diagnostics, kept: kept ? .lastGood : .none)
                }
            }
        }
    }

    // MARK: - The loop's inputs

    private func handle(_ batch: WatchBatch) {
        if !batch.events.isEmpty {
            let received = ContinuousClock.now
            defer { log.debug("batch of \(batch.events.count) file event(s) handled in \(ContinuousClock.now - received)") }
            var paths: [String] = []
            for event in batch.events {
                switch event {
                case .written(let path), .removed(let path): paths.append(path)
                case .directoryGone(let path): paths += catalog.files(under: path)
                case .directoryAppeared: break   // its files follow as `written`
                case .overflow: break            // `batch.overflowed`: below
                }
            }
            if batch.overflowed {
                counters["overflows", default: 0] += 1
                log.warning("inotify queue overflowed: rescanning every root")
                paths = Set(catalog.files.keys).union(catalog.crawl(roots: roots).map(ExactString.init)).map(\.string)
            }
            publish(catalog.refresh(paths))
            if batch.overflowed {
                counters["resyncs", default: 0] += 1
                publish(scope: .everyone) { Resync(reason: .overflow, clock: $0) }
            }
        }
        // After an overflow a sync's marker may have been dropped; the
        // rescan answers every sync asked before it.
        let answered = batch.overflowed ? Array(pendingSyncs.keys) : batch.signals
        for name in answered {
            guard let sync = pendingSyncs.removeValue(forKey: name), let client = clients[sync.descriptor],
                  client.connected == sync.connected else { continue }
            reply(Sync.Reply(clock: clock), to: sync.id, on: client)
        }
    }

    private func acceptClients() {
        while true {
            let descriptor = lproj_accept(listener.descriptor)
            if descriptor < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK { log.warning("accept: \(String(cString: strerror(errno)))") }
                return
            }
            guard let peer = PeerCredentials(socket: descriptor) else {
                close(descriptor)
                continue
            }
            let refusal: ProtocolError?
            if !access.mayConnect(peer) {
                refusal = ProtocolError(.forbidden, "user \(peer.uid) may not connect (see [Access] AllowUsers/AllowGroups)")
            } else if clients.count >= configuration.maximumClients {
                refusal = ProtocolError(.busy, "the daemon has its maximum of \(configuration.maximumClients) clients")
            } else {
                refusal = nil
            }
            if let refusal {
                log.info("refused a connection from pid \(peer.pid) (uid \(peer.uid)): \(refusal.message)")
                refuse(descriptor, with: refusal)
                continue
            }
            let client = ClientConnection(descriptor: descriptor, peer: peer, maximumLineLength: configuration.maximumRequestBytes,
                                          queueLimit: configuration.clientQueueBytes)
            clients[descriptor] = client
            counters["connections", default: 0] += 1
            add(descriptor, events: client.interest)
            log.debug("client connected: pid \(peer.pid), uid \(peer.uid)")
        }
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
    }

    /// Reads what a client sent and answers it; writes what it is owed.
    private func service(_ client: ClientConnection, events: UInt32) {
        if events & interestOut != 0 { dirty.insert(client.descriptor) }
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
                counters["requests", default: 0] += 1
                handlers.handle(line, from: client, daemon: self)
            case .overlong:
                counters["requests-refused", default: 0] += 1
                client.enqueue(Wire.failure(ProtocolError(.lineTooLong,
                    "a request line is longer than the \(ByteCountText.describe(configuration.maximumRequestBytes)) limit; skipped to its end"),
                    to: nil))
            }
        }
        dirty.insert(client.descriptor)
    }

    /// Writes every queued output; pauses reading from clients whose queue is
    /// full and resumes them when it drains; settles lagging subscriptions.
    private func flushDirty() {
        let pending = dirty
        dirty.removeAll(keepingCapacity: true)
        for descriptor in pending {
            guard let client = clients[descriptor] else { continue }
            guard client.flush() else {
                disconnect(client, reason: "write failed")
                continue
            }
            for subscription in client.takeLagging() {
                counters["resyncs", default: 0] += 1
                log.info("subscription \"\(subscription.name)\" of pid \(client.peer.pid) fell behind: told to resync")
                if let body = try? Wire.eventBody(Resync(reason: .slowConsumer, clock: clock)) {
                    client.enqueueEvent(body, for: subscription.name)
                }
                _ = client.flush()
            }
            // Wait for room to write; stop reading while the queue is full.
            var events = interestPeerClosed
            if !client.isFull { events |= interestIn }
            if client.queuedBytes > 0 { events |= interestOut }
            if events != client.interest {
                modify(descriptor, events: events)
                client.interest = events
            }
        }
    }

    func reply<Reply: Encodable>(_ reply: Reply, to id: RequestID, on client: ClientConnection) {
        do {
            client.enqueue(try Wire.reply(reply, to: id))
        } catch {
            client.enqueue(Wire.failure(ProtocolError(.internal, "cannot encode the reply: \(error)"), to: id))
        }
        dirty.insert(client.descriptor)
    }

    func fail(_ error: ProtocolError, to id: RequestID?, on client: ClientConnection) {
        counters["requests-failed", default: 0] += 1
        client.enqueue(Wire.failure(error, to: id))
        dirty.insert(client.descriptor)
    }

    /// Answers once every change made before now has been processed: a
    /// marker dropped in the watched tree comes back after every earlier event.
    func sync(_ id: RequestID, on client: ClientConnection) {
        guard let tree else { return reply(Sync.Reply(clock: clock), to: id, on: client) }
        syncCount += 1
        let name = "sync-\(syncCount)"
        pendingSyncs[name] = (client.descriptor, client.connected, id)
        WatchedTree.signal(name, in: tree.controlDirectory)
    }

    private func disconnect(_ client: ClientConnection, reason: String?) {
        lproj_epoll_remove(poller, client.descriptor)
        close(client.descriptor)
        clients[client.descriptor] = nil
        dirty.remove(client.descriptor)
        log.debug("client pid \(client.peer.pid) disconnected\(reason.map { ": \($0)" } ?? "")")
    }

    private func shutDown() {
        sd_notify(0, "STOPPING=1")
        lproj_epoll_remove(poller, listener.descriptor)
        listener.close()
        tree?.close()
        tree = nil
        // Flush what clients are owed, for at most a second; a stuck client does not hold the exit.
        let deadline = ContinuousClock.now + .seconds(1)
        for client in clients.values {
            while client.queuedBytes > 0, ContinuousClock.now < deadline {
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
