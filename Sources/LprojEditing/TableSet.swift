#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LprojBundles
import LprojFormats
import LprojLanguages
import LprojPaths
import LprojTables

/// The table's files, read and layered (`TableLayers`).
extension TableWriter {
    /// Every file of the table, parsed: what versions and checks are worked out on.
    struct TableSet {
        var name: String
        var files: [String: TableFile] = [:]
        var development: String?

        var languages: [String] { Array(byLocalization.keys).sorted() }

        var byLocalization: [String: [String: Table]] {
            TableLayers.localizations(of: files).mapValues { [name: $0] }
        }

        func composed(_ language: String) -> Table? { byLocalization[language]?.values.first }

        func table(development: Bool) -> Table? { self.development.flatMap(composed) }

        func file(_ path: String) -> TableFile? { files[path] }

        mutating func replace(file path: String, with file: TableFile) { files[path] = file }
    }

    /// Every file of the table but `excluded` (the caller parses what it locked and read).
    /// `only`: that localization's files (and the catalog), not the development language worked out.
    func loadTables(except excluded: String? = nil, only localization: String? = nil) throws(Failure) -> TableSet {
        var set = TableSet(name: table)
        var reader = TableFileReader(limits: limits)
        func read(_ path: String) {
            guard path != excluded else { return }
            if let file = try? reader.read(path: path, links: LinkPolicy(under: gate.roots)) { set.files[path] = file }
        }
        read(TablePlace.catalog(table, in: bundle))
        for directory in localizationDirectories() where localization == nil || directory == localization {
            let files = TablePlace.files(of: table, localization: directory, in: bundle)
            read(files.strings)
            read(files.stringsdict)
        }
        guard localization == nil else { return set }
        let tables = set.byLocalization
        set.development = DevelopmentLocalization.of(LocalizedBundle(path: bundle, tables: tables))
        return set
    }
}

extension TableFile {
    /// Whether this file holds `key` (in a catalog: in `language`).
    func contains(_ key: String, language: String) -> Bool {
        switch contents {
        case .table(let table): return table[key] != nil
        case .catalog(let catalog): return catalog.tables[language]?[key] != nil
        }
    }
}
