import Foundation
import LprojCommandLine
import LprojEditing
import LprojFormats
import LprojLanguages
import LprojPaths
import LprojTables

/// `lprojctl catalog sync`: a String Catalog's keys made the keys its sources use (`CatalogSync`).
enum CatalogSyncCommand {
    static func run(_ argv: [String]) {
        let command = "\(program) catalog sync"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "dry-run", "check"], options: ["catalog", "macro", "source-language"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(CatalogCommand.help); return }
        guard !arguments.operands.isEmpty else { Console.usage(command, UsageError("no SOURCE given")) }
        guard let catalog = arguments.value("catalog").map({ PathText.tidy(PathText.absolute($0)) }), catalog.hasSuffix(".xcstrings") else {
            Console.usage(command, UsageError("--catalog FILE.xcstrings is required"))
        }
        let sourceLanguage = arguments.value("source-language") ?? "en"
        guard LanguageTag(sourceLanguage) != nil else { Console.usage(command, UsageError("--source-language: '\(sourceLanguage)' is not a language tag")) }
        let (uses, unreadable) = ScanCommand.scan(arguments.operands, macros: arguments.values("macro"))
        // Keys and sources unread would be marked stale although they are used.
        guard !unreadable else { Console.fail(program, "some sources could not be read; nothing was written", status: 2) }
        let name = String(catalog[catalog.index(after: catalog.lastIndex(of: "/")!)...].dropLast(".xcstrings".count))
        let sync = CatalogSync(uses: uses.filter { ($0.table ?? "Localizable") == name }
            .map { CatalogSync.Use(key: $0.key, comment: $0.comment, defaultValue: $0.defaultValue) })
        let directory = String(catalog[..<catalog.lastIndex(of: "/")!])
        let dryRun = arguments.has("dry-run") || arguments.has("check")
        let outcome: (result: [CatalogSync.Change], written: Bool)
        do {
            let writer = try TableWriter(bundle: directory, table: name)
            outcome = try writer.updateCatalog(sourceLanguage: sourceLanguage, dryRun: dryRun) { document in sync.apply(to: &document) }
        } catch {
            guard case .refused(let diagnostics) = error else { Console.fail(program, error.description, status: 2) }
            for diagnostic in diagnostics { Console.error(diagnostic.description) }
            Console.fail(program, "nothing was written", status: 1)
        }
        for change in outcome.result { Console.out(change.description) }
        let summary = "\(sync.uses.count) key\(sync.uses.count == 1 ? "" : "s") used; \(outcome.result.count) change\(outcome.result.count == 1 ? "" : "s")"
        if dryRun {
            Console.error("\(summary) (nothing written)")
            if arguments.has("check"), !outcome.result.isEmpty { exit(1) }
        } else {
            Console.error(outcome.written ? "\(summary); \(catalog) written" : "\(summary); \(catalog) unchanged")
        }
    }
}
