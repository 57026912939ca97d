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

    /// The served table, or nil when no layer is present (the localization has no such table).
    public static func compose(_ layers: [(layer: Layer, table: Table)]) -> Table? {
        guard !layers.isEmpty else { return nil }
        if layers.count == 1 { return layers[0].table }
        return layers.sorted { $0.layer < $1.layer }.reduce(Table()) { $0.overlaid(with: $1.table) }
    }
}
