import Foundation
import LprojCatalog
import LprojTables

/// Everything a lookup needs, frozen: the tables, the chosen language and
/// the search list made from it. `LiveBundle` swaps whole snapshots, so a
/// reader sees one consistent state, never half of a change.
final class LiveSnapshot: Sendable {
    /// Tables by localization, then by table name.
    let tables: [String: [String: Table]]
    /// The language selected for the app (nil: follow the system).
    let selection: String?
    /// The preferences the chain was made from (the selection, else the environment's).
    let preferences: [String]
    let development: String?
    /// The localizations searched, best first (`Base` and the development localization last).
    let searchList: [String]
    /// The active localization: the first of the search list.
    let language: String?
    let formatter: StringFormatter
    let developmentFallback: Bool
    /// For each table name, the table the search list finds (Apple's rule:
    /// the first localization that has the table answers), materialized so
    /// that a hit allocates nothing.
    private let resolved: [String: Table]
    /// The development localization's tables, for the per-key fallback.
    private let fallback: [String: Table]
    /// `Localizable`, the table most lookups name, resolved in advance.
    private let localizable: Table?

    init(tables: [String: [String: Table]], selection: String?, systemPreferences: [String], development: String?,
         developmentFallback: Bool) {
        // Materialized once as they arrive: a snapshot made from this one's
        // tables (another selection, one table changed) reuses them.
        let tables = tables.mapValues { $0.mapValues { $0.materialized() } }
        self.tables = tables
        self.selection = selection
        self.developmentFallback = developmentFallback
        let available = Array(tables.keys)
        preferences = selection.map { [$0] } ?? systemPreferences
        let development = development ?? BundleLookup.defaultDevelopment(available: available)
        self.development = development
        let chain = LanguageMatcher.match(preferences: preferences, available: available, development: development)
        searchList = Resolver.searchList(chain: chain, development: development, hasBase: available.contains("Base"))
        language = searchList.first { $0 != "Base" } ?? searchList.first
        formatter = StringFormatter(language: language.flatMap { LanguageTag($0)?.identifier } ?? "en")
        var found: [String: Table] = [:]
        for localization in searchList.reversed() {
            for (name, table) in tables[localization] ?? [:] { found[name] = table }
        }
        resolved = found
        localizable = found["Localizable"]
        fallback = developmentFallback ? (development.flatMap { tables[$0] } ?? [:]) : [:]
    }

    /// The same tables with another selection.
    func selecting(_ selection: String?, systemPreferences: [String]) -> LiveSnapshot {
        LiveSnapshot(tables: tables, selection: selection, systemPreferences: systemPreferences, development: development,
                     developmentFallback: developmentFallback)
    }

    /// The same selection with other tables.
    func replacing(tables: [String: [String: Table]], systemPreferences: [String]) -> LiveSnapshot {
        LiveSnapshot(tables: tables, selection: selection, systemPreferences: systemPreferences, development: development,
                     developmentFallback: developmentFallback)
    }

    /// The entry for `key` in table `table` through the search list (Apple's
    /// rule: the first localization that has the table answers), or nil.
    /// Allocates nothing.
    @inline(__always)
    func entry(forKey key: String, table: String?) -> Entry? {
        // `Localizable` straight from the stored property: no copy of the table.
        if table == nil {
            if let entry = localizable?[key] { return entry }
            guard developmentFallback, localizable != nil else { return nil }
            return fallback["Localizable"]?[key]
        }
        let entries = resolved[table!]
        if let entry = entries?[key] { return entry }
        guard developmentFallback, entries != nil else { return nil }
        return fallback[table!]?[key]
    }
}
