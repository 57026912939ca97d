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

    /// Reads the bundle directory `path` by the rule the daemon follows
    /// (`TablePlace`): every `*.lproj/*.strings|stringsdict` and
    /// `*.xcstrings` directly in it, symbolic links not followed, `exclusions`
    /// left out, a file with errors contributing nothing.
    public static func load(path: String, limits: TableLimits = TableLimits(), exclusions: Exclusions? = nil)
        throws(TableReadError) -> LocalizedBundle {
        let bundlePlaces = DirectoryPlaces(path)
        var layers: [String: [String: [(layer: TableLayers.Layer, table: Table)]]] = [:]
        var diagnostics: [Diagnostic] = []
        func read(_ filePath: String) -> TableFile? {
            guard exclusions?.excludes(filePath) != true, let file = try? TableFile.read(path: filePath, limits: limits) else { return nil }
            diagnostics += file.diagnostics
            return file.hasErrors ? nil : file
        }
        for (child, kind) in try Directory.entries(of: path) {
            let childPath = path + "/" + child
            switch kind {
            case .directory:
                let places = DirectoryPlaces(childPath, bundleLike: path)
                guard places.lproj != nil, exclusions?.excludes(childPath) != true,
                      let files = try? Directory.entries(of: childPath) else { continue }
                for (name, kind) in files where kind == .file {
                    // A catalog inside an .lproj is that directory's own, not this bundle's.
                    guard let place = places.place(ofFile: name), let localization = place.localization,
                          let file = read(childPath + "/" + name), case .table(let table) = file.contents else { continue }
                    layers[localization, default: [:]][place.table, default: []].append((TableLayers.Layer(place.format), table))
                }
            case .file:
                guard let place = bundlePlaces.place(ofFile: child), place.format == .xcstrings,
                      let file = read(childPath), case .catalog(let catalog) = file.contents else { continue }
                for (language, table) in catalog.tables {
                    layers[language, default: [:]][place.table, default: []].append((.catalog, table))
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

/// Listing directories without Foundation's FileManager overhead: names
/// with their kind, symbolic links and other kinds left out (`TablePlace`:
/// links are not followed).
enum Directory {
    enum Kind {
        case directory
        case file
    }

    static func entries(of path: String) throws(TableReadError) -> [(name: String, kind: Kind)] {
        guard let directory = opendir(path) else {
            throw TableReadError(path: path, reason: String(cString: strerror(errno)))
        }
        defer { closedir(directory) }
        var entries: [(name: String, kind: Kind)] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            guard name != ".", name != ".." else { continue }
            var type = entry.pointee.d_type
            if type == UInt8(DT_UNKNOWN) {
                var info = stat()
                guard lstat(path + "/" + name, &info) == 0 else { continue }
                type = (info.st_mode & S_IFMT) == S_IFDIR ? UInt8(DT_DIR) : (info.st_mode & S_IFMT) == S_IFREG ? UInt8(DT_REG) : 0
            }
            if type == UInt8(DT_DIR) { entries.append((name, .directory)) } else if type == UInt8(DT_REG) { entries.append((name, .file)) }
        }
        return entries.sorted { ExactName($0.name) < ExactName($1.name) }
    }
}
