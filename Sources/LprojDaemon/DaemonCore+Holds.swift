import LprojPaths
import LprojProtocol

/// Holds: a bundle's changes kept back (`hold`) and published as one
/// change (`release`, the holder's connection closing, or `MaxHold=`
/// passing) — one batch of `ServedTables`, so one generation.
extension DaemonCore {
    /// A bundle held by a connection, and what was read meanwhile (the latest read of each file, in order).
    struct BundleHold {
        var session: Int
        var deadline: ContinuousClock.Instant
        var order: [ExactName] = []
        var reads: [ExactName: ServedTables.Loaded] = [:]
    }

    func hold(_ request: Hold, session: Session, id: RequestID) -> Answer<Hold.Reply> {
        holdAnswer(request, session: session, at: .now)
    }

    func holdAnswer(_ request: Hold, session: Session, at now: ContinuousClock.Instant) -> Answer<Hold.Reply> {
        let bundle: String
        switch resolveBundle(request.bundle, field: "bundle") {
        case .success(let resolved): bundle = resolved
        case .failure(let error): return .failure(error)
        }
        if let refusal = refusal(reading: bundle, by: session) { return .failure(refusal) }
        if let held = holds[ExactName(bundle)], held.session != session.id {
            let holder = publisher.session(id: held.session).map { "pid \($0.peer.pid)" } ?? "another connection"
            return .failure(ProtocolError(.busy, "\(bundle) is held by \(holder)", field: "bundle"))
        }
        let limit = configuration.limits.maximumHold
        holds[ExactName(bundle), default: BundleHold(session: session.id, deadline: now + limit)].deadline = now + limit
        return .reply(Hold.Reply(seconds: Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18))
    }

    func release(_ request: Release, session: Session, id: RequestID) -> Answer<Release.Reply> {
        let bundle: String
        switch resolveBundle(request.bundle, field: "bundle") {
        case .success(let resolved): bundle = resolved
        case .failure(let error): return .failure(error)
        }
        guard let held = holds[ExactName(bundle)], held.session == session.id else {
            return .failure(ProtocolError(.notFound, "this connection holds no \(bundle)", field: "bundle"))
        }
        let tablesBefore = generations.generation(of: bundle)?.number
        let count = releaseHold(of: ExactName(bundle))
        let after = generations.generation(of: bundle)?.number
        return .reply(Release.Reply(generation: after != tablesBefore ? after : nil, tables: count))
    }

    /// Keeps back the reads of held bundles; returns the rest.
    func keepingHeld(_ loaded: [ServedTables.Loaded]) -> [ServedTables.Loaded] {
        guard !holds.isEmpty else { return loaded }
        var rest: [ServedTables.Loaded] = []
        for item in loaded {
            let bundle = ExactName(item.place.bundle)
            guard holds[bundle] != nil else {
                rest.append(item)
                continue
            }
            if holds[bundle]!.reads.updateValue(item, forKey: item.path) == nil { holds[bundle]!.order.append(item.path) }
        }
        return rest
    }

    /// Publishes what a hold kept back, as one change; returns how many table files it read.
    @discardableResult
    func releaseHold(of bundle: ExactName) -> Int {
        guard let held = holds.removeValue(forKey: bundle) else { return 0 }
        let reads = held.order.compactMap { held.reads[$0] }
        if !reads.isEmpty { publish(tables.apply(reads)) }
        return reads.count
    }

    /// Releases the holds of a connection that closed, and those past `MaxHold=` (saying so in the log).
    func releaseHolds(of session: Int? = nil, at now: ContinuousClock.Instant) {
        for (bundle, held) in holds where held.session == session || held.deadline <= now {
            if held.session != session {
                log.warning("\(bundle.string): held past [Limits] MaxHold (\(Configuration.milliseconds(configuration.limits.maximumHold)) ms): "
                            + "its changes are published")
            }
            releaseHold(of: bundle)
        }
    }

    /// The earliest end of a hold.
    var nextHoldDeadline: ContinuousClock.Instant? { holds.values.lazy.map(\.deadline).min() }
}
