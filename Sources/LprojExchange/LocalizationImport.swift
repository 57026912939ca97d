import Foundation
import LprojBundles
import LprojEditing
import LprojFormats
import LprojLanguages
import LprojPaths
import LprojTables

/// Translations from an XLIFF document brought back into the tables its
/// `<file>`s name — a String Catalog, or a bundle's `.strings` and
/// `.stringsdict` — through `TableWriter`: format-preserving, locked, each
/// file written once. Everything is checked before anything is written: a
/// `<file>` naming no table, or a table whose keys are in another language
/// than its `source-language`; a unit whose id is not one Xcode writes, or
/// names a key no localization of the table has (an import translates, it
/// never adds keys); a plural form the language never selects, a
/// translation that reads its arguments otherwise than its source
/// (`BundleCheck`'s rule) or names a variable the source does not — one
/// problem each, with file and line, and nothing is written anywhere.
public struct LocalizationImport: Sendable {
    /// One table's translations in one language.
    public struct Plan: Sendable {
        public var writer: TableWriter
        public var language: String
        /// The `<file original>` and where the XLIFF says it.
        public var original: String
        public var edits: [TableEdit] = []
        public var added = 0
        public var changed = 0
        public var unchanged = 0
    }

    /// A unit or file refused: `path:line:1: error: message`.
    public struct Problem: Sendable, CustomStringConvertible {
        public var path: String
        public var line: Int
        public var message: String

        public var description: String { "\(path):\(line):1: error: \(message)" }
    }

    public private(set) var plans: [Plan] = []
    public private(set) var problems: [Problem] = []
    /// Writes what the checks refuse (`TableWriter.force`).
    public var force = false

    /// Plans the import of `document` (read from `path`); a relative
    /// `original` is found under `root`.
    public init(_ document: XLIFFDocument, path: String, root: String) {
        for file in document.files {
            plan(file, path: path, root: root)
        }
    }

    /// Makes every plan's edits (nothing when a problem was found); the changes written.
    public func apply() throws(TableWriter.Failure) -> [TableWriter.Change] {
        guard problems.isEmpty else { return [] }
        var changes: [TableWriter.Change] = []
        for plan in plans where !plan.edits.isEmpty {
            var writer = plan.writer
            writer.force = force
            changes += try writer.apply(plan.edits, language: plan.language)
        }
        return changes
    }

    // MARK: - Planning

