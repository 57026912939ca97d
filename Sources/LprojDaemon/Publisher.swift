import CLinux
import LprojProtocol
import LprojTables

/// Who hears what: the clock, the history, the sessions with their
/// subscriptions, the fan-out and the slow-subscriber policy. Part of the
/// daemon's core: no descriptor, no thread, no clock but its own sequence,
/// so it is tested in one process with "these changes in, these lines out".
///
/// - Every event gets the next sequence number and is encoded once; each
///   subscription it matches gets that body behind its own `{"sub":…,`.
/// - A session whose queue is full drops events for its subscriptions,
///   which are marked lagging; once the queue has drained each is told to
///   `resync` (`settleLagging`). Others never wait for it.
/// - The history keeps what `since` can replay, bounded in events and bytes.
final class Publisher {
    let instance: String
    private(set) var sequence: UInt64 = 0
    private(set) var history: History
    /// The open sessions in the order they opened, so by rising `id`: the
    /// fan-out walks them, a few ahead asked into the cache.
    private(set) var sessions: [Session] = []
    /// Sessions given output since the last `takeTouched`: the shell writes to them.
    private var touched = Set<Int>()
    private var lastSessionID = 0
    /// The bound of sessions opened from now on.
    var queueLimit: Int
    /// `events`, `events-dropped`, `resyncs`, for `status`.
    private(set) var counters: [String: UInt64] = [:]
    /// Which bundles each peer could read: a session hears only of those.
    let readAccess = ReadAccess()

    init(instance: String, historyLength: Int, historyBytes: Int, queueLimit: Int, userQueueLimit: Int = .max) {
        self.instance = instance
        history = History(capacity: historyLength, maximumBytes: historyBytes)
        self.queueLimit = queueLimit
        self.userQueueLimit = userQueueLimit
    }

    /// The bound of what one user's connections hold together (`[Limits] UserQueueBytes=`; a reload may change it).
    var userQueueLimit: Int {
        didSet { for share in shares.values { share.limit = userQueueLimit } }
    }

    /// What each user with connections holds (root and the daemon's own user have none).
    private(set) var shares: [UInt32: UserShare] = [:]

    /// Bounds the history anew (a reload); the oldest go at once if it is over.
    func setHistoryBounds(capacity: Int, maximumBytes: Int) {
        history.setBounds(capacity: capacity, maximumBytes: maximumBytes)
    }

    /// The clock as of the last published event.
    var clock: Clock { Clock(instance: instance, sequence: sequence) }

    /// A new connection's session.
    func openSession(peer: PeerCredentials = PeerCredentials(pid: 0, uid: 0, gid: 0, groups: []), privileged: Bool = true,
                     at now: ContinuousClock.Instant = .now) -> Session {
        lastSessionID += 1
        var share: UserShare?
        if !privileged {
            share = shares[peer.uid] ?? UserShare(user: peer.uid, limit: userQueueLimit)
            shares[peer.uid] = share
            share!.sessions += 1
        }
        let session = Session(id: lastSessionID, queueLimit: queueLimit, peer: peer, readsEveryUser: privileged, share: share, connected: now)
        sessions.append(session)
        return session
    }

    /// The open session named `id`, if any.
    func session(id: Int) -> Session? {
        index(of: id).map { sessions[$0] }
    }

    func closeSession(_ session: Session) {
        if let index = index(of: session.id) { sessions.remove(at: index) }
        session.release()
        if let share = session.share {
            share.sessions -= 1
            if share.sessions == 0 { shares[share.user] = nil }
        }
        touched.remove(session.id)
    }

    /// Queues a reply (never dropped) for `session`.
    func send(_ line: [UInt8], to session: Session) {
        session.enqueue(line)
        touched.insert(session.id)
    }

    /// Queues a reply whose first byte carries the images of `images`, or
    /// the line `withheld` makes from the reason they could not go.
    func send(_ line: [UInt8], to session: Session, attaching images: [AttachedImage], withheld: @escaping (_ reason: String) -> [UInt8]) {
        session.enqueue(line, attaching: images, withheld: withheld)
        touched.insert(session.id)
    }

    /// The sessions given output since the last call.
    func takeTouched() -> Set<Int> {
        defer { touched.removeAll(keepingCapacity: true) }
        return touched
    }

    /// Gives the event `make` returns the next clock, records it in the
    /// history and queues it for every subscription it matches.
    func publish<E: Event>(scope: Scope, _ make: (Clock) -> E) {
        publish(scope: scope, make, image: nil)
    }

    /// As `publish(scope:_:)`; a subscription that asked for images gets
    /// `image.table` attached to the event as `image.mark` marks it (the
    /// history keeps the event without: a replay has no image of its time).
    private func publish<E: Event>(scope: Scope, _ make: (Clock) -> E, image: (table: AttachedImage, mark: (E) -> E)?) {
        sequence += 1
        counters["events", default: 0] += 1
        let event = make(clock)
        // Every event type encodes (its fields are strings, numbers and entries).
        guard let body = try? Wire.eventBody(event) else { return }
        history.append(.init(sequence: sequence, body: body, scope: scope))
        deliver(event, body, about: scope, image: image)
    }

