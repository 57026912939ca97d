import Foundation
import LprojBundles
import LprojPaths
import LprojProtocol
import LprojTables

/// Keys apps asked for that no localization of the table has — the app's
/// new strings — from the daemon's misses: what a developer adds to the
/// development language (through `PUT /api/entry`) before anyone can
/// translate them.
extension StudioAPI {
    /// `GET /api/misses?bundle=&table=`: `{"unknown": [{key, count, apps, languages, firstSeen, lastSeen}]}`,
    /// the most missed first.
    func missesResponse(_ request: HTTPRequest) -> HTTPResponse {
        let query: TableQuery
        switch TableQuery.read(request, api: self) {
        case .success(let read): query = read
        case .failure(let refusal): return refusal.response
        }
        let records: [MissRecord]
        do {
            records = try ask(Misses(bundle: query.bundle)).misses
        } catch {
            return Self.error(502, "daemon", "lprojd does not answer: \(error)")
        }
        // (Every localization's table: a key some language has is a translation to make, not a new string.)
        let known = query.loaded.localizations.compactMap { query.loaded.table(query.table, localization: $0) }
        var unknown: [ExactName: UnknownKey] = [:]
        for record in records where record.table == query.table && !known.contains(where: { $0[record.key] != nil }) {
            unknown[ExactName(record.key), default: UnknownKey(key: record.key)].add(record)
        }
        let sorted = unknown.values.sorted { ($0.count, $1.key) > ($1.count, $0.key) }
        return Self.json(200, ["bundle": query.bundle, "table": query.table, "development": query.development ?? NSNull(),
                               "unknown": sorted.prefix(Self.maximumLimit).map(\.object), "total": sorted.count])
    }

    /// One key no table has, summed over the apps and languages that missed it.
    private struct UnknownKey {
        var key: String
        var count: UInt64 = 0
        var apps: Set<String> = []
        var languages: Set<String> = []
        var firstSeen = ""
        var lastSeen = ""

        mutating func add(_ record: MissRecord) {
            let (sum, overflow) = count.addingReportingOverflow(record.count)
            count = overflow ? .max : sum
            if let app = record.app { apps.insert(app) }
            if let language = record.language { languages.insert(language) }
            // ISO 8601 in UTC to the second: ordered as text.
            if firstSeen.isEmpty || record.firstSeen < firstSeen { firstSeen = record.firstSeen }
            if record.lastSeen > lastSeen { lastSeen = record.lastSeen }
        }

        var object: [String: Any] {
            ["key": key, "count": count, "apps": apps.sorted(), "languages": languages.sorted(), "firstSeen": firstSeen, "lastSeen": lastSeen]
        }
    }
}
