#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LprojFormats
import LprojPaths
import LprojProtocol
import LprojTables
import LprojWatch

/// Every decision lprojd makes, with no descriptor, thread or socket of its
/// own: what a watch batch means, which reads to keep, what waits and
/// until when, what is published to whom, which checks run, when a `sync`
/// is answered, what a request gets, who may connect, what a kernel limit
/// reached means. The shell (`Daemon`) owns the descriptors and forwards:
/// its `TreeFeed` turns the watched tree into batches and read results,
/// and writes what the sessions queued. Tests drive a core in one process.
///
/// Inputs: `take(_:at:)` (a batch; the paths to read come back),
/// `apply(_:queued:holdingEmpty:at:)` (what was read, and what the watcher
/// queued meanwhile), `rescanned(_:)`, `due(at:)`, `pollIsDue(at:)`,
/// `treeChanged(_:)`, `markersArrived(_:)`, `handle(_:from:)` (a request
/// line), `admit(_:)`, `close(_:)`, `reload(_:)`. Outputs: the lines queued
/// on each `Session` (`publisher.takeTouched()`), `takeSyncRequests()` (the
/// markers the shell drops), `nextDeadline` (the one timer), and the
/// counters, warnings and errors `status` reports.
public final class DaemonCore {
    /// The program and version, as `hello` and `status` report them.
    public static let server = "lprojd 0.2.0"

    var configuration: Configuration
    let log: Log
    /// The roots, as configured and tidied (links on the way kept), in order.
    var roots: [String]
    let publisher: Publisher
    let tables: ServedTables
    var selections: Selections
    var access: AccessPolicy
    var admission: Admission
    var pending: PendingChanges
    /// The bundles' cross-language checks, and the tables whose checks wait for the end of the turn.
    let checks = Checks()
    /// The keys running apps looked up and did not find.
    let misses: MissBook
    private var pendingChecks: [ExactName: [TableAddress: Checks.ChangedKeys]] = [:]
    /// What went wrong last and still holds (a failed reload), for `status` and systemd.
    var lastError: String?
    /// Counters for `status` (the publisher keeps its own).
    var counters: [String: UInt64] = [:]
    /// What kernel limits keep from working as they should, and the polls they call for (`DaemonCore+Limits`).
    var kernelLimits = KernelLimits()
    /// The roots polled instead of watched, with why.
    var polledRoots: [ExactName: String] = [:]
    /// What the watched tree says of itself, for `status` (the shell's, asked when a status is made).
    var treeStatus: () -> TreeStatus = { TreeStatus() }
    let started: ContinuousClock.Instant
    /// The `sync` requests waiting on the tree.
    private var syncs = SyncWaits()
    /// Each bundle's generation (`DaemonCore+Generations`).
    let generations: Generations
    /// The `wait` requests not answered yet.
    var waits: [PendingWait] = []
    /// The bundles held (`hold`), with what was read meanwhile.
    var holds: [ExactName: BundleHold] = [:]
    /// Where the metrics are served over HTTP, when they are (`MetricsListen=`).
    var metricsURL: String?
    /// From the watcher reading a save's event to its change being published (`lprojd_publish_seconds`).
    var publishLatency = LatencyHistogram()
    /// The tables changed since the shell last took them (`takeChangedTables`), recorded while this is true.
    var recordsChangedTables = false
    private var changedTables: [TableAddress] = []
    /// When the watcher read the oldest event whose change is not published yet.
    private var unpublishedSince: ContinuousClock.Instant?
    private var handlers = Handlers()
    /// Subscriptions alike share one filter (`Subscription.SharedFilters`).
    let sharedFilters = Subscription.SharedFilters()

    /// A `sync` waiting for the tree: which session, and the request's id.
    public struct PendingSync: Sendable {
        var session: Int
        var id: RequestID
    }

    /// What the watched tree says of itself (the shell's view, for `status` and the polling policy).
    public struct TreeStatus {
        var watches = 0
        var unwatched = 0
        var descriptorLimitReached = false
        var isPolling = false
        var markersUnsent = false
        var polledRoots: [(root: String, lastScan: Date?)] = []
    }

