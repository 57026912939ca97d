import LprojCatalog
import LprojTables

/// The cross-language checks of the bundles served (`BundleCheck`: the one
/// home of the rules), kept up to date a table at a time. Part of the
/// daemon's core: it reads the catalog's served tables, never a descriptor
/// (but a bundle's Info.plist, as `BundleCheck` does).
///
/// - A bundle's checks are worked out the first time they are needed — a
///   change in it, a subscriber or `list` asking — not at start: a crawl
///   of 50,000 tables is not slowed by them.
/// - After a change of table T of localization L, L's T is checked again;
///   when L is the development localization, every localization's T is;
///   the bundle's own checks (names, InfoPlist) run again.
/// - `update` returns the bundle's whole set when it changed (the daemon
///   publishes it as `diagnostics`), nil when it did not.
final class Checks {
    private struct BundleState {
        var development: String?
        var localizations: Set<ExactName>
        /// By localization, then table.
        var tables: [ExactName: [ExactName: [Diagnostic]]] = [:]
        var bundleLevel: [Diagnostic] = []
        var all: [Diagnostic] = []
    }

    private var bundles: [ExactName: BundleState] = [:]

    /// The checks of `bundle` now (worked out if they were not yet).
    func diagnostics(of bundle: String, in catalog: Catalog) -> [Diagnostic] {
        if let state = bundles[ExactName(bundle)] { return state.all }
        return compute(bundle, in: catalog)?.all ?? []
    }

    /// Checks again what a change of `tables` (localization, table) in
    /// `bundle` may have changed; the bundle's new set when it differs from
    /// the one before (a bundle not worked out yet was clean as far as anyone knew).
    func update(_ bundle: String, tables: Set<TableAddress>, in catalog: Catalog) -> [Diagnostic]? {
        let key = ExactName(bundle)
        guard var state = bundles[key], let localized = catalog.localizedBundle(bundle) else {
            let before = bundles[key]?.all ?? []
            let after = compute(bundle, in: catalog)?.all ?? []
            return after == before ? nil : after
        }
        let before = state.all
        let localizations = Set(localized.localizations.map(ExactName.init))
        if localizations != state.localizations {
            // A localization came or went: the development one may be another now, and every comparison with it.
            return (compute(bundle, in: catalog)?.all ?? []) == before ? nil : bundles[key]?.all ?? []
        }
        let check = BundleCheck(bundle: localized, development: state.development)
        for address in tables {
            let names = address.localization.hasSameBytes(as: state.development ?? "\u{0}") ? localized.localizations : [address.localization]
            for localization in names {
                state.tables[ExactName(localization), default: [:]][ExactName(address.table)] =
                    check.diagnostics(localization: localization, table: address.table)
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

    private func compute(_ bundle: String, in catalog: Catalog) -> BundleState? {
        guard let localized = catalog.localizedBundle(bundle) else {
            bundles[ExactName(bundle)] = nil
            return nil
        }
        let check = BundleCheck(bundle: localized)
        var state = BundleState(development: check.development, localizations: Set(localized.localizations.map(ExactName.init)))
        var tableNames = Set<String>()
        for tables in localized.tables.values { tableNames.formUnion(tables.keys) }
        for localization in localized.localizations {
            for table in tableNames.sorted() {
                state.tables[ExactName(localization), default: [:]][ExactName(table)] = check.diagnostics(localization: localization, table: table)
            }
        }
        state.bundleLevel = check.bundleDiagnostics()
        state.all = Self.flatten(state)
        bundles[ExactName(bundle)] = state
        return state
    }

    /// The bundle's own diagnostics, then each localization's tables', in byte order.
    private static func flatten(_ state: BundleState) -> [Diagnostic] {
        var all = state.bundleLevel
        for localization in state.tables.keys.sorted() {
            for table in state.tables[localization]!.keys.sorted() { all += state.tables[localization]![table]! }
        }
        return all
    }
}
