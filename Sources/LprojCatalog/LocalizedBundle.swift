#if canImport(Glibc)
import Glibc
#endif
import LprojTables

/// A bundle's tables read from disk, as one immutable value: for each
/// localization (`.lproj` name, or a String Catalog language) its tables,
/// `.strings` with `.stringsdict` and catalog entries laid over them.
public struct LocalizedBundle: Sendable {
    /// The bundle directory, as given.
    public let path: String
    /// Tables by localization, then by table name (`Localizable`, `InfoPlist`).
    public let tables: [String: [String: Table]]
    /// Problems in the files read. Files with errors contribute nothing.
    public let diagnostics: [Diagnostic]

    /// The localizations present, sorted (including `Base` when there is one).
    public var localizations: [String] { tables.keys.sorted() }

    public init(path: String, tables: [String: [String: Table]], diagnostics: [Diagnostic] = []) {
        self.path = path
        self.tables = tables
        self.diagnostics = diagnostics
    }

    /// Reads every `*.lproj/*.strings|stringsdict` and `*.xcstrings` directly
    /// in the bundle directory `path`.
    public static func load(path: String, limits: TableLimits = TableLimits()) throws(TableReadError) -> LocalizedBundle {
        let children = try Directory.entries(of: path)
        var layers: [String: [String: [(layer: TableLayers.Layer, table: Table)]]] = [:]
        var diagnostics: [Diagnostic] = []
        for child in children {
            let childPath = path + "/" + child
            if child.hasSuffix(".lproj") {
                let localization = String(child.dropLast(6))
                guard let files = try? Directory.entries(of: childPath) else { continue }
                for name in files {
                    guard let format = TableFormat(path: name), format != .xcstrings else { continue }
                    guard let file = try? TableFile.read(path: childPath + "/" + name, limits: limits) else { continue }
                    diagnostics += file.diagnostics
                    guard !file.hasErrors, case .table(let table) = file.contents else { continue }
                    let tableName = String(name[..<name.lastIndex(of: ".")!])
                    layers[localization, default: [:]][tableName, default: []].append((TableLayers.Layer(format), table))
                }
            } else if TableFormat(path: child) == .xcstrings {
                guard let file = try? TableFile.read(path: childPath, limits: limits) else { continue }
                diagnostics += file.diagnostics
                guard !file.hasErrors, case .catalog(let catalog) = file.contents else { continue }
                let tableName = String(child.dropLast(".xcstrings".count))
                for (language, table) in catalog.tables {
                    layers[language, default: [:]][tableName, default: []].append((.catalog, table))
                }
            }
        }
        let tables = layers.mapValues { byName in byName.compactMapValues(TableLayers.compose) }
        return LocalizedBundle(path: path, tables: tables, diagnostics: diagnostics)
    }

    /// The table `name` of `localization`, nil when that localization has none.
    public func table(_ name: String, localization: String) -> Table? {
        tables[localization]?[name]
    }
}

/// Listing directories without Foundation's FileManager overhead.
enum Directory {
    static func entries(of path: String) throws(TableReadError) -> [String] {
        guard let directory = opendir(path) else {
            throw TableReadError(path: path, reason: String(cString: strerror(errno)))
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}
