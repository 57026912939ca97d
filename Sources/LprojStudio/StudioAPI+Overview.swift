import Foundation
import LprojBundles
import LprojFormats
import LprojLanguages
import LprojProtocol
import LprojTables
import Synchronization

/// `GET /api/bundles`: the overview — each bundle the studio shows, each
/// language with its name and its tables' figures. The figures are the
/// daemon's tables counted by `Coverage`'s rule and kept between events
/// (`CoverageCache`); the answer — one object per table of every language,
/// thousands for a large bundle — is written by hand (`JSONEncoder` took
/// nine tenths of the request).
extension StudioAPI {
    struct OverviewBundle {
        var path: String
        var development: String?
        var developmentName: String?
        var checks: Problems
        var languages: [OverviewLanguage]
    }

    struct OverviewLanguage {
        var language: String
        var name: String
        var direction: String
        var tables: [OverviewTable]
        var diagnostics: Problems
    }

    struct OverviewTable {
        var table: String
        var total: Int
        var translated: Int
        var missing: Int
        var stale: Int
        var unchanged: Int
        var missingWords: Int
        var missedAtRuntime: Int
    }

    struct Problems {
        var errors = 0
        var warnings = 0
    }

    func overviewResponse() -> HTTPResponse {
        // The bundles and their checks as the hub follows them: no daemon round trip for what events already said
        // (until the hub has its list, as lprojd lists them).
        let served: [String]
        if let followed = hub.servedBundles() {
            served = followed
        } else {
            switch daemonBundles() {
            case .success(let list): served = list.map(\.path)
            case .failure(let refusal): return refusal.response
            }
        }
        var result: [OverviewBundle] = []
        for path in served where bundles?.contains(path) ?? true {
            let misses = runtimeMisses(of: path)
            guard let coverage = hub.coverage.coverage(of: path, reading: servedTables) else { continue }
            var order: [String] = []
            var tables: [String: [OverviewTable]] = [:]
            for row in coverage.rows {
                if tables[row.language] == nil { order.append(row.language) }
                tables[row.language, default: []].append(OverviewTable(
                    table: row.table, total: row.total, translated: row.translated, missing: row.missing, stale: row.stale, unchanged: row.unchanged,
                    missingWords: row.missingWords, missedAtRuntime: misses[row.language + "/" + row.table] ?? 0))
            }
            let counted = hub.checkCounts(of: path)
            result.append(OverviewBundle(
                path: path, development: coverage.development, developmentName: coverage.development.map(Self.name(of:)),
                checks: Problems(errors: counted.errors, warnings: counted.warnings),
                languages: order.map { language in
                    OverviewLanguage(language: language, name: Self.name(of: language), direction: Self.direction(language),
                                     tables: tables[language] ?? [],
                                     diagnostics: Problems(errors: counted.byLocalization[language]?.errors ?? 0, warnings: counted.byLocalization[language]?.warnings ?? 0))
                }))
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/json; charset=utf-8")] + StudioAccess.securityHeaders,
                            body: Self.json(result))
    }

    /// `{"bundles": [...]}`, each field as docs/STUDIO.md names it.
    static func json(_ bundles: [OverviewBundle]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + bundles.reduce(0) { $0 + $1.languages.reduce(0) { $0 + 200 + $1.tables.count * 170 } })
        func raw(_ text: StaticString) { text.withUTF8Buffer { out += $0 } }
        func string(_ text: String?) {
            if let text { JSONStringEscape.quote(text, into: &out) } else { raw("null") }
        }
        func number(_ value: Int) { out += Array(String(value).utf8) }
        func problems(_ counts: Problems) {
            raw("{\"errors\":"); number(counts.errors); raw(",\"warnings\":"); number(counts.warnings); raw("}")
        }
        raw("{\"bundles\":[")
        for (index, bundle) in bundles.enumerated() {
            if index > 0 { raw(",") }
            raw("{\"path\":"); string(bundle.path)
            raw(",\"development\":"); string(bundle.development)
            raw(",\"developmentName\":"); string(bundle.developmentName)
            raw(",\"checks\":"); problems(bundle.checks)
            raw(",\"languages\":[")
            for (index, language) in bundle.languages.enumerated() {
                if index > 0 { raw(",") }
                raw("{\"language\":"); string(language.language)
                raw(",\"name\":"); string(language.name)
                raw(",\"direction\":"); string(language.direction)
                raw(",\"diagnostics\":"); problems(language.diagnostics)
                raw(",\"tables\":[")
                for (index, table) in language.tables.enumerated() {
                    if index > 0 { raw(",") }
                    raw("{\"table\":"); string(table.table)
                    raw(",\"total\":"); number(table.total)
                    raw(",\"translated\":"); number(table.translated)
                    raw(",\"missing\":"); number(table.missing)
                    raw(",\"stale\":"); number(table.stale)
                    raw(",\"unchanged\":"); number(table.unchanged)
                    raw(",\"missingWords\":"); number(table.missingWords)
                    raw(",\"missedAtRuntime\":"); number(table.missedAtRuntime)
                    raw("}")
                }
                raw("]}")
            }
            raw("]}")
        }
        raw("]}")
        return out
    }

    /// Computes every shown bundle's overview figures on a thread of its own, so that the first overview is answered from them.
    func warm() {
        let thread = Thread { [self] in
            guard case .success(let bundles) = daemonBundles() else { return }
            for summary in bundles where self.bundles?.contains(summary.path) ?? true { _ = hub.coverage.coverage(of: summary.path, reading: servedTables) }
        }
        thread.name = "lprojctl-studio-overview"
        thread.start()
    }

    /// The tables lprojd serves of `bundle` (only those named, when some are), as the overview counts them.
    private func servedTables(_ bundle: String, _ tables: [String]?) -> [TableSnapshot]? {
        try? ask(Snapshot(bundle: bundle, tables: tables)).tables
    }
}
