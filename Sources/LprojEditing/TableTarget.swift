#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LprojBundles
import LprojFormats
import LprojLanguages
import LprojPaths
import LprojTables

/// Where a language's table lives: the bundle's catalog of the table, or
/// the `.lproj` of that name (or of the same language under another name).
extension TableWriter {
    /// The files of one localization's table.
    struct Target {
        /// The localization's name: the `.lproj` name, or the catalog language.
        var language: String
        var catalog: String?
        var strings: String?
        var stringsdict: String?

        /// Whether the `.stringsdict` holds `key` (a `set` then changes its format).
        func hasRule(_ key: String, limits: TableLimits) -> Bool {
            guard let stringsdict, let file = try? TableFile.read(path: stringsdict, limits: limits) else { return false }
            return file.contains(key, language: language)
        }
    }

    /// The files `language` edits: the bundle's catalog of the table when
    /// there is one, else the `.lproj` of that name (or of the same
    /// language under another name: `English` for `en`), made when missing.
    func target(language: String) throws(Failure) -> Target {
        let catalog = TablePlace.catalog(table, in: bundle)
        guard language == "Base" || LanguageTag(language) != nil, !language.contains("/"), !language.hasPrefix(".") else {
            throw .invalid(.language, "'\(language)' is not a language tag or .lproj name")
        }
        if access(catalog, F_OK) == 0 { return Target(language: language, catalog: catalog) }
        var name = language
        if access(TablePlace.directory(of: language, in: bundle), F_OK) != 0, let wanted = LanguageTag(language)?.identifier,
           let existing = localizationDirectories().first(where: { LanguageTag($0)?.identifier == wanted }) {
            name = existing
        }
        let files = TablePlace.files(of: table, localization: name, in: bundle)
        return Target(language: name, strings: files.strings, stringsdict: files.stringsdict)
    }

    func localizationDirectories() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: bundle)) ?? [])
            .filter { $0.hasSuffix(".lproj") }.map { String($0.dropLast(6)) }.sorted()
    }
}
