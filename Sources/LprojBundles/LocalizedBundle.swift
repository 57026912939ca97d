#if canImport(Glibc)
import Glibc
#endif
import LprojFormats
import LprojPaths
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
        let listing = try BundleListing(path: path, limits: limits, exclusions: exclusions, links: links)
        var tables: [String: [String: Table]] = [:]
        var diagnostics = listing.diagnostics
        for localization in listing.localizations {
            let read = listing.tables(of: localization)
            diagnostics += read.diagnostics
            if !read.tables.isEmpty { tables[localization] = read.tables }
        }
        return LocalizedBundle(path: path, tables: tables, diagnostics: diagnostics)
    }

    /// The table `name` of `localization`, nil when that localization has none.
    public func table(_ name: String, localization: String) -> Table? {
        tables[localization]?[name]
    }
}