    /// A core for `configuration` with the roots `roots` (canonical, as
    /// `canonicalRoots` makes them) and the selections kept in `selections`.
    init(configuration: Configuration, roots: [String], selections: Selections, log: Log, at now: ContinuousClock.Instant = .now) {
        self.configuration = configuration
        self.roots = roots
        self.selections = selections
        self.log = log
        started = now
        publisher = Publisher(instance: String(UInt64.random(in: 1...UInt64.max), radix: 16), historyLength: configuration.limits.historyLength,
                              historyBytes: configuration.limits.historyBytes, queueLimit: configuration.limits.clientQueueBytes,
                              userQueueLimit: configuration.limits.userQueueBytes)
        pending = PendingChanges(rules: .init(grace: configuration.watch.removalGrace, quiet: configuration.watch.quietPeriod))
        tables = ServedTables(exclusions: Exclusions(patterns: configuration.watch.excludes, roots: roots),
                          links: Self.linkPolicy(roots: roots, configuration: configuration))
        access = AccessPolicy(configuration, ownUser: getuid())
        admission = Admission(configuration, ownUser: getuid())
        misses = MissBook(capacity: configuration.limits.maximumMisses)
        generations = Generations(stateDirectory: selections.stateDirectory)
        generations.keepCount = configuration.limits.rollbackGenerations
        generations.keepBytes = configuration.limits.rollbackBytes
        registerHandlers(into: &handlers)
    }

    /// Which links inside the roots are followed: into the roots and `FollowLinksTo=`.
    static func linkPolicy(roots: [String], configuration: Configuration) -> LinkPolicy {
        LinkPolicy(under: roots + configuration.watch.followLinksTo.map(PathText.tidy))
    }

    /// The clock as of the last published event.
    var clock: Clock { publisher.clock }

    /// When the core next needs the time: a change that waits, or a poll.
    var nextDeadline: ContinuousClock.Instant? {
        [pending.nextDeadline, kernelLimits.nextPoll, nextWaitDeadline, nextHoldDeadline].compactMap { $0 }.min()
    }

    // MARK: - Connections

    /// A session for a connection of `peer`, or why it is refused (the peer may not connect, or a limit is reached).
    func admit(_ peer: PeerCredentials, at now: ContinuousClock.Instant = .now) -> Result<Session, ProtocolError> {
        let refusal = access.mayConnect(peer)
            ? admission.refusal(for: peer.uid)
            : ProtocolError(.forbidden, "user \(peer.uid) may not connect (see [Access] AllowUsers/AllowGroups)")
        if let refusal {
            counters["connections-refused", default: 0] += 1
            log.info("refused a connection from pid \(peer.pid) (uid \(peer.uid)): \(refusal.message)")
            return .failure(refusal)
        }
        admission.admit(peer.uid)
        counters["connections", default: 0] += 1
        return .success(publisher.openSession(peer: peer, privileged: admission.isPrivileged(peer.uid), at: now))
    }

    /// Forgets a session whose connection went.
    func close(_ session: Session, at now: ContinuousClock.Instant = .now) {
        admission.release(session.peer.uid)
        publisher.closeSession(session)
        // What it held is published; a wait on its generations now counts without it.
        if holds.values.contains(where: { $0.session == session.id }) { releaseHolds(of: session.id, at: now) }
        answerWaits(at: now)
    }

    /// Answers one request line of `session` (every failure an error reply).
    func handle(_ line: [UInt8], from session: Session) {
        counters["requests", default: 0] += 1
        handlers.handle(line, from: session, core: self)
    }

    /// Queues `reply` to the request `id` of `session`, or a `limit` error
    /// in its place when the reply is larger than the connection's queue
    /// (`ClientQueueBytes=`): a connection that asks and never reads then
    /// holds at most its queue and one reply. Returns whether the reply went.
    @discardableResult
    func reply<Reply: Encodable>(_ reply: Reply, to id: RequestID, on session: Session) -> Bool {
        let line: [UInt8]
        do {
            line = try Wire.reply(reply, to: id)
        } catch {
            publisher.send(Wire.failure(ProtocolError(.internal, "cannot encode the reply: \(error)"), to: id), to: session)
            return false
        }
        guard line.count <= session.queueLimit else {
            counters["replies-refused", default: 0] += 1
            fail(ProtocolError(.limit, "the reply would take \(ByteCountText.describe(line.count)), more than this connection's queue of "
                               + "\(ByteCountText.describe(session.queueLimit)) ([Limits] ClientQueueBytes): ask for less (a bundle, languages, tables)"),
                 to: id, on: session)
            return false
        }
        publisher.send(line, to: session)
        return true
    }

