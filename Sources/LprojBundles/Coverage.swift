import Foundation
import LprojFormats
import LprojTables

/// How far each localization of a bundle is translated, table by table:
/// what a translator plans (and quotes) on. The keys to translate are the
/// development localization's (and a String Catalog's own keys: one whose
/// source language has no text is its own text); a key counts as
/// translated when the localization has it (`TranslationStatus`), unless a
/// catalog marks it `new`, `stale` or `needs_review`, or its text is the
/// source's, unmarked (`unchanged`).
public struct Coverage: Sendable {
    /// One localization's table.
    public struct Row: Sendable, Equatable {
        public var table: String
        public var language: String
        /// Keys to translate.
        public var total: Int
        public var translated: Int
        /// Keys the localization lacks (or a catalog marks `new`).
        public var missing: Int
        /// Keys a catalog marks `stale` or `needs_review`.
        public var stale: Int
        /// Keys whose text is the development text, not marked as meant to be (`TranslationStatus.unchanged`).
        public var unchanged: Int = 0
        /// Words of the development text of the missing keys.
        public var missingWords: Int
    }

    public let bundle: String
    public let development: String?
    /// By table, then language (the development localization first).
    public let rows: [Row]

    /// The coverage of the bundle directory `path`.
    public init(bundle path: String, development: String? = nil) throws(TableReadError) {
        let bundle = try LocalizedBundle.load(path: path)
        self.bundle = path
        let development = development ?? DevelopmentLocalization.of(bundle)
        self.development = development
        let catalogs = Self.catalogKeys(in: path)
        let names = Set((development.flatMap { bundle.tables[$0] } ?? [:]).keys).union(catalogs.keys).sorted()
        let marks = SameMarks(bundle: path, development: development)
        var tables: [String: [String: Table]] = [:]
        for (language, byName) in bundle.tables { for (name, table) in byName { tables[name, default: [:]][language] = table } }
        let localizations = bundle.localizations
        rows = names.flatMap { name in
            Self.rows(of: name, tables: tables[name] ?? [:], localizations: localizations, development: development,
                      catalogKeys: catalogs[name], marks: marks)
        }
    }

    /// A coverage made of rows already counted (a cache's).
    public init(bundle: String, development: String?, rows: [Row]) {
        self.bundle = bundle
        self.development = development
        self.rows = rows
    }

    /// The rows of table `name`: one per localization (the development one
    /// first, `Base` left out), given the table in each localization that
    /// has it, and the keys of the String Catalog that holds it, if one does.
    public static func rows(of name: String, tables: [String: Table], localizations: [String], development: String?,
                            catalogKeys: [String]?, marks: SameMarks) -> [Row] {
        let reference = development.flatMap { tables[$0] }
        let keys = Set(reference?.sortedKeys ?? []).union(catalogKeys ?? []).sorted()
        guard !keys.isEmpty else { return [] }
        let languages = localizations.filter { $0 != "Base" }.sorted { a, b in
            a == development ? b != development : (b == development ? false : a < b)
        }
        return languages.map { language in
            let table = tables[language]
            var row = Row(table: name, language: language, total: keys.count, translated: 0, missing: 0, stale: 0, missingWords: 0)
            for key in keys {
                // (A catalog key the development language has no text for is its own text.)
                let source = reference?[key] ?? (catalogKeys != nil ? Entry(text: key) : nil)
                let status = TranslationStatus.of(table?[key], source: source, isDevelopment: language == development) {
                    marks.isMarked(key, table: name, localization: language)
                }
                switch status {
                case .stale, .needsReview:
                    row.stale += 1
                case .missing, .new:
                    row.missing += 1
                    row.missingWords += words(in: source.map { text(of: $0) } ?? key)
                case .unchanged:
                    row.unchanged += 1
                case .translated:
                    row.translated += 1
                }
            }
            return row
        }
    }

    /// Each String Catalog's keys to translate, by table name, in the bundle directory `path`.
    public static func catalogKeys(in path: String, only names: Set<String>? = nil) -> [String: [String]] {
        var keys: [String: [String]] = [:]
        for file in ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() where file.hasSuffix(".xcstrings") {
            let name = String(file.dropLast(".xcstrings".count))
            guard names?.contains(name) ?? true, let read = try? TableFile.read(path: path + "/" + file), case .catalog(let catalog) = read.contents else { continue }
            keys[name] = catalog.keys
        }
        return keys
    }

    /// The text a translator reads for an entry: its string, or its `other` forms.
    public static func text(of entry: Entry) -> String {
        if let text = entry.text { return text }
        var parts: [String] = []
        func collect(_ variants: Variants) {
            switch variants {
            case .text(let text): parts.append(text)
            case .plural(let forms), .device(let forms):
                if let other = forms["other"] { collect(other) } else if let first = forms.keys.sorted().first { collect(forms[first]!) }
            }
        }
        collect(entry.value)
        for name in entry.substitutions.keys.sorted() { collect(entry.substitutions[name]!.variants) }
        return parts.joined(separator: " ")
    }

    /// Words as a translator is paid for them: runs of letters or digits (format specifiers and variables left out).
    static func words(in text: String) -> Int {
        var count = 0
        for token in text.split(whereSeparator: { $0.isWhitespace }) {
            if token.hasPrefix("%") { continue }
            if token.contains(where: { $0.isLetter || $0.isNumber }) { count += 1 }
        }
        return count
    }
}
