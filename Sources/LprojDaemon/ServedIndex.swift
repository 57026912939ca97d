import LprojPaths
import LprojTables

/// The tables served, by bundle, then localization, then table name: a
/// bundle's and a localization's tables are found without a walk of every
/// table served, and whether a bundle or localization is served at all is
/// whether it has an entry (an emptied one is removed).
///
/// Nested rather than one dictionary of addresses: an address is three
/// strings, and a hash table of 50,000 of them sized at most three
/// quarters full was 8 MB; a localization's table of its few names and
/// tables, about a third of that. Names compare by their bytes.
struct ServedIndex: Sequence {
    typealias Tables = [ExactName: Table]

    private var bundles: [ExactName: [ExactName: Tables]] = [:]
    /// How many tables are served.
    private(set) var count = 0

    /// The table served at `address`.
    subscript(address: TableAddress) -> Table? {
        bundles[ExactName(address.bundle)]?[ExactName(address.localization)]?[ExactName(address.table)]
    }

    /// Serves `table` at `address` (nil: nothing); returns what was served there before.
    @discardableResult
    mutating func serve(_ table: Table?, at address: TableAddress) -> Table? {
        let bundle = ExactName(address.bundle), localization = ExactName(address.localization), name = ExactName(address.table)
        let old: Table?
        if let table {
            // In place, each level: a localization has a few tables, so its dictionary starts at their size.
            old = bundles[bundle, default: [:]][localization, default: Tables(minimumCapacity: 8)].updateValue(table, forKey: name)
        } else {
            old = bundles[bundle]?[localization]?.removeValue(forKey: name)
            if bundles[bundle]?[localization]?.isEmpty == true { bundles[bundle]?[localization] = nil }
            if bundles[bundle]?.isEmpty == true { bundles[bundle] = nil }
        }
        if old == nil, table != nil { count += 1 } else if old != nil, table == nil { count -= 1 }
        return old
    }

    /// Whether `bundle` serves a table.
    func has(bundle: ExactName) -> Bool {
        bundles[bundle] != nil
    }

    /// Whether `localization` of `bundle` serves a table.
    func has(bundle: ExactName, localization: ExactName) -> Bool {
        bundles[bundle]?[localization] != nil
    }

    /// The bundles served.
    var bundleNames: some Collection<ExactName> { bundles.keys }

    /// How many bundles serve a table.
    var bundleCount: Int { bundles.count }

    /// The tables of `bundle`, by localization and name (nil: it serves none).
    func localizations(of bundle: ExactName) -> [ExactName: Tables]? {
        bundles[bundle]
    }

    /// The tables of `bundle` by address.
    func tables(of bundle: ExactName) -> [TableAddress: Table] {
        var tables: [TableAddress: Table] = [:]
        for (localization, byName) in bundles[bundle] ?? [:] {
            for (name, table) in byName {
                tables[TableAddress(bundle: bundle.string, localization: localization.string, table: name.string)] = table
            }
        }
        return tables
    }

    /// Every table served with its address (in no particular order).
    func makeIterator() -> some IteratorProtocol<(key: TableAddress, value: Table)> {
        bundles.lazy.flatMap { bundle, localizations in
            localizations.lazy.flatMap { localization, byName in
                byName.lazy.map { (key: TableAddress(bundle: bundle.string, localization: localization.string, table: $0.key.string), value: $0.value) }
            }
        }.makeIterator()
    }
}