    private mutating func plan(_ file: XLIFFDocument.File, path: String, root: String) {
        func refuse(_ line: Int, _ message: String) { problems.append(Problem(path: path, line: line, message: message)) }
        guard let language = file.targetLanguage, !language.isEmpty else {
            return refuse(file.line, "<file original=\"\(file.original)\"> has no target-language: there is no translation to import")
        }
        guard LanguageTag(language) != nil else { return refuse(file.line, "target-language \"\(language)\" is not a language tag") }
        // Tables are written where the export ran, never elsewhere because a file says so.
        guard Self.isInside(file.original, root: root) else {
            return refuse(file.line, "\"\(file.original)\" is outside \(root) (import from the directory the export ran in, or give --root)")
        }
        guard let (bundle, table, encoding) = Self.location(of: file.original, root: root) else {
            return refuse(file.line, "\"\(file.original)\" is not a String Catalog (.xcstrings) or a table in an .lproj directory")
        }
        let catalog = bundle + "/" + table + ".xcstrings"
        if encoding == .catalog, !FileManager.default.fileExists(atPath: catalog) {
            return refuse(file.line, "\"\(file.original)\" names \(catalog), which does not exist")
        }
        var writer: TableWriter
        let current: Table?
        let known: (keys: Set<String>, sourceLanguage: String?)
        do {
            writer = try TableWriter(bundle: bundle, table: table)
            writer.gate = WriteGate(roots: [root])
            // Where the translations would go must be inside the roots (a link out is named as such, before anything else).
            let target = try writer.file(for: language)
            do { _ = try writer.gate.place(of: target) } catch { return refuse(file.line, "\"\(file.original)\": \(error)") }
            current = try writer.current(language: language).table
            known = try writer.keysAndSourceLanguage()
        } catch {
            return refuse(file.line, "\"\(file.original)\": \(error)")
        }
        if let source = known.sourceLanguage, LanguageTag(source)?.identifier != LanguageTag(file.sourceLanguage)?.identifier {
            return refuse(file.line, "source-language \"\(file.sourceLanguage)\" is not the language \"\(file.original)\" is written in (\(source)): "
                          + "this XLIFF was exported from another source")
        }
        // A bundle with a catalog of that table is edited through the catalog, whose ids are the catalog's.
        let unitEncoding = FileManager.default.fileExists(atPath: catalog) ? TransUnitID.Encoding.catalog : encoding
        // A catalog's substitution forms write the variable's argument as %arg: read as the specifier the source gives it.
        let sourceTable = unitEncoding == .catalog ? try? writer.current(language: file.sourceLanguage).table : nil
        var plan = Plan(writer: writer, language: language, original: file.original)
        let categories = PluralCategory.names(of: language)
        // A key translated by plural or device in this file has no single text: its plain unit (an
        // export offers one when the translation did not vary yet) gives way to the variations.
        let varied = Set(file.units.compactMap { unit -> String? in
            guard unit.target != nil, let id = TransUnitID(unit.id, encoding: unitEncoding), let first = id.steps.first else { return nil }
            if case .substitution = first { return nil }
            return id.key
        })
        for unit in file.units {
            guard var target = unit.target else { continue }
            if encoding == .stringsDict, TransUnitID.isStringsDictSetting(unit.id) {
                if target != unit.source { refuse(unit.line, "unit \"\(unit.id)\": a plural rule's setting, which is not translated") }
                continue
            }
            guard let id = TransUnitID(unit.id, encoding: unitEncoding) ?? TransUnitID(unit.id, encoding: encoding) else {
                refuse(unit.line, "unit \"\(unit.id)\": not an id Xcode writes for a \(encoding == .catalog ? "String Catalog" : ".stringsdict") unit")
                continue
            }
            guard known.keys.contains(id.key) else {
                refuse(unit.line, "unit \"\(unit.id)\": no localization of \"\(file.original)\" has the key \"\(id.key)\" "
                       + "(an import translates keys, it adds none: add the key to the source first)")
                continue
            }
            // A substitution's argument comes as the specifier it stands for (as exported): the catalog writes it %arg.
            let received = target
            if unitEncoding == .catalog { target = id.imported(target, in: current?[id.key] ?? sourceTable?[id.key]) }
            let existing = current?[id.key].flatMap { id.text(in: $0) }
            // The state the XLIFF gives a catalog's own text (a translator marking it reviewed, or as needing review).
            let state = unitEncoding == .catalog && id.steps.isEmpty ? Self.catalogState(unit.state) : nil
            if existing == target || (id.steps.isEmpty && unitEncoding == .catalog && varied.contains(id.key)) {
                // The same text in another state is a change all the same.
                // (A catalog's text kept plain is translated: only other states are kept with it.)
                if existing == target, let state, let entry = current?[id.key], (entry.state ?? .translated) != state {
                    plan.edits.append(.setState(key: id.key, state: state))
                    plan.changed += 1
                } else {
                    plan.unchanged += 1
                }
                continue
            }
            // Checked as printf reads them: a %arg (a hand-made XLIFF's) as the specifier it stands for.
            var argument = "%lld"
            if let entry = sourceTable?[id.key] ?? current?[id.key], case let specifier = id.exchanged("%arg", in: entry), specifier != "%arg" {
                argument = specifier
            }
            for message in Self.argumentProblems(source: unit.source.replacingOccurrences(of: "%arg", with: argument),
                                                 target: received.replacingOccurrences(of: "%arg", with: argument),
                                                 sourceLanguage: file.sourceLanguage, language: language) {
                refuse(unit.line, "unit \"\(unit.id)\": the translation \(message)")
            }
            if unitEncoding != .catalog, case .device? = id.steps.first, let entry = current?[id.key], case .text = entry.value {
                refuse(unit.line, "unit \"\(unit.id)\": \(language) has \"\(id.key)\" as one text, not varied by device; "
                       + "a device's text goes in an entry of \(StringsDictFile.deviceRuleType)")
                continue
            }
            guard let edit = Self.edit(id, value: target, catalog: unitEncoding == .catalog) else {
                refuse(unit.line, "unit \"\(unit.id)\": a .stringsdict holds one text per device, not a device's plural forms; set it in the file")
                continue
            }
            if let category = id.steps.lazy.compactMap({ if case .plural(let category) = $0 { category } else { nil } }).first,
               category != "zero", category != "other", let categories, !categories.contains(category) {
                refuse(unit.line, "unit \"\(unit.id)\": \(BundleCheck.languageInWords(language)) never selects the \"\(category)\" plural form "
                       + "(CLDR: \(BundleCheck.ordered(categories)))")
                continue
            }
            plan.edits.append(edit)
            // A new text comes in translated; one the XLIFF says needs review (or is new) is marked so.
            if let state, state != .translated { plan.edits.append(.setState(key: id.key, state: state)) }
            if existing == nil { plan.added += 1 } else { plan.changed += 1 }
        }
        plans.append(plan)
    }

