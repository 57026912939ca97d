import Foundation
import LprojCommandLine
import LprojFormats
import LprojTables

/// `lprojctl dump`: one table as canonical JSON.
enum DumpCommand {
    static let help = """
        Usage: lprojctl dump PATH [--language TAG] [--max-bytes N]

        Prints the table in PATH as JSON on standard output, keys sorted, UTF-8:
          .strings      {"key": "value", ...}
          .stringsdict  the property list as JSON, the same structure as the file
          .xcstrings    the table of one language (default: the source language);
                        plain strings as strings, variations as
                        {"value": ..., "substitutions": ..., "state": ...}

        Options:
          --language TAG  the catalog language to print (.xcstrings only)
          --max-bytes N   refuse tables larger than N bytes (default 16777216)

        Exit status: 0 printed, 1 the file has errors (printed on standard error),
        2 usage error or unreadable path.
        """

    static func run(_ argv: [String]) {
        let command = "\(program) dump"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help"], options: ["language", "max-bytes"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        guard arguments.operands.count == 1, let path = arguments.operands.first else {
            Console.usage(command, UsageError(arguments.operands.isEmpty ? "no PATH given" : "dump takes one PATH"))
        }
        let limits = TableLimits(maximumFileBytes: byteLimit(arguments.value("max-bytes"), command: "dump"))
        let language = arguments.value("language")
        let file: TableFile
        do {
            file = try TableFile.read(path: path, limits: limits)
        } catch {
            Console.fail(program, "cannot read \(error)", status: 2)
        }
        if language != nil, file.format != .xcstrings {
            Console.usage(command, UsageError("--language applies to .xcstrings catalogs only"))
        }
        // Every problem on standard error (warnings too: the JSON on standard output stays clean).
        if !file.diagnostics.isEmpty { Console.error(file.diagnostics.map(\.description).joined(separator: "\n")) }
        if file.hasErrors { exit(1) }
        switch file.contents {
        case .table(let table) where file.format == .strings:
            Console.out(CanonicalJSON.text(table.entries.compactMapValues(\.text)))
        case .table:
            // The property list itself, so the JSON has the file's structure.
            let data = try! Data(contentsOf: URL(fileURLWithPath: path))
            let plist = try! PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            Console.out(CanonicalJSON.text(plist))
        case .catalog(let catalog):
            let chosen = language ?? catalog.sourceLanguage
            guard let table = catalog.tables[chosen] else {
                Console.fail(program, "\(path): no '\(chosen)' localization; the catalog has \(catalog.languages.joined(separator: ", "))",
                             status: 1)
            }
            Console.out(try! CanonicalJSON.text(encoding: table.entries))
        }
    }
}
