import LprojBundles
import LprojProtocol
import LprojTables
import Synchronization

/// The overview's figures, from what lprojd serves: each bundle's coverage
/// counted once from a snapshot of its tables, then, after an event, only
/// the table the event names counted again (from a snapshot of that table
/// alone) — the rule is `Coverage`'s, the tables the daemon's, so the
/// overview of many bundles answers from what is known and an edit costs
/// one table. A figure counted while an event came is not kept.
public final class CoverageCache: Sendable {
    /// How the cache reads the daemon's tables: a bundle's, or only the tables named.
    public typealias Reading = (_ bundle: String, _ tables: [String]?) -> [TableSnapshot]?

    private struct Known {
        var localizations: [String] = []
        var development: String?
        /// Counted tables' rows, by table.
        var rows: [String: [Coverage.Row]] = [:]
        var complete = false
        /// Tables an event named since they were counted.
        var stale: Set<String> = []
        /// Events seen: a count that began before the last one is not kept.
        var changes: UInt64 = 0
    }

    private let known = Mutex<[String: Known]>([:])

    public init() {}

    /// `bundle`'s coverage, counting what an event made stale (or all of it, the first time) with `reading`.
    public func coverage(of bundle: String, reading: Reading) -> Coverage? {
        let entry = known.withLock { $0[bundle] ?? Known() }
        var updated = entry
        if !entry.complete {
            guard let snapshots = reading(bundle, nil) else { return nil }
            updated = Known(changes: entry.changes)
            updated.localizations = Set(snapshots.map(\.language)).sorted()
            updated.development = DevelopmentLocalization.choose(region: DevelopmentLocalization.region(ofBundleAt: bundle), among: updated.localizations)
            let catalogs = Coverage.catalogKeys(in: bundle)
            let names = Set(snapshots.filter { $0.language == updated.development }.map(\.table)).union(catalogs.keys)
            for name in names { updated.rows[name] = count(name, snapshots, catalogs[name], updated, bundle) }
            updated.complete = true
        } else if !entry.stale.isEmpty {
            let names = entry.stale.sorted()
            // (Nothing served under those names any more: they were removed.)
            let snapshots = reading(bundle, names) ?? []
            let catalogs = Coverage.catalogKeys(in: bundle, only: Set(names))
            for name in names {
                let rows = count(name, snapshots, catalogs[name], updated, bundle)
                updated.rows[name] = rows.isEmpty ? nil : rows
            }
            updated.stale = []
        }
        if updated.complete, entry.stale != updated.stale || !entry.complete {
            known.withLock { known in
                if (known[bundle]?.changes ?? 0) == entry.changes { known[bundle] = updated }
            }
        }
        return Coverage(bundle: bundle, development: updated.development, rows: updated.rows.keys.sorted().flatMap { updated.rows[$0]! })
    }

    /// An event named `table` of `bundle` (nil: the bundle as a whole — a localization came or went).
    public func invalidate(_ bundle: String, table: String?) {
        known.withLock { known in
            // (A bundle not counted yet is noted too: a count already under way began before this event.)
            var entry = known[bundle] ?? Known()
            entry.changes &+= 1
            if let table { entry.stale.insert(table) } else { entry.complete = false }
            known[bundle] = entry
        }
    }

    /// The daemon was lost or came back: everything is counted again.
    public func invalidateAll() {
        known.withLock { known in
            for bundle in known.keys {
                known[bundle]!.complete = false
                known[bundle]!.changes &+= 1
            }
        }
    }

    private func count(_ name: String, _ snapshots: [TableSnapshot], _ catalogKeys: [String]?, _ known: Known, _ bundle: String) -> [Coverage.Row] {
        var tables: [String: Table] = [:]
        for snapshot in snapshots where snapshot.table == name { tables[snapshot.language] = Table(snapshot.entries) }
        // (A table only the development localization lacks is no table to translate, unless a catalog holds it.)
        guard tables[known.development ?? ""] != nil || catalogKeys != nil else { return [] }
        return Coverage.rows(of: name, tables: tables, localizations: known.localizations, development: known.development,
                             catalogKeys: catalogKeys, marks: SameMarks(bundle: bundle, development: known.development))
    }

}