    /// The String Catalog state an XLIFF 1.2 `state` stands for (nil when it gives none).
    static func catalogState(_ state: String?) -> TranslationState? {
        guard let state else { return nil }
        if state.hasPrefix("needs-review") { return .needsReview }
        switch state {
        case "translated", "signed-off", "final": return .translated
        case "new", "needs-translation", "needs-adaptation", "needs-l10n": return .new
        default: return nil
        }
    }

    /// Whether `original` names a path under `root` (no `..`; an absolute path only within it).
    static func isInside(_ original: String, root: String) -> Bool {
        guard !original.split(separator: "/").contains("..") else { return false }
        guard original.hasPrefix("/") else { return true }
        let path = PathText.tidy(original)
        return root == "/" || path.hasPrefix(root + "/")
    }

    /// The bundle directory, table and id encoding `original` names.
    static func location(of original: String, root: String) -> (bundle: String, table: String, encoding: TransUnitID.Encoding)? {
        let path = PathText.tidy(original.hasPrefix("/") ? original : root + "/" + original)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let name = String(path[path.index(after: slash)...])
        let directory = String(path[..<slash])
        if name.hasSuffix(".xcstrings"), name.count > ".xcstrings".count {
            return (directory.isEmpty ? "/" : directory, String(name.dropLast(".xcstrings".count)), .catalog)
        }
        guard directory.hasSuffix(".lproj"), let parent = directory.lastIndex(of: "/") else { return nil }
        let bundle = String(directory[..<parent])
        for (suffix, encoding) in [(".strings", TransUnitID.Encoding.strings), (".stringsdict", .stringsDict)]
        where name.hasSuffix(suffix) && name.count > suffix.count {
            return (bundle.isEmpty ? "/" : bundle, String(name.dropLast(suffix.count)), encoding)
        }
        return nil
    }

    /// The edit that writes `value` at `id`; nil for a path a `.stringsdict` cannot hold (a device's plural forms).
    public static func edit(_ id: TransUnitID, value: String, catalog: Bool) -> TableEdit? {
        switch id.steps.count {
        case 0:
            return .setText(key: id.key, value: value, comment: nil)
        case 1 where { if case .plural = id.steps[0] { true } else { false } }():
            guard case .plural(let category) = id.steps[0] else { return nil }
            return .setPluralForm(key: id.key, variable: nil, category: category, value: value, valueType: nil)
        case 2 where { if case .substitution = id.steps[0], case .plural = id.steps[1] { true } else { false } }():
            guard case .substitution(let variable) = id.steps[0], case .plural(let category) = id.steps[1] else { return nil }
            return .setPluralForm(key: id.key, variable: variable, category: category, value: value, valueType: nil)
        case 1 where { if case .device = id.steps[0] { true } else { false } }():
            guard case .device(let device) = id.steps[0] else { return nil }
            return .setVariation(key: id.key, path: ["device", device], value: value)
        default:
            guard catalog else { return nil }
            return .setVariation(key: id.key, path: id.steps.flatMap { step -> [String] in
                switch step {
                case .plural(let category): ["plural", category]
                case .device(let device): ["device", device]
                case .substitution(let name): ["substitutions", name]
                }
            }, value: value)
        }
    }

    /// How `target` reads its arguments wrongly against `source`: BundleCheck's errors, and variables the source does not name.
    static func argumentProblems(source: String, target: String, sourceLanguage: String, language: String) -> [String] {
        var problems = BundleCheck.compare(FormatArguments(format: source), FormatArguments(format: target),
                                           development: sourceLanguage, localization: language)
            .filter { $0.severity == .error }.map(\.message)
        let known = variables(in: source)
        for variable in variables(in: target) where !known.contains(variable) {
            problems.append("names the variable %#@\(variable)@, which the source does not have")
        }
        return problems
    }

    /// The `%#@name@` variables a text names.
    static func variables(in text: String) -> [String] {
        var found: [String] = []
        var rest = text[...]
        while let start = rest.range(of: "%#@") {
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(of: "@") else { break }
            found.append(String(rest[..<end]))
            rest = rest[rest.index(after: end)...]
        }
        return found
    }
}
