import LprojPaths
import LprojProtocol
import LprojTables

/// Generations as the core serves them: each published batch gives the
/// bundles it changed their next generation (a `generation` event after the
/// batch's own), connections say which they show (`ack`), and `wait`
/// requests are answered once every acknowledging follower shows what they
/// wait for, or at their deadline.
extension DaemonCore {
    /// The waits one connection may have unanswered.
    static let maximumWaitsPerConnection = 16

    /// A `wait` not answered yet.
    struct PendingWait {
        var session: Int
        var id: RequestID
        /// The generation waited for, per bundle (by bytes: twins in NFC and NFD are two).
        var targets: [(bundle: ExactName, generation: UInt64)]
        var deadline: ContinuousClock.Instant
    }

    /// Numbers the bundles of the first load (before any client connects).
    func firstLoadFinished() {
        generations.start(served: tables.served)
    }

    /// Publishes the generation of each bundle `changes` moved, after their events.
    func publishGenerations(after changes: [ServedTables.Change]) {
        var changed: [TableAddress: Table?] = [:]
        for case .tableChanged(let address, _, let deleted) in changes {
            changed[address] = deleted ? .some(nil) : .some(tables.served[address])
        }
        guard !changed.isEmpty else { return }
        for (bundle, generation) in generations.advance(changed: changed, replaced: tables.replaced) {
            publisher.announce(scope: .generation(bundle: bundle)) {
                GenerationPublished(clock: $0, bundle: bundle, generation: generation.number, hash: generation.hash)
            }
        }
    }

    /// Writes the generations when they changed; a failure is logged once per kind, and the numbers go on in memory.
    func keepGenerations() {
        guard generations.isDirty else { return }
        do {
            try generations.save()
        } catch {
            log.error(error.description)
        }
    }

    /// After a subscription with `acknowledges` (or `generations`) is made: the current generation of each bundle it covers,
    /// for it to acknowledge once it holds it.
    func sendCurrentGeneration(to subscription: Subscription, of session: Session) {
        guard subscription.wantsGenerations else { return }
        let bundles = subscription.bundle.map { [$0] } ?? generations.current.keys.sorted()
        for bundle in bundles where publisher.readAccess.allows(session, .generation(bundle: bundle.string)) {
            guard let generation = generations.current[bundle],
                  let body = try? Wire.eventBody(GenerationPublished(clock: clock, bundle: bundle.string, generation: generation.number,
                                                                     hash: generation.hash)) else { continue }
            session.enqueueEvent(body, for: subscription.name)
        }
    }

    func acknowledge(_ request: Ack, session: Session, id: RequestID) -> Answer<EmptyReply> {
        acknowledge(request, session: session, at: .now)
    }

    func acknowledge(_ request: Ack, session: Session, at now: ContinuousClock.Instant) -> Answer<EmptyReply> {
        guard session.subscriptions.values.contains(where: { $0.acknowledges && $0.matches(.bundle(request.bundle), app: session.app) }) else {
            return .failure(ProtocolError(.invalidField, "no subscription of this connection acknowledges \(request.bundle) (subscribe with "
                                          + "\"acknowledges\": true)", field: "bundle"))
        }
        // Kept only for a bundle served: what a connection says it shows is kept per bundle, and paths made up would grow it.
        // (A bundle gone since the event is no error: the acknowledgement came after it.)
        guard let current = generations.generation(of: request.bundle) else {
            session.shown[ExactName(request.bundle)] = nil
            return .reply(EmptyReply())
        }
        if request.generation > current.number {
            return .failure(ProtocolError(.invalidField, "\(request.bundle) has no generation \(request.generation) yet (it is at \(current.number))",
                                          field: "generation"))
        }
        if let refused = request.refused, refused.utf8.count > 4096 {
            return .failure(ProtocolError(.limit, "a refusal is at most 4,096 bytes", field: "refused"))
        }
        counters["acknowledgements", default: 0] += 1
        let previous = session.shown[ExactName(request.bundle)]
        if previous?.generation != request.generation || previous?.refused != request.refused {
            session.shown[ExactName(request.bundle)] = Session.Shown(generation: request.generation, since: now, refused: request.refused)
        }
        // The waits are answered at the end of the turn: a thousand acknowledgements read in one turn are looked at once.
        return .reply(EmptyReply())
    }

