import LprojBundles
import LprojPaths
import LprojTables

/// The cross-language checks of the bundles served (`BundleCheck`: the one
/// home of the rules), kept up to date a key at a time. Part of the
/// daemon's core: it reads the served tables, never a descriptor
/// (but a bundle's Info.plist, as `BundleCheck` does).
///
/// - A bundle's checks are worked out whole the first time they are asked
///   for — a subscriber of diagnostics, `list` — not at start nor on a
///   change: a crawl or a release swap of 50,000 tables is not slowed by
///   them, and a bundle nobody asked about has no set to keep up to date.
/// - After that, a save is checked by what it changed: the table saved
///   whole (its keys' lines may have moved), and when it is the development
///   table, the keys its diff names in every other localization (their
///   files did not change). A table that came or went is checked
///   whole; a localization that came or went rechecks the bundle whole (the
///   development localization may be another). The bundle's own checks
///   (names, InfoPlist) run each time.
/// - `update` returns the bundle's whole set when it changed (the daemon
///   publishes it as `diagnostics`), nil when it did not.
final class Checks {
    /// What changed in a table: these keys, or (nil) the table as a whole.
    typealias ChangedKeys = Set<ExactName>?

    private struct TableState {
        /// Whether the localization has the table (a development table that
        /// comes or goes changes every other localization's checks of it whole).
        var exists = false
        var table: [Diagnostic] = []
        /// Only keys with diagnostics.
        var keys: [ExactName: [Diagnostic]] = [:]
    }

    private struct BundleState {
        var development: String?
        var localizations: Set<ExactName>
        /// By localization, then table.
        var tables: [ExactName: [ExactName: TableState]] = [:]
        var bundleLevel: [Diagnostic] = []
        var all: [Diagnostic] = []
    }

    private var bundles: [ExactName: BundleState] = [:]

    /// The checks of `bundle` now (worked out if they were not yet).
    func diagnostics(of bundle: String, in tables: ServedTables) -> [Diagnostic] {
        if let state = bundles[ExactName(bundle)] { return state.all }
        return compute(bundle, in: tables)?.all ?? []
    }

    /// Checks again what `changes` (by table: the keys a save changed, or
    /// nil for the whole table) may have changed in `bundle`; the bundle's
    /// new set when it differs from the one before. A bundle not worked out
    /// yet is left so (nil) unless `listened` (a subscriber of its
    /// diagnostics is there: it is worked out now, from a clean set);
    /// whoever asks first gets its set then.
    func update(_ bundle: String, changes: [TableAddress: ChangedKeys], listened: Bool, in tables: ServedTables) -> [Diagnostic]? {
        let key = ExactName(bundle)
        guard bundles[key] != nil || listened else { return nil }
        let before = bundles[key]?.all ?? []
        // Only the tables that changed, and InfoPlist for the bundle's own checks.
        let names = Set(changes.keys.map(\.table)).union(["InfoPlist"])
        guard var state = bundles[key], let localized = tables.localizedBundle(bundle, only: names),
              Set(localized.localizations.map(ExactName.init)) == state.localizations else {
            // A localization came or went (or the bundle went): the bundle whole.
            let after = compute(bundle, in: tables)?.all ?? []
            return after == before ? nil : after
        }
        let check = BundleCheck(bundle: localized, development: state.development)
        for (address, changedKeys) in changes {
            let isDevelopment = state.development.map { address.localization.hasSameBytes(as: $0) } ?? false
            let table = ExactName(address.table)
            let existed = state.tables[ExactName(address.localization)]?[table]?.exists ?? false
            let exists = localized.tables[address.localization]?[address.table] != nil
            // A table that came or went is checked whole (and, for the development one, in every localization).
            let keys = existed == exists ? changedKeys : nil
            for localization in isDevelopment ? localized.localizations : [address.localization] {
                var tableState = state.tables[ExactName(localization)]?[table] ?? TableState()
                // The saved file itself is checked whole: its keys' lines may have moved. Other files did not change.
                let saved = localization.hasSameBytes(as: address.localization)
                if let keys, !saved, state.tables[ExactName(localization)]?[table] != nil {
                    tableState.table = check.tableDiagnostics(localization: localization, table: address.table)
                    var files = FileLocations(bundlePath: bundle, localization: localization, table: address.table)
                    for changed in keys {
                        let found = check.diagnostics(localization: localization, table: address.table, key: changed.string, files: &files)
                        tableState.keys[changed] = found.isEmpty ? nil : found
                    }
                } else {
                    tableState = Self.whole(check, localization: localization, table: address.table)
                }
                state.tables[ExactName(localization), default: [:]][table] = tableState
            }
        }
        state.bundleLevel = check.bundleDiagnostics()
        state.all = Self.flatten(state)
        bundles[key] = state
        return state.all == before ? nil : state.all
    }

    /// Forgets a bundle that went.
    func forget(_ bundle: String) {
        bundles[ExactName(bundle)] = nil
    }

    private func compute(_ bundle: String, in tables: ServedTables) -> BundleState? {
        guard let localized = tables.localizedBundle(bundle) else {
            bundles[ExactName(bundle)] = nil
            return nil
        }
        let check = BundleCheck(bundle: localized)
        var state = BundleState(development: check.development, localizations: Set(localized.localizations.map(ExactName.init)))
        var tableNames = Set<String>()
        for tables in localized.tables.values { tableNames.formUnion(tables.keys) }
        for localization in localized.localizations {
            for table in tableNames {
                state.tables[ExactName(localization), default: [:]][ExactName(table)] = Self.whole(check, localization: localization, table: table)
            }
        }
        state.bundleLevel = check.bundleDiagnostics()
        state.all = Self.flatten(state)
        bundles[ExactName(bundle)] = state
        return state
    }

    /// A table's checks, whole, kept by key.
    private static func whole(_ check: BundleCheck, localization: String, table: String) -> TableState {
        var state = TableState(exists: check.bundle.tables[localization]?[table] != nil,
                               table: check.tableDiagnostics(localization: localization, table: table))
        var files = FileLocations(bundlePath: check.bundle.path, localization: localization, table: table)
        var keys = Set<ExactName>()
        for (key, _) in check.bundle.tables[localization]?[table] ?? Table() { keys.insert(ExactName(key)) }
        if let development = check.development, check.bundle.tables[localization]?[table] != nil {
            for (key, _) in check.bundle.tables[development]?[table] ?? Table() { keys.insert(ExactName(key)) }
        }
        for key in keys {
            let found = check.diagnostics(localization: localization, table: table, key: key.string, files: &files)
            if !found.isEmpty { state.keys[key] = found }
        }
        return state
    }

    /// The bundle's own diagnostics, then each localization's tables' (in
    /// byte order of their names), each table's by place in its file.
    private static func flatten(_ state: BundleState) -> [Diagnostic] {
        var all = state.bundleLevel
        for localization in state.tables.keys.sorted() {
            for table in state.tables[localization]!.keys.sorted() {
                let tableState = state.tables[localization]![table]!
                all += tableState.table
                all += tableState.keys.values.joined().sorted {
                    ($0.line == 0 ? Int.max : $0.line, $0.column, $0.message) < ($1.line == 0 ? Int.max : $1.line, $1.column, $1.message)
                }
            }
        }
        return all
    }
}