    /// Sends the event `make` returns, with the current clock, to every
    /// subscription it matches — not a change of its own: no sequence number,
    /// nothing kept to replay (a `generation` after the events that made it;
    /// a subscriber that missed it is told the current one when it comes back).
    func announce<E: Event>(scope: Scope, _ make: (Clock) -> E) {
        let event = make(clock)
        guard let body = try? Wire.eventBody(event) else { return }
        deliver(event, body, about: scope, image: nil)
    }

    private func deliver<E: Event>(_ event: E, _ body: [UInt8], about scope: Scope, image: (table: AttachedImage, mark: (E) -> E)?) {
        // Made for the first subscription that asks for images, then shared.
        var markedBody: [UInt8]?
        // Made for the first session that does not read everything (none, when every subscriber is root's or the daemon's).
        var gate: ReadAccess.EventGate??
        // Each prefix's line made once: subscriptions alike share one, sent from one buffer to each.
        var lines = AddressedLines(body: body)
        for (position, session) in sessions.enumerated() {
            // A thousand sessions are a thousand cold objects: each is asked for a few sessions ahead (the two lines
            // `Session` keeps what this loop reads in).
            if position + Self.lookahead < sessions.count {
                let ahead = Unmanaged.passUnretained(sessions[position + Self.lookahead]).toOpaque()
                lproj_prefetch_for_write(ahead)
                lproj_prefetch_for_write(ahead + 64)
            }
            if !session.readsEveryUser {
                if gate == nil { gate = .some(readAccess.gate(for: scope)) }
                if let made = gate!, !made.allows(session.peer) { continue }
            }
            let (matched, dropped) = session.enqueueEvent(about: scope, &lines) {
                guard let image else { return nil }
                if markedBody == nil { markedBody = try? Wire.eventBody(image.mark(event)) }
                return markedBody.map { ($0, [image.table]) }
            }
            if dropped > 0 { counters["events-dropped", default: 0] += UInt64(dropped) }
            // A session whose event went straight out has nothing left for the shell.
            if matched, session.needsFlush { touched.insert(session.id) }
        }
    }

    /// Where the session named `id` is in `sessions` (sorted by `id`: a binary search).
    private func index(of id: Int) -> Int? {
        var low = 0, high = sessions.count
        while low < high {
            let middle = (low + high) / 2
            if sessions[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low < sessions.count && sessions[low].id == id ? low : nil
    }

    /// How many sessions ahead the fan-out asks for a session's object.
    private static let lookahead = 4

    /// Whether any subscription would get an event about `scope`.
    func hasSubscribers(for scope: Scope) -> Bool {
        sessions.contains { session in session.subscriptions.values.contains { $0.matches(scope, app: session.app, missReader: session.missReader) } }
    }

    /// Publishes what `ServedTables` says changed, in its order; a changed
    /// table's image (for subscriptions that asked) is `served`'s table at its address.
    func publish(_ changes: [ServedTables.Change], served: (TableAddress) -> Table? = { _ in nil }) {
        readAccess.reading { publishEach(changes, served: served) }
    }

    private func publishEach(_ changes: [ServedTables.Change], served: (TableAddress) -> Table?) {
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
                let image = deleted ? nil : served(address).map { table in
                    (table: AttachedImage(address: address, table: table), mark: { (event: TableChanged) -> TableChanged in
                        var marked = event
                        marked.image = true
                        return marked
                    })
                }
                publish(scope: .table(bundle: address.bundle, localization: address.localization, table: address.table), {
                    TableChanged(clock: $0, bundle: address.bundle, language: address.localization, table: address.table,
                                 diff: diff, deleted: deleted)
                }, image: image)
            case .tableInvalid(let file, let bundle, let localization, let table, let diagnostics, let kept):
                publish(scope: .table(bundle: bundle, localization: localization, table: table)) {
                    TableInvalid(clock: $0, file: file, bundle: bundle, language: localization, table: table,
                                 diagnostics: diagnostics, kept: kept ? .lastGood : .none)
                }
            }
        }
    }

    /// Tells every subscription to resync (`reason`), as one event.
    func resyncEveryone(_ reason: Resync.Reason) {
        counters["resyncs", default: 0] += 1
        publish(scope: .everyone) { Resync(reason: reason, clock: $0) }
    }

    /// The events a subscription asking `since` missed, oldest first; nil
    /// when they cannot be replayed (another instance's clock, or older than
    /// the history): the subscriber must start from a snapshot.
    func missed(since: Clock?) -> [History.Published]? {
        guard let since, since.instance == instance else { return nil }
        return history.events(after: since.sequence, current: sequence)
    }

    /// Queues the replayed `events` that `subscription` of `session` matches.
    func replay(_ events: [History.Published], to session: Session, subscription: Subscription) {
        readAccess.reading {
            for event in events where subscription.matches(event.scope, app: session.app, missReader: session.missReader)
                && readAccess.allows(session, event.scope) {
                session.enqueueEvent(event.body, for: subscription.name)
            }
        }
        touched.insert(session.id)
    }

    /// Once `session`'s queue has drained, tells each subscription that
    /// dropped events to resync. Returns those subscriptions.
    @discardableResult
    func settleLagging(_ session: Session) -> [Subscription] {
        let owed = session.takeLagging()
        guard !owed.isEmpty, let body = try? Wire.eventBody(Resync(reason: .slowConsumer, clock: clock)) else { return owed }
        for subscription in owed {
            counters["resyncs", default: 0] += 1
            session.enqueueEvent(body, for: subscription.name)
        }
        touched.insert(session.id)
        return owed
    }
}