    func wait(_ request: Wait, session: Session, id: RequestID) -> Answer<Wait.Reply> {
        waitAnswer(request, session: session, id: id, at: .now)
    }

    func waitAnswer(_ request: Wait, session: Session, id: RequestID, at now: ContinuousClock.Instant) -> Answer<Wait.Reply> {
        let timeout = request.timeout ?? 30
        guard timeout >= 0, timeout <= 86_400, timeout.isFinite else {
            return .failure(ProtocolError(.invalidField, "timeout is 0 to 86,400 seconds", field: "timeout"))
        }
        // Each wait is kept until it is answered: a connection holds a few at most.
        guard waits.count(where: { $0.session == session.id }) < Self.maximumWaitsPerConnection else {
            return .failure(ProtocolError(.limit, "this connection already waits \(Self.maximumWaitsPerConnection) times", field: "op"))
        }
        var bundles: [String]
        if let named = request.bundles {
            guard named.count <= configuration.limits.maximumFilterNames else {
                return .failure(ProtocolError(.limit, "at most \(configuration.limits.maximumFilterNames) bundles", field: "bundles"))
            }
            bundles = []
            for (index, path) in named.enumerated() {
                switch filter(bundle: path, languages: nil, tables: nil) {
                case .success(let resolved): bundles.append(resolved ?? path)
                case .failure(var error):
                    error.field = "bundles[\(index)]"
                    return .failure(error)
                }
                guard generations.generation(of: bundles[index]) != nil else {
                    return .failure(ProtocolError(.notFound, "no bundle at \(path) is served", field: "bundles[\(index)]"))
                }
                if let refusal = refusal(reading: bundles[index], by: session) { return .failure(refusal) }
            }
        } else {
            bundles = generations.current.keys.map(\.string).filter { publisher.readAccess.allows(session, .bundle($0)) }.sorted()
        }
        var targets: [(bundle: ExactName, generation: UInt64)] = []
        for bundle in bundles {
            let current = generations.generation(of: bundle)!.number
            if let wanted = request.generation, wanted > current + 1_000_000 {
                return .failure(ProtocolError(.invalidField, "\(bundle) is at generation \(current): \(wanted) is not coming", field: "generation"))
            }
            targets.append((ExactName(bundle), request.generation ?? current))
        }
        let pending = PendingWait(session: session.id, id: id, targets: targets, deadline: now + .milliseconds(Int64(timeout * 1000)))
        if let reply = waitReply(pending, at: now, final: timeout == 0) { return .reply(reply) }
        waits.append(pending)
        return .later
    }

    /// Answers the waits that are done, and those whose deadline passed.
    func answerWaits(at now: ContinuousClock.Instant) {
        guard !waits.isEmpty else { return }
        var still: [PendingWait] = []
        for pending in waits {
            guard let session = publisher.session(id: pending.session) else { continue }
            if let reply = waitReply(pending, at: now, final: now >= pending.deadline) {
                self.reply(reply, to: pending.id, on: session)
            } else {
                still.append(pending)
            }
        }
        waits = still
    }

    /// The earliest deadline of a wait.
    var nextWaitDeadline: ContinuousClock.Instant? { waits.lazy.map(\.deadline).min() }

