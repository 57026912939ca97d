#if canImport(Glibc)
import Glibc
#endif
import LprojFormats
import LprojPaths
import LprojTables

/// A bundle's table files by localization, listed but not yet read, so a
/// client reads a localization only when a view first needs it (a
/// service's worker looks up one or two of fifty). The rule is
/// `LocalizedBundle.load`'s: `*.lproj/*.strings|stringsdict` and the
/// `*.xcstrings` directly in the bundle, links as `links` says,
/// `exclusions` left out, a file with errors contributing nothing. String
/// Catalogs hold every language in one file: they are read when listed.
public struct BundleListing: Sendable {
    /// The bundle directory, as given.
    public let path: String
    /// The localizations with a table file (or a catalog's language), sorted by bytes.
    public let localizations: [String]
    /// Problems in the catalogs read while listing.
    public let diagnostics: [Diagnostic]
    /// The `.lproj` directories of each localization (their files are listed again when read).
    private let directories: [String: [String]]
    private let catalogs: [String: [(table: String, contents: Table)]]
    private let limits: TableLimits
    private let links: LinkPolicy
    private let exclusions: Exclusions?

    /// Lists `path`'s table files (and reads its catalogs).
    public init(path: String, limits: TableLimits = TableLimits(), exclusions: Exclusions? = nil, links: LinkPolicy? = nil) throws(TableReadError) {
        let links = links ?? LinkPolicy(under: [path])
        let bundlePlaces = DirectoryPlaces(path)
        var directories: [String: [String]] = [:]
        var catalogs: [String: [(table: String, contents: Table)]] = [:]
        var diagnostics: [Diagnostic] = []
        var reader = TableFileReader(limits: limits)
        for (child, kind) in try Self.entries(of: path, following: links) {
            let childPath = path + "/" + child
            guard exclusions?.excludes(childPath) != true else { continue }
            switch kind {
            case .directory:
                let files = Self.tableFiles(in: childPath, of: path, links: links, exclusions: exclusions)
                guard let localization = files.first?.localization else { continue }
                directories[localization, default: []].append(childPath)
            case .file:
                guard let place = bundlePlaces.place(ofFile: child), place.format == .xcstrings,
                      let file = try? reader.read(path: childPath, links: links) else { continue }
                diagnostics += file.diagnostics
                guard !file.hasErrors, case .catalog(let catalog) = file.contents else { continue }
                for (language, table) in catalog.tables { catalogs[language, default: []].append((place.table, table)) }
            }
        }
        self.path = path
        self.directories = directories
        self.catalogs = catalogs
        self.diagnostics = diagnostics
        self.limits = limits
        self.links = links
        self.exclusions = exclusions
        localizations = Set(directories.keys).union(catalogs.keys).sorted { ExactName($0) < ExactName($1) }
    }

    /// `localization`'s tables as its files are now, each composed from its
    /// layers (`TableLayers`), with the problems of the files read for them.
    /// A table `published` gives (by name: lprojd's image of it, composed
    /// as it serves it) is taken whole, and its files are not read.
    public func tables(of localization: String, published: ((String) -> Table?)? = nil) -> (tables: [String: Table], diagnostics: [Diagnostic]) {
        let files = (directories[localization] ?? []).flatMap { Self.tableFiles(in: $0, of: path, links: links, exclusions: exclusions) }
        var layers: [String: [(layer: TableLayers.Layer, table: Table)]] = [:]
        for catalog in catalogs[localization] ?? [] { layers[catalog.table, default: []].append((.catalog, catalog.contents)) }
        var taken: [String: Table] = [:]
        if let published {
            for name in Set(files.map(\.table)).union(layers.keys) {
                guard let table = published(name) else { continue }
                taken[name] = table
                layers[name] = nil
            }
        }
        var diagnostics: [Diagnostic] = []
        var reader = TableFileReader(limits: limits)
        for file in files where taken[file.table] == nil {
            guard let read = try? reader.read(path: file.path, links: links) else { continue }
            diagnostics += read.diagnostics
            guard !read.hasErrors, case .table(let table) = read.contents else { continue }
            layers[file.table, default: []].append((file.layer, table))
        }
        return (layers.compactMapValues(TableLayers.compose).merging(taken) { $1 }, diagnostics)
    }

    /// The `.strings` and `.stringsdict` files of the `.lproj` directory
    /// `directory` (none when it is no `.lproj`). A catalog inside an `.lproj`
    /// is that directory's own, not this bundle's.
    private static func tableFiles(in directory: String, of bundle: String, links: LinkPolicy, exclusions: Exclusions?)
        -> [(path: String, localization: String, layer: TableLayers.Layer, table: String)] {
        let places = DirectoryPlaces(directory, bundleLike: bundle)
        guard places.lproj != nil, let names = try? entries(of: directory, following: links) else { return [] }
        return names.compactMap { name, kind in
            guard kind == .file, let place = places.place(ofFile: name), let localization = place.localization, place.format != .xcstrings,
                  exclusions?.excludes(directory + "/" + name) != true else { return nil }
            return (directory + "/" + name, localization, TableLayers.Layer(place.format), place.table)
        }
    }

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
