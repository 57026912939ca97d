import LprojFormats
import LprojLanguages
import LprojTables

/// One String Catalog file checked and compiled (`CatalogCompiler`), as
/// `lprojctl catalog compile` and the build plugin's tool do it — as Xcode
/// builds it: a catalog with errors, or a `sourceLanguage` that is no
/// language tag, is refused, each problem with file, line and column; a
/// plural form its language's CLDR rules never select (`one` in Japanese)
/// is unreachable, not wrong: a warning at its place, and compiled as written.
public struct CatalogCompilation: Sendable {
    /// The table the catalog is: its file name without `.xcstrings`.
    public let table: String
    /// The language the catalog's keys are written in.
    public let sourceLanguage: String
    /// Each language's compiled files.
    public let languages: [String: CatalogCompiler.Language]
    /// What compiles but deserves a look, each `path:line:column: warning: message`.
    public let warnings: [String]

    /// Compiles the catalog `bytes` read from `path` (named so in problems).
    public init(bytes: [UInt8], path: String, states: Set<TranslationState>? = nil) throws(Problems) {
        let file = StringCatalogFile(bytes: bytes, path: path)
        var problems = file.diagnostics.filter { $0.severity == .error }.map(\.description)
        guard !file.diagnostics.containsErrors else { throw Problems(messages: problems) }
        let catalog = file.catalog
        let locations = KeyLocations(path: path, bytes: bytes)
        func place(_ key: String) -> String {
            let (line, column) = locations.location(of: key) ?? (1, 1)
            return "\(path):\(line):\(column)"
        }
        if LanguageTag(catalog.sourceLanguage) == nil {
            let (line, column) = locations.location(ofRootMember: "sourceLanguage") ?? (1, 1)
            problems.append("\(path):\(line):\(column): error: the sourceLanguage \"\(catalog.sourceLanguage)\" is not a language tag")
        }
        var warnings: [String] = []
        for (language, table) in catalog.tables.sorted(by: { $0.key < $1.key }) {
            guard let categories = PluralCategory.categories(of: language) else { continue }
            for (key, entry) in table.sorted(by: { $0.key < $1.key }) {
                for form in Self.pluralForms(entry) where form != "zero" && form != "other" && !categories.contains(form) {
                    warnings.append("\(place(key)): warning: \"\(key)\" in \(language) has a \"\(form)\" plural form, which \(language) never selects "
                                    + "(CLDR: \(categories.joined(separator: ", "))): it is compiled, and no number shows it")
                }
            }
        }
        var compiled: [String: CatalogCompiler.Language] = [:]
        do {
            compiled = try CatalogCompiler.compile(catalog, states: states)
        } catch {
            problems.append("\(place(error.key)): error: \(error)")
        }
        guard problems.isEmpty else { throw Problems(messages: problems) }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        table = name.hasSuffix(".xcstrings") ? String(name.dropLast(".xcstrings".count)) : name
        languages = compiled
        sourceLanguage = catalog.sourceLanguage
        self.warnings = warnings
    }

    /// Why a catalog was not compiled.
    public struct Problems: Error, Sendable {
        /// Each `path:line:column: error: message`.
        public var messages: [String]
    }

    /// The plural categories an entry's variations name.
    private static func pluralForms(_ entry: Entry) -> [String] {
        var found: [String] = []
        func walk(_ variants: Variants) {
            switch variants {
            case .text: break
            case .plural(let forms): found += forms.keys; forms.values.forEach(walk)
            case .device(let forms): forms.values.forEach(walk)
            }
        }
        walk(entry.value)
        entry.substitutions.values.forEach { walk($0.variants) }
        return found.sorted()
    }
}
