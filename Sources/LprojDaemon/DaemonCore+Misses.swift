import Foundation
import LprojProtocol
import LprojTables

/// The misses running apps report (`MissBook`): taken in, listed, and
/// forgotten when a table gets the key.
extension DaemonCore {
    func reportMisses(_ request: ReportMisses, session: Session, id: RequestID) -> Answer<ReportMisses.Reply> {
        let bundle: String
        switch resolveBundle(request.bundle, field: "bundle") {
        case .success(let resolved): bundle = resolved
        case .failure(let error): return .failure(error)
        }
        if let refusal = refusal(reading: bundle, by: session) { return .failure(refusal) }
        let limits = FilterLimits(configuration)
        if let dropped = request.dropped, dropped < 0 {
            return .failure(ProtocolError(.invalidField, "a count of dropped misses is 0 or more", field: "dropped"))
        }
        for (index, miss) in request.misses.enumerated() {
            let field = "misses[\(index)]"
            guard miss.count >= 1 else {
                return .failure(ProtocolError(.invalidField, "a miss is counted 1 or more times", field: "\(field).count"))
            }
            for (name, value) in [("table", miss.table), ("language", miss.language ?? "x")]
            where value.isEmpty || value.utf8.count > FilterLimits.maximumNameBytes {
                return .failure(ProtocolError(.invalidField, "a \(name) name has 1 to \(FilterLimits.maximumNameBytes) bytes", field: "\(field).\(name)"))
            }
            guard miss.key.utf8.count <= MissBook.maximumKeyBytes else {
                return .failure(ProtocolError(.limit, "a key has at most \(MissBook.maximumKeyBytes) bytes", field: "\(field).key"))
            }
            if let problem = limits.problem(with: miss.languages, field: "\(field).languages") { return .failure(problem) }
        }
        let user = session.peer.uid
        let changed = misses.report(user: user, app: session.app, bundle: bundle, misses: request.misses, dropped: request.dropped ?? 0, at: Date()) {
            language, table, key in tables.served[TableAddress(bundle: bundle, localization: language, table: table)]?[key] != nil
        }
        counters["misses-reported", default: 0] += UInt64(request.misses.count)
        if !changed.isEmpty {
            publisher.publish(scope: .misses(bundle: bundle, user: user)) { MissesChanged(clock: $0, bundle: bundle, misses: changed, resolved: []) }
        }
        return .reply(ReportMisses.Reply(recording: misses.capacity > 0))
    }

    func listMisses(_ request: Misses, session: Session, id: RequestID) -> Answer<Misses.Reply> {
        var bundle: String?
        if let path = request.bundle {
            switch resolveBundle(path, field: "bundle") {
            case .success(let resolved): bundle = resolved
            case .failure(let error): return .failure(error)
            }
        }
        if let limit = request.limit, limit < 0 { return .failure(ProtocolError(.invalidField, "a limit is 0 or more", field: "limit")) }
        let matched = misses.records(readBy: session.readsEveryUser ? nil : session.peer.uid, bundle: bundle,
                                     language: request.language, app: request.app)
        // The reply is bounded as every reply is (half the connection's queue): what does not fit is counted, not sent.
        var budget = session.queueLimit / 2 - 256
        var kept = 0
        for record in matched.prefix(request.limit ?? .max) {
            budget -= Self.encodedBound(of: record)
            guard budget >= 0 else { break }
            kept += 1
        }
        return .reply(Misses.Reply(clock: clock, misses: Array(matched.prefix(kept)), capacity: misses.capacity, dropped: misses.dropped,
                                   more: matched.count - kept))
    }

    /// A table that got keys drops their misses, and says so to those who listen.
    func resolveMisses(_ address: TableAddress, added keys: Set<String>) {
        guard !keys.isEmpty else { return }
        let resolved = misses.resolve(bundle: address.bundle, language: address.localization, table: address.table, keys: keys)
        guard !resolved.isEmpty else { return }
        let bundle = address.bundle
        // Each user hears of its own records only.
        for (user, records) in Dictionary(grouping: resolved, by: { $0.user ?? 0 }).sorted(by: { $0.key < $1.key }) {
            publisher.publish(scope: .misses(bundle: bundle, user: user)) { MissesChanged(clock: $0, bundle: bundle, misses: [], resolved: records) }
        }
    }

    /// At least the bytes `record` takes in a reply (every string escaped at its longest).
    static func encodedBound(of record: MissRecord) -> Int {
        let strings = [record.bundle, record.table, record.key, record.language ?? "", record.app ?? ""] + record.languages
        return 256 + strings.reduce(0) { $0 + Wire.encodedBound(of: $1) + 8 }
    }
}
