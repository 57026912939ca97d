import Foundation
import LprojBundles
import LprojFormats
import LprojLanguages
import LprojPaths
import LprojTables

/// A table made into one `<file>` of an XLIFF document for one language, as
/// Xcode's "Export Localizations" makes it: a unit per text the source
/// language has, plural forms for every category the target language's
/// CLDR rules select (a form the source lacks shows the source's `other`),
/// variations the translation has beyond the source's as well, the
/// translation as the target with its state, the comment as the note.
public struct LocalizationExport: Sendable {
    /// The `<file original>`: the table's path as the reader should find it again.
    public var original: String
    public var encoding: TransUnitID.Encoding
    /// The keys to translate, in the order to write them.
    public var keys: [String]
    /// The source language's entries; a key without one is its own text.
    public var source: Table
    public var comments: [String: String]

    public init(original: String, encoding: TransUnitID.Encoding, keys: [String], source: Table, comments: [String: String] = [:]) {
        self.original = original
        self.encoding = encoding
        self.keys = keys
        self.source = source
        self.comments = comments
    }

    /// The `<file>` for `language`, whose table is `target`.
    public func file(sourceLanguage: String, language: String, target: Table?) -> XLIFFDocument.File {
        let categories = PluralCategory.categories(of: language) ?? ["other"]
        var units: [XLIFFDocument.Unit] = []
        for key in keys {
            let sourceEntry = source[key] ?? Entry(text: key)
            let targetEntry = target?[key]
            var ids = Self.ids(of: sourceEntry, key: key, categories: categories)
            if let targetEntry {
                let known = Set(ids)
                ids += TransUnitID.texts(of: targetEntry, key: key).map(\.id).filter { !known.contains($0) }
            }
            for id in ids {
                let text = targetEntry.flatMap { id.exchangedText(in: $0) }
                units.append(XLIFFDocument.Unit(id: id.id(encoding), source: Self.sourceText(id, in: sourceEntry), target: text,
                                                state: text == nil ? nil : Self.state(of: targetEntry!), note: comments[key]))
            }
        }
        return XLIFFDocument.File(original: original, sourceLanguage: sourceLanguage, targetLanguage: language, units: units)
    }

    /// The text of `id` in the source entry: where a form is missing, the `other` form, else the entry's own text.
    public static func sourceText(_ id: TransUnitID, in entry: Entry) -> String {
        if let text = id.exchangedText(in: entry) { return text }
        var other = id
        other.steps = id.steps.map { if case .plural = $0 { .plural("other") } else { $0 } }
        if let text = other.exchangedText(in: entry) { return text }
        return TransUnitID(key: id.key).text(in: entry) ?? entry.text ?? id.key
    }

    /// The ids of `entry`'s texts, each plural rule with exactly the target language's categories (and any `zero` it has).
    static func ids(of entry: Entry, key: String, categories: [String]) -> [TransUnitID] {
        var ids: [TransUnitID] = []
        var seen: Set<TransUnitID> = []
        for (id, _) in TransUnitID.texts(of: entry, key: key) {
            var prefix: [TransUnitID.Step] = []
            var suffix = id.steps[...]
            // Up to the first plural step, then one id per category of the target language.
            while let step = suffix.first, !({ if case .plural = step { true } else { false } }()) {
                prefix.append(step)
                suffix = suffix.dropFirst()
            }
            guard case .plural(let category)? = suffix.first else {
                if seen.insert(id).inserted { ids.append(id) }
                continue
            }
            let forms = category == "zero" ? ["zero"] + categories : categories
            for form in Variants.pluralCategories where forms.contains(form) {
                let expanded = TransUnitID(key: key, steps: prefix + [.plural(form)] + suffix.dropFirst())
                if seen.insert(expanded).inserted { ids.append(expanded) }
            }
        }
        return ids
    }

    /// XLIFF's state for a translation in `entry`'s state.
    static func state(of entry: Entry) -> String {
        switch entry.state {
        case .new: "new"
        case .needsReview: "needs-review-translation"
        case .translated, .stale, nil: "translated"
        }
    }
}

extension LocalizationExport {
    /// A table ready to export: what to translate and every language's translations.
    public struct Source: Sendable {
        public var export: LocalizationExport
        public var sourceLanguage: String
        /// The table of each language.
        public var translations: [String: Table]

