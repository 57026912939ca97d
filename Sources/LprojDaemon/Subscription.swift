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

    /// A subscription of its own filter; with `shared`, of the one filter
    /// every subscription alike holds (same name, filters and wishes).
    init(name: String, bundle: String?, localizations: [String]?, tables: [String]?, diagnostics: Bool = false, misses: Bool = false,
         images: Bool = false, acknowledges: Bool = false, generations: Bool = false, shared: SharedFilters? = nil) {
        let fields = Filter.Fields(name: ExactName(name), bundle: bundle.map(ExactName.init), localizations: localizations.map(Self.names), tables: tables.map(Self.names),
                                   diagnostics: diagnostics, misses: misses, images: images, acknowledges: acknowledges,
                                   generations: generations || acknowledges)
        filter = shared?.filter(for: fields) ?? Filter(fields)
    }

    /// Names as a set compares them (by their bytes).
    private static func names(_ list: [String]) -> Set<ExactName> {
        Set(list.map(ExactName.init))
    }

    /// The filters of the subscriptions a daemon holds, each kept once:
    /// a thousand processes of a service subscribe alike, and the fan-out
    /// then reads one filter — its bundle's name, its sets, its prefix —
    /// warm in the cache, not a thousand cold ones. The core's alone (no lock).
    final class SharedFilters {
        private var kept: [Filter.Fields: Weak] = [:]
        /// When `kept` is next swept of filters no subscription holds any more.
        private var sweepAt = 64

        private struct Weak {
            weak var filter: Filter?
        }

        init() {}

        /// How many filters are kept, and how many entries the table has (those gone included, until swept; for tests).
        var count: Int { kept.values.count { $0.filter != nil } }
        var entryCount: Int { kept.count }

        fileprivate func filter(for fields: Filter.Fields) -> Filter {
            if let found = kept[fields]?.filter { return found }
            if kept.count >= sweepAt {
                kept = kept.filter { $0.value.filter != nil }
                sweepAt = max(64, kept.count * 2)
            }
            let made = Filter(fields)
            kept[fields] = Weak(filter: made)
            return made
        }
    }

    fileprivate final class Filter: Sendable {
        /// What makes two subscriptions' filters the same (names by their
        /// bytes: `Café` in NFC and in NFD are two bundles, two names).
        struct Fields: Hashable {
            var name: ExactName
            var bundle: ExactName?
            var localizations: Set<ExactName>?
            var tables: Set<ExactName>?
            var diagnostics, misses, images, acknowledges, generations: Bool
        }

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

        init(_ fields: Fields) {
            name = fields.name.string
            acknowledges = fields.acknowledges
            wantsGenerations = fields.generations
            wantsDiagnostics = fields.diagnostics
            wantsMisses = fields.misses
            wantsImages = fields.images
            bundle = fields.bundle
            self.localizations = fields.localizations
            self.tables = fields.tables
            prefix = Wire.eventPrefix(subscription: fields.name.string)
            let names = Array(fields.localizations ?? []) + Array(fields.tables ?? [])
            footprint = 256 + fields.name.string.utf8.count + (fields.bundle?.string.utf8.count ?? 0) + names.reduce(0) { $0 + $1.string.utf8.count + 48 }
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