    /// The reply to `pending` when it is done, or `final` (its deadline): nil while it waits.
    private func waitReply(_ pending: PendingWait, at now: ContinuousClock.Instant, final: Bool) -> Wait.Reply? {
        // Before the deadline, the first acknowledging follower that lags ends the look (no list is made).
        if !final, isLagging(pending) { return nil }
        var lagging: [Wait.Follower] = []
        var done = true
        for (bundle, target) in pending.targets.sorted(by: { $0.bundle < $1.bundle }) {
            // A generation not published yet is waited for even with nobody following.
            if (generations.current[bundle]?.number ?? 0) < target { done = false }
            for follower in followers(of: bundle.string, at: now) {
                let shows = follower.acknowledges && follower.refused == nil && (follower.generation ?? 0) >= target
                if shows { continue }
                if follower.acknowledges { done = false }
                lagging.append(follower)
            }
        }
        guard done || final else { return nil }
        return Wait.Reply(done: done, generations: pending.targets.map { Wait.BundleGeneration(bundle: $0.bundle.string, generation: $0.generation) },
                          lagging: lagging)
    }

    /// Whether a generation `pending` waits for is unpublished, or an acknowledging follower does not show it.
    private func isLagging(_ pending: PendingWait) -> Bool {
        for (bundle, target) in pending.targets {
            if (generations.current[bundle]?.number ?? 0) < target { return true }
            for session in publisher.sessions {
                if let shown = session.shown[bundle], shown.refused == nil, shown.generation >= target { continue }
                guard session.subscriptions.values.contains(where: { $0.acknowledges && $0.matches(.bundle(bundle.string), app: session.app) }),
                      publisher.readAccess.allows(session, .bundle(bundle.string)) else { continue }
                return true
            }
        }
        return false
    }

    /// The connections following `bundle` (a subscription that covers it), and what each says it shows.
    func followers(of bundle: String, at now: ContinuousClock.Instant) -> [Wait.Follower] {
        publisher.sessions.compactMap { session -> Wait.Follower? in
            let covering = session.subscriptions.values.filter { $0.matches(.bundle(bundle), app: session.app) }
            guard !covering.isEmpty, publisher.readAccess.allows(session, .bundle(bundle)) else { return nil }
            let shown = session.shown[ExactName(bundle)]
            let seconds = shown.map { Double(($0.since.duration(to: now)).components.seconds)
                + Double(($0.since.duration(to: now)).components.attoseconds) / 1e18 }
            return Wait.Follower(pid: session.peer.pid, uid: session.peer.uid, client: session.name, app: session.app, bundle: bundle,
                                 acknowledges: covering.contains { $0.acknowledges }, generation: shown?.generation,
                                 seconds: seconds, refused: shown?.refused)
        }
    }

    func generationTables(_ request: GenerationTables, session: Session, id: RequestID) -> Answer<GenerationTables.Reply> {
        let bundle: String
        switch resolveBundle(request.bundle, field: "bundle") {
        case .success(let resolved): bundle = resolved
        case .failure(let error): return .failure(error)
        }
        if let refusal = refusal(reading: bundle, by: session) { return .failure(refusal) }
        guard let current = generations.generation(of: bundle) else {
            return .failure(ProtocolError(.notFound, "no bundle at \(bundle) is served", field: "bundle"))
        }
        let kept = generations.kept(of: bundle)
        let numbers = kept.map(\.number)
        let wanted = request.generation ?? numbers.last { $0 < current.number }
        let served = self.tables.served.tables(of: ExactName(bundle))
        guard let wanted, let generation = kept.first(where: { $0.number == wanted }),
              let found = generations.tables(of: bundle, at: wanted, served: served) else {
            let list = numbers.map(String.init).joined(separator: ", ")
            let what = request.generation.map { "generation \($0) of \(bundle) is no longer kept" } ?? "\(bundle) keeps no generation before its current one"
            return .failure(ProtocolError(.notFound, "\(what) (kept: \(list); [Limits] RollbackGenerations=\(generations.keepCount))",
                                          field: "generation"))
        }
        let tables = found.sorted { $0.key < $1.key }.map { address, table in
            TableSnapshot(bundle: address.bundle, language: address.localization, table: address.table, entries: table.entries)
        }
        return .reply(GenerationTables.Reply(generation: generation.number, hash: generation.hash, current: current.number, kept: numbers,
                                             tables: tables))
    }
}
