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
    /// `*.xcstrings` directly in it, symbolic links followed where `links`
    /// says (by default: links that lead inside the bundle — the daemon's
    /// rule, `LinkPolicy`, with the bundle for its roots), `exclusions`
    /// left out, a file with errors contributing nothing.
    public static func load(path: String, limits: TableLimits = TableLimits(), exclusions: Exclusions? = nil, links: LinkPolicy? = nil)
        throws(TableReadError) -> LocalizedBundle {
        let links = links ?? LinkPolicy(under: [path])
        let bundlePlaces = DirectoryPlaces(path)
        var layers: [String: [String: [(layer: TableLayers.Layer, table: Table)]]] = [:]
        var diagnostics: [Diagnostic] = []
        var reader = TableFileReader(limits: limits)
        func read(_ filePath: String) -> TableFile? {
            guard exclusions?.excludes(filePath) != true, let file = try? reader.read(path: filePath, links: links) else { return nil }
            diagnostics += file.diagnostics
            return file.hasErrors ? nil : file
        }
        for (child, kind) in try entries(of: path, following: links) {
            let childPath = path + "/" + child
            switch kind {
            case .directory:
                let places = DirectoryPlaces(childPath, bundleLike: path)
                guard places.lproj != nil, exclusions?.excludes(childPath) != true,
                      let files = try? entries(of: childPath, following: links) else { continue }
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

extension LocalizedBundle {
    /// A directory's entries in byte order, links followed as `links` says.
    private static func entries(of path: String, following links: LinkPolicy) throws(TableReadError)
        -> [(name: String, kind: DirectoryListing.Kind)] {
        var entries: [(name: String, kind: DirectoryListing.Kind)] = []
        guard DirectoryListing.forEachName(of: path, following: links, { entries.append(($0, $1)) }) else {
            throw TableReadError(path: path, reason: String(cString: strerror(errno)))
        }
        return entries.sorted { ExactName($0.name) < ExactName($1.name) }
    }
}
