#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LprojBundles
import LprojFormats
import LprojLanguages
import LprojPaths
import LprojTables

/// One file changed: under its lock, at the version asked for, checked,
/// read back, replaced atomically — made again on the new content when a
/// writer that takes no lock saved meanwhile.
extension TableWriter {
    /// `edits` made to one file in turn and written once. `catalogLanguage`:
    /// the catalog language edited, nil for all (the target's language unless said).
    func edit(_ edits: [TableEdit], in file: String, target: Target, catalogLanguage: String?? = .none,
              expecting: EditExpectation) throws(Failure) -> [Change] {
        // A table that is a link is written through to the file it names (the tables know it by its name here).
        let place = try Self.failing { () throws(TableEditError) in try gate.place(of: file) }
        let name = String(place[place.index(after: place.lastIndex(of: "/")!)...])
        let directory = String(place[..<place.lastIndex(of: "/")!])
        let format = TableFormat(path: file)!
        for _ in 0..<8 {
            let lock = try Self.failing { () throws(TableEditError) in try TableFileLock(path: place, directory: directory) }
            let bytes = try Self.failing { () throws(TableEditError) in try lock.read(path: place, limit: limits.maximumFileBytes) }
            var tables = try loadTables(except: file)
            let old = bytes.map { TableFile(bytes: $0, path: file, format: format, limits: limits) }
            if let old { tables.replace(file: file, with: old) }
            let before = tables.composed(target.language)
            let previousVersion = TableVersion.of(before)
            if !expecting.isMet(key: edits[0].key, before: before, version: previousVersion, development: tables.table(development: true)) {
                throw .stale(key: edits[0].key, language: target.language, current: before?[edits[0].key], version: previousVersion)
            }
            var result: (bytes: [UInt8], file: TableFile)? = nil
            var planned = edits.map { edit -> (edit: TableEdit, language: String?) in
                (edit, target.catalog == nil ? nil : (catalogLanguage ?? target.language))
            }
            if case .catalog(let catalog)? = old?.contents { planned += Self.reviews(after: planned, in: catalog) }
            for (edit, language) in planned {
                do {
                    result = try edit.applied(to: result?.bytes ?? bytes, format: format, path: file, language: language,
                                              sourceLanguage: tables.development ?? "en", before: result?.file ?? old)
                } catch {
                    switch edit {
                    case .setPluralForm, .setVariation: throw .invalid(.plural, error.description)
                    case .setText, .setState, .remove, .rename: throw .invalid(.value, error.description)
                    }
                }
            }
            guard let result else { return [] }
            var after = tables
            after.replace(file: file, with: result.file)
            for edit in edits { try check(edit, before: tables, after: after, language: target.language) }
            let written: Bool
            do {
                written = try AtomicReplace.write(result.bytes, to: place, name: name, directory: directory, expected: lock.status)
            } catch {
                throw Self.failure(error)
            }
            guard written else { continue }
            let table = after.composed(target.language)
            let version = TableVersion.of(table)
            return edits.map { edit in
                let key: String
                if case .rename(_, let newKey) = edit { key = newKey } else { key = edit.key }
                return Change(file: file, language: target.language, key: edit.key, newKey: nil, before: before?[edit.key], after: table?[key],
                              previousVersion: previousVersion, version: version, created: bytes == nil)
            }
        }
        throw .invalid(.file, "\(file): changed by another program on every try; try again")
    }

    /// What Xcode does when a catalog's source text changes: each other
    /// language's translated text of that key is marked `needs_review`, in
    /// the same write (the translations were made for the old text).
    static func reviews(after edits: [(edit: TableEdit, language: String?)], in catalog: StringCatalog) -> [(edit: TableEdit, language: String?)] {
        var marked: [(edit: TableEdit, language: String?)] = []
        for case (.setText(let key, let value, _), catalog.sourceLanguage?) in edits {
            guard let old = catalog.tables[catalog.sourceLanguage]?[key], old.text != value else { continue }
            for (language, table) in catalog.tables.sorted(by: { $0.key < $1.key }) where language != catalog.sourceLanguage {
                guard let entry = table[key], (entry.state ?? .translated) == .translated else { continue }
                marked.append((.setState(key: key, state: .needsReview), language))
            }
        }
        return marked
    }

    static func failing<Result: ~Copyable>(_ body: () throws(TableEditError) -> Result) throws(Failure) -> Result {
        do {
            return try body()
        } catch {
            throw failure(error)
        }
    }

    /// A file's failure as the writer's: `forbidden` when it is the caller's permissions.
    static func failure(_ error: TableEditError) -> Failure {
        error.isForbidden ? .forbidden(error.description) : .invalid(.file, error.description)
    }

    /// Refuses an edit that brings in an error of the checks (or a plural rule without `other`).
    func check(_ edit: TableEdit, before: TableSet, after: TableSet, language: String) throws(Failure) {
        guard !force else { return }
        var keys = [edit.key]
        if case .rename(_, let newKey) = edit { keys = [newKey] }
        func blocking(_ tables: TableSet, _ key: String) -> [Diagnostic] {
            let bundle = LocalizedBundle(path: self.bundle, tables: tables.byLocalization)
            let check = BundleCheck(bundle: bundle, development: tables.development)
            var files = FileLocations(bundlePath: self.bundle, localization: language, table: table)
            return check.diagnostics(localization: language, table: table, key: key, files: &files).filter(BundleCheck.refusesEdit)
        }
        let old = Set(blocking(before, edit.key).map(\.message))
        let new = keys.flatMap { blocking(after, $0) }.filter { !old.contains($0.message) }
        if !new.isEmpty { throw .refused(new) }
    }

    /// Runs `body` on every file of every localization (or of `language`)
    /// that holds `key`; a catalog's key is edited once for all its languages.
    func everywhere(_ key: String, language: String?,
                            _ body: (Target, String, String??) throws(Failure) -> Change) throws(Failure) -> [Change] {
        let tables = try loadTables()
        var changes: [Change] = []
        if language == nil, case let catalog = TablePlace.catalog(table, in: bundle), let file = tables.file(catalog),
           let holder = tables.languages.first(where: { file.contains(key, language: $0) }) {
            return [try body(Target(language: holder, catalog: catalog), catalog, .some(nil))]
        }
        let languages = try language.map { language throws(Failure) in [try target(language: language).language] } ?? tables.languages
        for language in languages {
            let target = try self.target(language: language)
            for file in [target.catalog, target.strings, target.stringsdict].compactMap({ $0 }) where tables.file(file)?.contains(key, language: language) == true {
                changes.append(try body(target, file, .none))
            }
        }
        if changes.isEmpty {
            throw .invalid(.key, "\"\(key)\" is not in the \(table) table of \(language ?? "any localization") in \(bundle)")
        }
        return changes
    }
}