    /// Queues an error reply.
    func fail(_ error: ProtocolError, to id: RequestID?, on session: Session) {
        counters["requests-failed", default: 0] += 1
        publisher.send(Wire.failure(error, to: id), to: session)
    }

    // MARK: - The watched tree's changes

    /// What to read for a batch: the paths, or (`nil`) everything — the
    /// kernel's queue overflowed, so events were lost: every root is to be
    /// crawled and every known file read (`rescanned` takes the result).
    func take(_ batch: WatchBatch, at now: ContinuousClock.Instant) -> [String]? {
        if unpublishedSince == nil { unpublishedSince = now }
        if batch.overflowed {
            counters["overflows", default: 0] += 1
            let limit = Self.firstLine(of: "/proc/sys/fs/inotify/max_queued_events") ?? "?"
            let overflows = counters["overflows"] ?? 1
            log.warning("inotify queue overflowed (fs.inotify.max_queued_events = \(limit); raise it if this recurs): rescanning every root")
            // Said in status from then on: nothing is lost (the rescan publishes the differences), but the limit is worth raising.
            kernelLimits.warnings["queue"] = "the inotify queue overflowed \(overflows) time\(overflows == 1 ? "" : "s") (fs.inotify.max_queued_events = "
                + "\(limit)): each time every root was rescanned and subscribers told to resync"
            // Everything is read now: nothing waits any more.
            pending.removeAll()
            return nil
        }
        guard !batch.events.isEmpty else { return [] }
        return pending.take(Self.readingSwappedLinksNow(batch.events, knownFiles: tables.files(under:)), at: now, isKnown: tables.knows,
                            knownFiles: tables.files(under:))
    }

    /// The paths an overflow rescan reads: every file known and every one `crawled` found.
    func rescanPaths(crawled: [String]) -> [String] {
        Set(tables.files.keys).union(crawled.map(ExactName.init)).map(\.string)
    }

    /// Takes in an overflow rescan's reads: the differences are published and every subscriber told to resync.
    func rescanned(_ loaded: [ServedTables.Loaded]) {
        publish(tables.apply(loaded))
        publisher.resyncEveryone(.overflow)
    }

    /// Takes in what was read, except reads a newer change overtook: a
    /// file that `queued` (the events the watcher queued since the reads)
    /// names, or whose directory it names, waits as a listed file does —
    /// read at its `written`, or once quiet — so a save is published only
    /// as it was completed, never half-written, and a read whose newer
    /// change turns out to change nothing for it (a link's move that the
    /// batch already followed) is still made. A file read empty is held
    /// the same way (unless `holdingEmpty` is false: the hold is over), as
    /// the empty file may be a save between its truncate and its write
    /// whose event is not queued yet. A file that could not be opened for
    /// want of descriptors keeps its table and is read again at the next
    /// poll.
    func apply(_ loaded: [ServedTables.Loaded], queued: Set<ExactName>, holdingEmpty: Bool = true, at now: ContinuousClock.Instant) {
        var loaded = loaded
        loaded.removeAll { item in
            guard case .failure(let error) = item.outcome, error.isOutOfDescriptors else { return false }
            kernelLimits.unreadable.insert(item.path)
            return true
        }
        if !queued.isEmpty {
            let before = loaded.count
            loaded.removeAll { item in
                guard Self.isOvertaken(item.path.string, by: queued) else { return false }
                pending.hold(item.path.string, at: now)
                return true
            }
            if loaded.count < before {
                counters["reads-overtaken", default: 0] += UInt64(before - loaded.count)
                log.debug("\(before - loaded.count) read(s) overtaken by a newer change: read again at its event or once quiet")
            }
        }
        if holdingEmpty {
            loaded.removeAll { item in
                guard case .success(let file) = item.outcome, file.wasEmpty else { return false }
                pending.hold(item.path.string, at: now)
                return true
            }
        }
        publish(tables.apply(keepingHeld(loaded)))
    }

    /// The paths whose wait is over.
    func due(at now: ContinuousClock.Instant) -> [String] {
        pending.takeDue(at: now)
    }

    // MARK: - Syncs

    /// Asks for a marker on behalf of the request `id` of `session` (the shell drops it: `takeSyncRequests`).
    func requestSync(_ id: RequestID, on session: Session) {
        syncs.ask(PendingSync(session: session.id, id: id))
    }

    /// The markers to drop for the syncs asked for since the last call.
    func takeSyncRequests() -> [PendingSync] {
        syncs.takeAsked()
    }

