import LprojPaths
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
/// it at once: a lock guards the sets, not the parse, and a thread takes
/// a bundle's sets once for a directory of its tables (`Bundle`).
final class KeyShelf: Sendable {
    private let bundles = Mutex<[ExactName: [TableName: [SharedKeys]]]>([:])

    /// The sets of keys kept for one table name of a bundle.
    static let setsPerTable = 4

    /// One bundle's sets as they were when taken, by table name.
    struct Bundle {
        let path: String
        fileprivate let sets: [TableName: [SharedKeys]]

        /// The sets a table of the file at `place` (in this bundle) may be made over.
        func sets(for place: TablePlace) -> [SharedKeys] {
            TableName(place).flatMap { sets[$0] } ?? []
        }
    }

    /// The sets of the bundle at `path`, as they are now.
    func bundle(_ path: String) -> Bundle {
        Bundle(path: path, sets: bundles.withLock { $0[ExactName(path)] ?? [:] })
    }

    /// `table` (read from the file at `place`, and made over none of the
    /// sets it was offered) over a set of keys: one given since, or a new
    /// one of its keys when there is room; else `table` as it is.
    func share(_ table: Table, at place: TablePlace) -> Table {
        guard !table.isEmpty, !table.sharesKeys, let name = TableName(place) else { return table }
        return bundles.withLock { bundles in
            let bundle = ExactName(place.bundle)
            var sets = bundles[bundle]?[name] ?? []
            if let shared = sets.lazy.compactMap({ table.sharing($0) }).first { return shared }
            sets.removeAll { !$0.isInUse }
            defer { bundles[bundle, default: [:]][name] = sets }
            guard sets.count < Self.setsPerTable else { return table }
            let keys = SharedKeys(table)
            sets.append(keys)
            return table.sharing(keys) ?? table
        }
    }

    /// Drops the sets of the table `name` of `bundle` (no localization serves it).
    func forget(bundle: ExactName, table name: ExactName) {
        bundles.withLock { bundles in
            for format in [TableFormat.strings, .stringsdict] { bundles[bundle]?[TableName(format: format, name: name)] = nil }
            if bundles[bundle]?.isEmpty == true { bundles[bundle] = nil }
        }
    }
}

/// A table of a bundle: its name and format (a `.strings` and a
/// `.stringsdict` table of one name have keys of their own).
private struct TableName: Hashable {
    var format: TableFormat
    var name: ExactName

    init(format: TableFormat, name: ExactName) {
        self.format = format
        self.name = name
    }

    /// A localization's table file's (a String Catalog holds every language in one file: none).
    init?(_ place: TablePlace) {
        guard place.localization != nil, place.format != .xcstrings else { return nil }
        self.init(format: place.format, name: ExactName(place.table))
    }
}
