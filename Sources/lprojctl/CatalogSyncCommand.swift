import Foundation
import LprojCommandLine
import LprojEditing
import LprojExchange
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
            arguments = try Arguments(argv, flags: ["help", "dry-run", "check", "explain", "json"],
                                      options: ["catalog", "macro", "source-language", "localizable"])
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
        var positions = LocalizablePositions.apple
        for position in arguments.values("localizable") {
            do { try positions.add(position) } catch { Console.usage(command, UsageError("--localizable: \(error)")) }
        }
        let (scan, unreadable) = ScanCommand.scanSources(arguments.operands, macros: arguments.values("macro"), positions: positions)
        // Keys and sources unread would be marked stale although they are used.
        guard !unreadable else { Console.fail(program, "some sources could not be read; nothing was written", status: 2) }
        let name = String(catalog[catalog.index(after: catalog.lastIndex(of: "/")!)...].dropLast(".xcstrings".count))
        let uses = scan.uses.filter { ($0.table ?? "Localizable") == name }
        let sync = CatalogSync(uses: uses.map { CatalogSync.Use(key: $0.key, comment: $0.comment, defaultValue: $0.defaultValue) })
        let directory = String(catalog[..<catalog.lastIndex(of: "/")!])
        let explaining = arguments.has("explain") || arguments.has("json")
        let dryRun = arguments.has("dry-run") || arguments.has("check") || explaining
        let outcome: (result: (changes: [CatalogSync.Change], before: [(key: String, state: String?)]), written: Bool)
        do {
            let writer = try TableWriter(bundle: directory, table: name)
            outcome = try writer.updateCatalog(sourceLanguage: sourceLanguage, dryRun: dryRun) { document in
                let before = document.keys.map { (key: $0, state: document.extractionState(of: $0)) }
                return (sync.apply(to: &document), before)
            }
        } catch {
            guard case .refused(let diagnostics) = error else { Console.fail(program, error.description, status: 2) }
            for diagnostic in diagnostics { Console.error(diagnostic.description) }
            Console.fail(program, "nothing was written", status: 1)
        }
        let changes = outcome.result.changes
        if explaining {
            let explanation = SyncExplanation(catalog: outcome.result.before, uses: uses, otherLiterals: scan.otherLiterals)
            if arguments.has("json") {
                Console.out(CanonicalJSON.text(explanation.keys.map(Self.json)))
            } else {
                for line in explanation.lines(relativeTo: Environment.currentDirectory) { Console.out(line) }
            }
            if arguments.has("check"), !changes.isEmpty { exit(1) }
            return
        }
        for change in changes { Console.out(change.description) }
        let summary = "\(sync.uses.count) key\(sync.uses.count == 1 ? "" : "s") used; \(changes.count) change\(changes.count == 1 ? "" : "s")"
        if dryRun {
            Console.error("\(summary) (nothing written)")
            if arguments.has("check"), !changes.isEmpty { exit(1) }
        } else {
            Console.error(outcome.written ? "\(summary); \(catalog) written" : "\(summary); \(catalog) unchanged")
        }
    }

    /// One key's account as `--json` writes it.
    private static func json(_ account: SyncExplanation.Key) -> [String: Any] {
        [
            "key": account.key,
            "verdict": account.verdict.rawValue,
            "uses": account.uses.map { ["file": $0.file, "line": $0.line, "column": $0.column, "reason": $0.reason] as [String: Any] },
            "plainLiterals": account.plainLiterals.map { ["file": $0.file, "line": $0.line, "column": $0.column] as [String: Any] },
        ]
    }
}
