import LprojFormats
import LprojPaths
import LprojTables

/// How a localization's table is made from its files: the `.strings` table,
/// the `.stringsdict` laid over it (its rules win for the same key), and the
/// String Catalog's slice for that language over both. The one rule both
/// `LocalizedBundle.load` and the daemon's catalog use.
public enum TableLayers {
    /// Which file a layer comes from, lowest first.
    public enum Layer: Int, Comparable, Sendable, CaseIterable {
        case strings = 0
        case stringsdict = 1
        case catalog = 2

        public init(_ format: TableFormat) {
            switch format {
            case .strings: self = .strings
            case .stringsdict: self = .stringsdict
            case .xcstrings: self = .catalog
            }
        }

        public static func < (lhs: Layer, rhs: Layer) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Each localization's table composed from `files` (read table files by
    /// path): where each sits (`TablePlace`) says its localization and layer,
    /// a catalog gives each of its languages; a file with errors gives none.
    public static func localizations(of files: [String: TableFile]) -> [String: Table] {
        var layers: [String: [(layer: Layer, table: Table)]] = [:]
        for (path, file) in files where !file.hasErrors {
            switch file.contents {
            case .table(let table):
                guard let localization = TablePlace.of(path)?.localization else { continue }
                layers[localization, default: []].append((Layer(file.format), table))
            case .catalog(let catalog):
                for (language, table) in catalog.tables { layers[language, default: []].append((.catalog, table)) }
            }
        }
        return layers.compactMapValues(compose)
    }

    /// The served table, or nil when no layer is present (the localization has no such table).
    public static func compose(_ layers: [(layer: Layer, table: Table)]) -> Table? {
        guard !layers.isEmpty else { return nil }
        if layers.count == 1 { return layers[0].table }
        return layers.sorted { $0.layer < $1.layer }.reduce(Table()) { $0.overlaid(with: $1.table) }
    }
}
