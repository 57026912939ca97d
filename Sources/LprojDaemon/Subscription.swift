import LprojPaths
import LprojProtocol
import LprojTables

/// A connection's standing request for events: a name (events carry it as
/// `sub`) and optional filters on bundle, localizations and tables.
/// Localizations are matched as named on disk (`zh-Hant`), not as
/// preferences; every name compares by its bytes (`ExactName`), so a
/// subscriber to `Café` in NFC never hears of `Café` in NFD.
struct Subscription {
    var name: String { filter.name }
    var bundle: ExactName? { filter.bundle }
    var localizations: Set<ExactName>? { filter.localizations }
    var tables: Set<ExactName>? { filter.tables }
    /// `{"sub":"name",`: the start of every event line it gets.
    var prefix: [UInt8] { filter.prefix }
    /// Whether it gets `diagnostics` events.
    var wantsDiagnostics: Bool { filter.wantsDiagnostics }
    /// Whether it gets `misses` events.
    var wantsMisses: Bool { filter.wantsMisses }
    /// Whether its `table-changed` events bring the table's new image.
    var wantsImages: Bool { filter.wantsImages }
    /// Whether the client says which generation it shows (`ack`).
    var acknowledges: Bool { filter.acknowledges }
    /// Whether `generation` events come (to one that acknowledges, or asked for them).
    var wantsGenerations: Bool { filter.wantsGenerations }
    /// About how many bytes it holds (its names, with their sets' share), counted against its connection's budget.
    var footprint: Int { filter.footprint }
    /// Events were dropped because the connection's queue was full: it is
    /// owed a `resync` once the queue drains.
    var lagging = false
    /// What never changes, in one object: the fan-out reads every
    /// subscription for every event, and a copy of it is one retain.
    private let filter: Filter

    init(name: String, bundle: String?, localizations: [String]?, tables: [String]?, diagnostics: Bool = false, misses: Bool = false,
         images: Bool = false, acknowledges: Bool = false, generations: Bool = false) {
        filter = Filter(name: name, bundle: bundle, localizations: localizations, tables: tables, diagnostics: diagnostics, misses: misses,
                        images: images, acknowledges: acknowledges, generations: generations || acknowledges)
    }

    private final class Filter: Sendable {
        let name: String
        let bundle: ExactName?
        let localizations: Set<ExactName>?
        let tables: Set<ExactName>?
        let prefix: [UInt8]
        let wantsDiagnostics: Bool
        let wantsMisses: Bool
        let wantsImages: Bool
        let acknowledges: Bool
        let wantsGenerations: Bool
        let footprint: Int

        init(name: String, bundle: String?, localizations: [String]?, tables: [String]?, diagnostics: Bool, misses: Bool, images: Bool,
             acknowledges: Bool, generations: Bool) {
            self.name = name
            self.acknowledges = acknowledges
            wantsGenerations = generations
            wantsDiagnostics = diagnostics
            wantsMisses = misses
            wantsImages = images
            self.bundle = bundle.map(ExactName.init)
            self.localizations = localizations.map { Set($0.map(ExactName.init)) }
            self.tables = tables.map { Set($0.map(ExactName.init)) }
            prefix = Wire.eventPrefix(subscription: name)
            let names = (localizations ?? []) + (tables ?? [])
            footprint = 256 + name.utf8.count + (bundle?.utf8.count ?? 0) + names.reduce(0) { $0 + $1.utf8.count + 48 }
        }
    }

    /// Whether an event about `scope` goes to this subscription of a
    /// connection of `app` whose user reads the misses of `missReader`
    /// (nil: of every user).
    func matches(_ scope: Scope, app: String?, missReader: UInt32? = nil) -> Bool {
        switch scope {
        case .everyone:
            return true
        case .app(let selected):
            // An app hears its own selections; a tool (no app in its hello) hears every app's.
            return app.map { $0.hasSameBytes(as: selected) } ?? true
        case .bundle(let path):
            return bundle?.matches(path) ?? true
        case .checks(let path):
            return wantsDiagnostics && (bundle?.matches(path) ?? true)
        case .generation(let path):
            return wantsGenerations && (bundle?.matches(path) ?? true)
        case .misses(let path, let user):
            return wantsMisses && (missReader.map { $0 == user } ?? true) && (bundle?.matches(path) ?? true)
        case .localization(let path, let localization):
            return (bundle?.matches(path) ?? true) && (localizations?.contains(ExactName(localization)) ?? true)
        case .table(let path, let localization, let table):
            guard bundle?.matches(path) ?? true, tables?.contains(ExactName(table)) ?? true else { return false }
            guard let localizations else { return true }
            return localization.map { localizations.contains(ExactName($0)) } ?? true
        }
    }

    /// Whether the table at `address` is one this subscription's filters take (for snapshots).
    func covers(_ address: TableAddress) -> Bool {
        matches(.table(bundle: address.bundle, localization: address.localization, table: address.table), app: nil)
    }
}
