#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LprojBundles
import LprojFormats
import LprojLanguages
import LprojPaths
import LprojTables

/// The one writer of tables: every tool that changes a translation
/// (`lprojctl set`, `rm`, `mv`, the studio) goes through it, with the
/// user's own permissions.
///
/// An edit changes the bytes of its entry and no others (`TableEdit`), under
/// the table file's lock (`TableFileLock`: two writers never lose each
/// other's change), replaces the file atomically (`AtomicReplace`: a kill
/// leaves the old file or the new one), is made again on the new content
/// when a writer that takes no lock saved meanwhile, refuses content other
/// than the version it was asked against, and refuses what the checks call
/// an error (`BundleCheck`) unless forced.
public struct TableWriter: Sendable {
    /// The bundle directory, absolute.
    public let bundle: String
    /// The table's name (`Localizable`).
    public let table: String
    /// Whether an edit the checks refuse is written anyway.
    public var force = false
    public var limits = TableLimits()
    /// Where it may write (`WriteGate`): the bundle itself unless set (the studio: the daemon's roots; import: its `--root`).
    public var gate: WriteGate

    /// What one edit did to one localization's table.
    public struct Change: Sendable {
        /// The file written.
        public var file: String
        public var language: String
        public var key: String
        /// The key's new name (`rename`).
        public var newKey: String?
        public var before: Entry?
        public var after: Entry?
        public var previousVersion: String
        public var version: String
        /// Whether the file (and perhaps its `.lproj`) was made by this edit.
        public var created: Bool
    }

    /// Why nothing was written.
    /// What part of an edit an `invalid` failure is about: a caller (the
    /// studio's 400, a form's field) tells it without reading the message.
    public enum Field: String, Sendable {
        case bundle, table, language, key, plural, value, file
    }

    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// A request that cannot be carried out: an unknown bundle or
        /// language, a key that is not there, a plural category the language
        /// does not have, a file that cannot be edited.
        case invalid(Field, String)
        /// The table is not at the version the edit was made on.
        case stale(key: String, language: String, current: Entry?, version: String)
        /// The checks find errors the edit would bring in.
        case refused([Diagnostic])
        /// The caller may not change the file (a read-only table or directory).
        case forbidden(String)