        /// The `<file>` for `language`.
        public func file(language: String) -> XLIFFDocument.File {
            export.file(sourceLanguage: sourceLanguage, language: language, target: translations[language])
        }
    }

    /// Why a table cannot be exported: each problem as `file:line:column: error: …`.
    public struct Failure: Error, Sendable {
        public var problems: [String]
    }

    /// The String Catalog at `path` (absolute): its keys to translate but stale ones; `original` relative to `base`.
    public static func catalog(at path: String, base: String, limits: TableLimits = TableLimits()) throws(Failure) -> Source {
        let bytes: [UInt8]
        do {
            guard let read = try TableFile.readBytes(path: path, limit: limits.maximumFileBytes) else {
                throw Failure(problems: ["\(path): error: larger than \(limits.maximumFileBytes) bytes"])
            }
            bytes = read
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(problems: ["\(path): error: cannot read: \(error)"])
        }
        let file = StringCatalogFile(bytes: bytes, path: path)
        guard !file.diagnostics.containsErrors else { throw Failure(problems: file.diagnostics.filter { $0.severity == .error }.map(\.description)) }
        let document: StringCatalogDocument
        do {
            document = try StringCatalogDocument(bytes: bytes, path: path)
        } catch {
            throw Failure(problems: [error.description])
        }
        let catalog = file.catalog
        let translatable = Set(catalog.keys)
        let keys = document.keys.filter { translatable.contains($0) && document.extractionState(of: $0) != "stale" }
        let comments = Dictionary(uniqueKeysWithValues: keys.compactMap { key in document.comment(of: key).map { (key, $0) } })
        let export = LocalizationExport(original: PathText.relative(path, to: base), encoding: .catalog, keys: keys,
                                        source: catalog.tables[catalog.sourceLanguage] ?? Table(), comments: comments)
        return Source(export: export, sourceLanguage: catalog.sourceLanguage, translations: catalog.tables)
    }

    /// Every table of the bundle at `path` (absolute), or those named: the
    /// development localization's `.strings` and `.stringsdict` each a file
    /// (a table with a catalog: the catalog), `original` relative to `base`.
    public static func bundle(at path: String, base: String, tables names: [String]?, limits: TableLimits = TableLimits()) throws(Failure) -> [Source] {
        let bundle: LocalizedBundle
        do {
            bundle = try LocalizedBundle.load(path: path, limits: limits)
        } catch {
            throw Failure(problems: ["\(path): error: cannot read the bundle: \(error)"])
        }
        let errors = bundle.diagnostics.filter { $0.severity == .error }
        guard errors.isEmpty else { throw Failure(problems: errors.map(\.description)) }
        guard let development = DevelopmentLocalization.of(bundle) else {
            throw Failure(problems: ["\(path): error: no development localization (no en.lproj, and no CFBundleDevelopmentRegion in Info.plist)"])
        }
        let present = Set(bundle.tables.values.flatMap(\.keys))
        var sources: [Source] = []
        for name in (names ?? present.sorted()) {
            guard present.contains(name) else { throw Failure(problems: ["\(path): error: no localization has a \(name) table"]) }
            let translations = bundle.tables.compactMapValues { $0[name] }
            if FileManager.default.fileExists(atPath: TablePlace.catalog(name, in: path)) {
                sources.append(try catalog(at: TablePlace.catalog(name, in: path), base: base, limits: limits))
                continue
            }
            let files = TablePlace.files(of: name, localization: development, in: path)
            for (file, encoding) in [(files.strings, TransUnitID.Encoding.strings), (files.stringsdict, .stringsDict)] {
                guard let read = try? TableFile.read(path: file, limits: limits), case .table(let table) = read.contents else { continue }
                let comments = encoding == .strings
                    ? ((try? TableFile.readBytes(path: file, limit: limits.maximumFileBytes)).flatMap { $0 }.map { TableComments.of($0, format: .strings) } ?? [:])
                    : [:]
                let export = LocalizationExport(original: PathText.relative(file, to: base), encoding: encoding,
                                                keys: table.keys.sorted(by: XcodeOrder.precedes), source: table, comments: comments)
                sources.append(Source(export: export, sourceLanguage: LanguageTag(development)?.identifier ?? development, translations: translations))
            }
        }
        return sources
    }
}
