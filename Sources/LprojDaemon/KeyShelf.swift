import LprojCatalog
import LprojTables
import Synchronization

/// The keys a table's localizations share (`SharedKeys`), by bundle and
/// table name: a table read from a localization's file is made over a set
/// whose keys it has in the same order, and keeps only its values. In a
/// bundle of many languages that is a third of the tables' memory or more.
///
/// A table name has a few sets (while a new key reaches its localizations
/// one by one, the old and the new); a table matching none gives a new
/// set, in place of one no table reads any more. The reading threads use
/// it at once: a lock guards the sets, not the parse.
final class KeyShelf: Sendable {
    private let groups = Mutex<[Group: [SharedKeys]]>([:])

    /// The sets of keys kept for one table name of a bundle.
    static let setsPerTable = 4

    /// The sets a table of the file at `place` may be made over.
    func sets(for place: TablePlace) -> [SharedKeys] {
        guard let group = Group(place) else { return [] }
        return groups.withLock { $0[group] ?? [] }
    }

    /// `table` (read from the file at `place`, and made over none of the
    /// sets it was offered) over a set of keys: one given since, or a new
    /// one of its keys when there is room; else `table` as it is.
    func share(_ table: Table, at place: TablePlace) -> Table {
        guard !table.isEmpty, !table.sharesKeys, let group = Group(place) else { return table }
        return groups.withLock { groups in
            var sets = groups[group] ?? []
            if let shared = sets.lazy.compactMap({ table.sharing($0) }).first { return shared }
            sets.removeAll { !$0.isInUse }
            guard sets.count < Self.setsPerTable else {
                groups[group] = sets
                return table
            }
            let keys = SharedKeys(table)
            sets.append(keys)
            groups[group] = sets
            return table.sharing(keys) ?? table
        }
    }

    /// Drops the sets of the table `name` of `bundle` (no localization serves it).
    func forget(bundle: ExactName, table name: ExactName) {
        groups.withLock { groups in
            for format in [TableFormat.strings, .stringsdict] { groups[Group(format: format, bundle: bundle, table: name)] = nil }
        }
    }

    /// The tables of one name and format in one bundle.
    private struct Group: Hashable {
        var format: TableFormat
        var bundle: ExactName
        var table: ExactName

        init(format: TableFormat, bundle: ExactName, table: ExactName) {
            self.format = format
            self.bundle = bundle
            self.table = table
        }

        /// A localization's table file's group (a String Catalog holds every language in one file: none).
        init?(_ place: TablePlace) {
            guard place.localization != nil, place.format != .xcstrings else { return nil }
            self.init(format: place.format, bundle: ExactName(place.bundle), table: ExactName(place.table))
        }
    }
}