        public var description: String {
            switch self {
            case .invalid(_, let message), .forbidden(let message): return message
            case .stale(let key, let language, let current, let version):
                return "the \(language) table changed since that version (now \(version)); \"\(key)\" is now "
                    + (current.map { StringsWriter.quoted(Resolver.shown($0, in: language)) } ?? "missing")
            case .refused(let diagnostics):
                return diagnostics.map(\.description).joined(separator: "\n")
            }
        }
    }

    /// A writer of table `table` in the bundle directory `bundle`.
    public init(bundle: String, table: String = "Localizable") throws(Failure) {
        let absolute = PathText.tidy(PathText.absolute(bundle))
        var status = stat()
        guard stat(absolute, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw .invalid(.bundle, "\(bundle): not a bundle directory")
        }
        guard !table.isEmpty, !table.contains("/"), !table.hasPrefix(".") else { throw .invalid(.table, "'\(table)' is not a table name") }
        self.bundle = absolute
        self.table = table
        gate = WriteGate(roots: [absolute])
    }

    // MARK: - Edits

    /// Sets `key`'s text in `language` (its comment too, when given).
    public func set(_ key: String, to value: String, language: String, comment: String? = nil, expecting: EditExpectation = .anything) throws(Failure) -> Change {
        let target = try self.target(language: language)
        let file = target.catalog ?? (target.hasRule(key, limits: limits) ? target.stringsdict : target.strings)
        return try edit([.setText(key: key, value: value, comment: comment)], in: file!, target: target, expecting: expecting)[0]
    }

    /// Sets one plural form of `key` in `language`: of the variable
    /// `variable` (a `.stringsdict`'s, or a catalog's substitution), or of a
    /// catalog entry's own plural variations.
    public func setPluralForm(_ key: String, variable: String?, category: String, to value: String, language: String,
                              expecting: EditExpectation = .anything) throws(Failure) -> Change {
        let target = try self.target(language: language)
        let development = (try? loadTables().table(development: true)) ?? nil
        return try edit([Self.pluralEdit(key, variable: variable, category: category, value: value, development: development)],
                        in: try pluralFile(target, variable: variable, category: category), target: target, expecting: expecting)[0]
    }

    /// Makes several edits of `language`'s table, each file written once
    /// (under its lock, checked as a whole, replaced atomically): what an
    /// import of many translations does (`expecting` checked at each file), or
    /// the studio's save of a key's forms and format at once. Only `setText`,
    /// `setPluralForm`, `setVariation` and `setState`.
    public func apply(_ edits: [TableEdit], language: String, expecting: EditExpectation = .anything) throws(Failure) -> [Change] {
        let target = try self.target(language: language)
        var byFile: [String: [TableEdit]] = [:]
        var order: [String] = []
        // A key given plural forms here is a rule: its text is the rule's format, written after the forms make the rule
        // (each rule's "other" form first: a rule is made by it).
        let rules = Set(edits.compactMap { edit -> String? in if case .setPluralForm(let key, _, _, _, _, _) = edit { key } else { nil } })
        func rank(_ edit: TableEdit) -> Int {
            guard case .setPluralForm(_, _, let category, _, _, _) = edit else { return 2 }
            return category == "other" ? 0 : 1
        }
        let ordered = edits.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
        // Read once for the whole batch: the development table (new rules take its format) and the keys the .stringsdict holds.
        let development = rules.isEmpty ? nil : ((try? loadTables().table(development: true)) ?? nil)
        var heldRules: Set<String> = []
        if target.catalog == nil, let stringsdict = target.stringsdict, case .table(let table)? = (try? TableFile.read(path: stringsdict, limits: limits))?.contents {
            heldRules = Set(table.keys)
        }
        for edit in ordered {
            let file: String
            var planned = edit
            switch edit {
            case .setText(let key, _, _):
                file = target.catalog ?? (rules.contains(key) || heldRules.contains(key) ? target.stringsdict! : target.strings!)
            case .setPluralForm(let key, let variable, let category, let value, _, _):
                file = try pluralFile(target, variable: variable, category: category)
                planned = Self.pluralEdit(key, variable: variable, category: category, value: value, development: development)
            case .setVariation:
                guard let variationFile = target.catalog ?? target.stringsdict else {
                    throw .invalid(.value, "device variations are written into String Catalogs and .stringsdict files only")
                }
                file = variationFile
            case .setState:
                guard let catalog = target.catalog else { throw .invalid(.value, "a translation's state is kept by String Catalogs only") }
                file = catalog
            case .remove, .rename:
                throw .invalid(.value, "only texts, plural forms, variations and states are applied together")
            }
            if byFile[file] == nil { order.append(file) }
            byFile[file, default: []].append(planned)
        }
        var changes: [Change] = []
        for file in order { changes += try edit(byFile[file]!, in: file, target: target, expecting: expecting) }
        return changes
    }

    /// The file a plural form of `target`'s language goes to.
    private func pluralFile(_ target: Target, variable: String?, category: String) throws(Failure) -> String {
        guard Variants.pluralCategories.contains(category) else {
            throw .invalid(.plural, "'\(category)' is not a plural category (\(Variants.pluralCategories.joined(separator: ", ")))")
        }
        if category != "zero", category != "other", let categories = PluralCategory.names(of: target.language), !categories.contains(category) {
            throw .invalid(.plural, "\(BundleCheck.languageInWords(target.language)) has no \"\(category)\" plural form (CLDR: \(BundleCheck.ordered(categories)))")
        }
        guard let file = target.catalog ?? target.stringsdict else { throw .invalid(.file, "no table file") }
        if target.catalog == nil, variable == nil { throw .invalid(.plural, "a .stringsdict plural form belongs to a variable: --plural VARIABLE:\(category)") }
        return file
    }

    /// A plural form's edit: a variable or entry written anew takes the development language's value type and format.
    private static func pluralEdit(_ key: String, variable: String?, category: String, value: String, development: Table?) -> TableEdit {
        let original = development?[key]
        let valueType = variable.flatMap { original?.substitutions[$0]?.formatSpecifier }
        var format: String?
        if case .text(let text)? = original?.value, variable.map({ original?.substitutions[$0] != nil }) == true { format = text }
        return .setPluralForm(key: key, variable: variable, category: category, value: value, valueType: valueType, format: format)
    }

    /// Removes `key` from `language`'s table, or (nil) from every
    /// localization's; a key that is in none of them is an error.
    public func remove(_ key: String, language: String?, expecting: EditExpectation = .anything) throws(Failure) -> [Change] {
        try everywhere(key, language: language) { target, file, catalogLanguage throws(Failure) in
            try edit([.remove(key: key)], in: file, target: target, catalogLanguage: catalogLanguage, expecting: expecting)[0]
        }
    }

    /// Renames `key` to `newKey` in every localization of the table.
    public func rename(_ key: String, to newKey: String) throws(Failure) -> [Change] {
        let tables = try loadTables()
        if let holder = tables.languages.first(where: { tables.composed($0)?[newKey] != nil }) {
            throw .invalid(.key, "\"\(newKey)\" is already a key of \(holder)'s \(table) table; remove it first")
        }
        return try everywhere(key, language: nil) { target, file, catalogLanguage throws(Failure) in
            var change = try edit([.rename(key: key, to: newKey)], in: file, target: target, catalogLanguage: catalogLanguage, expecting: .anything)[0]
            change.newKey = newKey
            return change
        }
    }

    /// Whether `key` is in `language`'s table (nil: in any localization's).
    public func holds(_ key: String, language: String?) throws(Failure) -> Bool {
        let tables = try loadTables()
        if let language { return tables.composed(try target(language: language).language)?[key] != nil }
        return tables.languages.contains { tables.composed($0)?[key] != nil }
    }

    /// The file a text `set` of `language` writes (the catalog, or the `.lproj`'s `.strings`; it may not exist yet).
    public func file(for language: String) throws(Failure) -> String {
        let target = try target(language: language)
        return target.catalog ?? target.strings!
    }

    /// `language`'s table as it is on disk and its version.
    public func current(language: String) throws(Failure) -> (table: Table?, version: String) {
        let name = try target(language: language).language
        // Only that localization's files: a table is composed of its own layers.
        let table = try loadTables(only: name).composed(name)
        return (table, TableVersion.of(table))
    }

    /// Every key the table has in any localization (a String Catalog's keys
    /// whether or not any language has a text for them), and the language
    /// its keys are written in: the catalog's `sourceLanguage`, else the
    /// bundle's development localization.
    public func keysAndSourceLanguage() throws(Failure) -> (keys: Set<String>, sourceLanguage: String?) {
        let tables = try loadTables()
        var keys = Set<String>()
        var sourceLanguage = tables.development
        for file in tables.files.values where !file.hasErrors {
            switch file.contents {
            case .table(let table): keys.formUnion(table.entries.keys)
            case .catalog(let catalog):
                keys.formUnion(catalog.keys)
                for table in catalog.tables.values { keys.formUnion(table.entries.keys) }
                sourceLanguage = catalog.sourceLanguage
            }
        }
        return (keys, sourceLanguage)
    }

    /// Changes the table's String Catalog as a whole with `body`, under its
    /// lock, and replaces it atomically when its bytes changed (`dryRun`:
    /// never). A catalog that does not exist starts empty in `sourceLanguage`.
    /// Returns `body`'s result and whether the file was written.
    public func updateCatalog<Result>(sourceLanguage: String = "en", dryRun: Bool = false,
                                      _ body: (inout StringCatalogDocument) throws(Failure) -> Result) throws(Failure) -> (result: Result, written: Bool) {
        let file = TablePlace.catalog(table, in: bundle)
        let place = try Self.failing { () throws(TableEditError) in try gate.place(of: file) }
        let directory = String(place[..<place.lastIndex(of: "/")!])
        for _ in 0..<8 {
            let lock = try Self.failing { () throws(TableEditError) in try TableFileLock(path: place, directory: directory) }
            let bytes = try Self.failing { () throws(TableEditError) in try lock.read(path: place, limit: limits.maximumFileBytes) }
            var document: StringCatalogDocument
            if let bytes {
                let parsed = TableFile(bytes: bytes, path: file, format: .xcstrings, limits: limits)
                if parsed.hasErrors { throw .refused(parsed.diagnostics.filter { $0.severity == .error }) }
                document = try Self.failing { () throws(TableEditError) in try StringCatalogDocument(bytes: bytes, path: file) }
            } else {
                document = StringCatalogDocument(newCatalogAt: file, sourceLanguage: sourceLanguage)
            }
            let result = try body(&document)
            let output = document.bytes
            guard !dryRun, output != bytes else { return (result, false) }
            let written: Bool
            do {
                written = try AtomicReplace.write(output, to: place, name: String(place[place.index(after: place.lastIndex(of: "/")!)...]),
                                                  directory: directory, expected: lock.status)
            } catch {
                throw Self.failure(error)
            }
            if written { return (result, true) }
        }
        throw .invalid(.file, "\(file): changed by another program on every try; try again")
    }
}
