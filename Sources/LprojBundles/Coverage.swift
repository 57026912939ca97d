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
        // A catalog's keys, and their text when its source language has none.
        var catalogKeys: [String: [String]] = [:]
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() where name.hasSuffix(".xcstrings") {
            guard let file = try? TableFile.read(path: path + "/" + name), case .catalog(let catalog) = file.contents else { continue }
            catalogKeys[String(name.dropLast(".xcstrings".count))] = catalog.keys
        }
        let developmentTables = development.flatMap { bundle.tables[$0] } ?? [:]
        let marks = SameMarks(bundle: path, development: development)
        let names = Set(developmentTables.keys).union(catalogKeys.keys).sorted()
        var rows: [Row] = []
        for name in names {
            let reference = developmentTables[name]
            let keys = Set(reference?.sortedKeys ?? []).union(catalogKeys[name] ?? []).sorted()
            guard !keys.isEmpty else { continue }
            let languages = bundle.localizations.filter { $0 != "Base" }.sorted { a, b in
                a == development ? b != development : (b == development ? false : a < b)
            }
            for language in languages {
                let table = bundle.tables[language]?[name]
                var row = Row(table: name, language: language, total: keys.count, translated: 0, missing: 0, stale: 0, missingWords: 0)
                for key in keys {
                    // (A catalog key the development language has no text for is its own text.)
                    let source = reference?[key] ?? (catalogKeys[name] != nil ? Entry(text: key) : nil)
                    let status = TranslationStatus.of(table?[key], source: source, isDevelopment: language == development) {
                        marks.isMarked(key, table: name, localization: language)
                    }
                    switch status {
                    case .stale, .needsReview:
                        row.stale += 1
                    case .missing, .new:
                        row.missing += 1
                        row.missingWords += Self.words(in: source.map { Self.text(of: $0) } ?? key)
                    case .unchanged:
                        row.unchanged += 1
                    case .translated:
                        row.translated += 1
                    }
                }
                rows.append(row)
            }
        }
        self.rows = rows
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