    /// The markers of these syncs came back: each is answered once the changes that wait now are settled.
    func markersArrived(_ arrived: [PendingSync]) {
        syncs.arrived(arrived, ticket: pending.lastTicket)
    }

    /// Answers what can be answered now, and runs the checks of what
    /// changed: the end of a turn, for a driver that writes nothing between.
    func endTurn(at now: ContinuousClock.Instant = .now) {
        answerSyncs()
        if !holds.isEmpty { releaseHolds(at: now) }
        answerWaits(at: now)
        keepGenerations()
        if hasDueChecks { runDueChecks() }
    }

    /// Whether checks wait for the end of the turn (the shell writes the events they follow first).
    var hasDueChecks: Bool { !pendingChecks.isEmpty }

    /// Runs the checks that wait.
    func runDueChecks() { runChecks() }

    /// Answers the syncs whose marker came back once the changes that waited at that moment are settled.
    /// (The checks of what was published run first: a sync answered means its changes' diagnostics went out too.)
    func answerSyncs() {
        if let ticket = syncs.oldestTicket, pending.isSettled(through: ticket), !pendingChecks.isEmpty { runChecks() }
        for sync in syncs.takeSettled({ pending.isSettled(through: $0) }) {
            guard let session = publisher.session(id: sync.session) else { continue }
            reply(Sync.Reply(clock: clock), to: sync.id, on: session)
        }
    }

    // MARK: - Publishing

    /// Logs and publishes what `ServedTables` says changed, and notes which checks to run.
    func publish(_ changes: [ServedTables.Change]) {
        for change in changes {
            switch change {
            case .tableChanged(let address, let diff, let deleted):
                log.debug("\(address.bundle)/\(address.localization)/\(address.table): +\(diff.added.count) ~\(diff.changed.count) -\(diff.removed.count)")
                // The keys the diff names (a table that came or went: whole); two changes before the checks run add up.
                let keys: Checks.ChangedKeys = deleted ? nil
                    : Set(diff.keys.map(ExactName.init))
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
        publisher.publish(changes) { [tables] in tables.served[$0] }
        if recordsChangedTables {
            for case .tableChanged(let address, _, _) in changes { changedTables.append(address) }
        }
        publishGenerations(after: changes)
        if !changes.isEmpty, let since = unpublishedSince {
            publishLatency.record(.now - since)
            unpublishedSince = nil
        }
        for case .tableChanged(let address, let diff, false) in changes { resolveMisses(address, added: Set(diff.added.keys)) }
    }

    /// The tables changed since the last call (whose published images are stale).
    func takeChangedTables() -> [TableAddress] {
        defer { changedTables.removeAll() }
        return changedTables
    }

    /// Checks the tables that changed again (`Checks`) and publishes each
    /// bundle's set of diagnostics that changed.
    private func runChecks() {
        let started = ContinuousClock.now
        let due = pendingChecks
        pendingChecks.removeAll()
        for (bundle, changed) in due.sorted(by: { $0.key < $1.key }) {
            let listened = publisher.hasSubscribers(for: .checks(bundle: bundle.string))
            guard let diagnostics = checks.update(bundle.string, changes: changed, listened: listened, in: tables) else { continue }
            publisher.publish(scope: .checks(bundle: bundle.string)) { Diagnostics(clock: $0, bundle: bundle.string, diagnostics: diagnostics) }
        }
        log.debug("checks of \(due.count) bundle(s) in \(ContinuousClock.now - started)")
    }

    /// What `STATUS=` shows: bundles, tables, clients, and the last error.
    var statusLine: String {
        "\(tables.bundleCount) bundles, \(tables.served.count) tables, \(publisher.sessions.count) clients"
            + (lastError.map { "; \($0)" } ?? "")
    }

    // MARK: - Rules

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
    static func isOvertaken(_ path: String, by queued: Set<ExactName>) -> Bool {
        var current = Substring(path)
        for _ in 0..<3 {
            if queued.contains(ExactName(String(current))) { return true }
            guard let slash = current.lastIndex(of: "/"), slash != current.startIndex else { return false }
            current = current[..<slash]
        }
        return false
    }

    /// The system's limit of open files, as `fs.file-max` said when it was first asked (at start).
    static let systemFileLimit = firstLine(of: "/proc/sys/fs/file-max") ?? "?"

    /// The first line of a small file (a sysctl under /proc).
    static func firstLine(of path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.split(separator: "\n").first.map(String.init)
    }
}
