import Foundation
import LprojClient
import LprojCommandLine
import LprojEditing
import LprojExchange
import LprojFormats
import LprojPaths
import LprojProtocol
import LprojTables

/// `lprojctl rollback`: a bundle's tables made what they were at a kept generation, through the one writer, published as one.
enum RollbackCommand {
    static let help = """
        Usage: lprojctl rollback --bundle PATH [--to N] [--socket PATH]

        Makes the bundle's tables what they were at generation N (default: the
        one before the current), as the running lprojd kept them ([Limits]
        RollbackGenerations=, RollbackBytes=): each key the generation had is
        written back and each it did not have is removed, through the one
        writer (every other byte of each file kept, each write atomic and
        locked; the disk stays the truth). The daemon holds the bundle's
        changes meanwhile, so they are published together, as one new
        generation; prints what changed and that generation. A generation no
        longer kept is refused, nothing written. Comments are not restored
        (generations keep entries); a table the generation did not have is
        emptied, not deleted.

        Options:
          --bundle PATH   the bundle (required)
          --to N          the generation to go back to (default: the one before the current)
        \(LiveDaemon.socketHelp)

        Exit status: 0 rolled back, 1 refused (a generation no longer kept, a
        write the checks refuse: what was written before it is published), 2
        usage error, 3 no daemon answers.
        """

    static func run(_ argv: [String]) {
        let command = "\(program) rollback"
        let arguments = LiveDaemon.arguments(argv, command: command, help: help, options: ["bundle", "to"])
        guard let given = arguments.value("bundle") else { Console.usage(command, UsageError("--bundle is required")) }
        var to: UInt64?
        if let text = arguments.value("to") {
            guard let number = UInt64(text), number > 0 else { Console.usage(command, UsageError("--to: '\(text)' is not a generation")) }
            to = number
        }
        let bundle = PathText.tidy(PathText.absolute(given))
        let (connection, _) = LiveDaemon.connect(arguments, client: "lprojctl rollback")
        let target = LiveDaemon.send(GenerationTables(bundle: bundle, generation: to), on: connection)
        let now = LiveDaemon.send(Snapshot(bundle: bundle), on: connection)
        // Table name → language → entries: what the generation had, and which tables and languages there are now.
        var wanted: [String: [String: [String: Entry]]] = [:]
        for table in target.tables { wanted[table.table, default: [:]][table.language] = table.entries }
        var present: [String: Set<String>] = [:]
        for table in now.tables { present[table.table, default: []].insert(table.language) }

        _ = LiveDaemon.send(Hold(bundle: bundle), on: connection)
        var failure: String?
        var lines: [String] = []
        write: for name in Set(wanted.keys).union(present.keys).sorted() {
            do throws(TableWriter.Failure) {
                let writer = try TableWriter(bundle: bundle, table: name)
                let catalog = FileManager.default.fileExists(atPath: TablePlace.catalog(name, in: bundle))
                for language in Set(wanted[name]?.keys ?? [:].keys).union(present[name] ?? []).sorted() {
                    let (set, removed) = try restore(writer, language: language, to: wanted[name]?[language] ?? [:], catalog: catalog)
                    if set + removed > 0 { lines.append("\(language)/\(name): \(set) set, \(removed) removed") }
                }
            } catch {
                failure = "\(name): \(error)"
                break write
            }
        }
        // What was written is published as one change, even when a write was refused.
        _ = LiveDaemon.send(Sync(), on: connection)
        let released = LiveDaemon.send(Release(bundle: bundle), on: connection)
        for line in lines { Console.out(line) }
        if let failure { Console.fail(program, "\(failure); what was written before it is published", status: 1) }
        guard let generation = released.generation else {
            Console.out("\(bundle): already as generation \(target.generation) was; nothing changed")
            return
        }
        let after = LiveDaemon.send(List(), on: connection).bundles.first { Array($0.path.utf8) == Array(bundle.utf8) }
        let same = after?.hash == target.hash
        Console.out("\(bundle): generation \(generation), " + (same ? "the tables of generation \(target.generation) (hash \(target.hash))"
            : "close to generation \(target.generation) (hash \(after?.hash ?? "?"), not \(target.hash): a text the writer keeps otherwise)"))
    }

    /// Writes `language`'s table back to `entries`: keys it lacks removed, keys that differ written (a key whose variations the
    /// generation lacks is removed first, then written whole). Returns how many keys were set and removed.
    private static func restore(_ writer: TableWriter, language: String, to entries: [String: Entry], catalog: Bool)
        throws(TableWriter.Failure) -> (set: Int, removed: Int) {
        let current = try writer.current(language: language).table ?? Table()
        var removed = 0, set = 0
        for key in current.keys.sorted() where entries[key] == nil {
            _ = try writer.remove(key, language: language)
            removed += 1
        }
        for key in entries.keys.sorted() {
            let entry = entries[key]!
            var now = current[key]
            if now == entry { continue }
            let texts = TransUnitID.texts(of: entry, key: key)
            if let existing = now, !Set(TransUnitID.texts(of: existing, key: key).map(\.id)).isSubset(of: texts.map(\.id)) {
                _ = try writer.remove(key, language: language)
                now = nil
            }
            let edits = texts.compactMap { id, text -> TableEdit? in
                if let now, id.text(in: now) == text { return nil }
                return LocalizationImport.edit(id, value: text, catalog: catalog)
            }
            if !edits.isEmpty { _ = try writer.apply(edits, language: language) }
            set += 1
        }
        return (set, removed)
    }
}
