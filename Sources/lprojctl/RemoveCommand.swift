import Foundation
import LprojCommandLine
import LprojEditing

/// `lprojctl rm`: remove keys from a table, keeping every other byte.
enum RemoveCommand {
    static let help = """
        Usage: lprojctl rm KEY... --bundle PATH [--language TAG] [--table NAME]
                           [--if-version V] [--json]

        Removes each KEY (with its comment) from LANGUAGE's table of the bundle
        directory PATH, or from every localization of the table when no
        --language is given (from a String Catalog: the key itself). Every other
        byte of each file stays; each write is atomic and locked. A KEY that is
        in none of the tables is an error, and nothing is removed.

        Options:
          --bundle PATH      the bundle directory (required)
          --language TAG     only this localization
          --table NAME       the table (default: Localizable)
          --if-version V     refuse unless the table is at version V (with --language)
          --json             print {"changes": [...]} as set does

        Exit status: 0 removed, 2 usage error or a key that is not there (nothing
        removed), 3 the table is not at --if-version.
        """

    static func run(_ argv: [String]) {
        let command = "\(program) rm"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json"], options: ["bundle", "language", "table", "if-version"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        EditOutput.requireValidUTF8(command)
        guard !arguments.operands.isEmpty else { Console.usage(command, UsageError("no KEY given")) }
        if arguments.value("if-version") != nil, arguments.value("language") == nil {
            Console.usage(command, UsageError("--if-version needs --language (a version is one localization's)"))
        }
        let writer = EditOutput.writer(command, arguments)
        let language = arguments.value("language")
        EditOutput.run(arguments) { () throws(TableWriter.Failure) in
            // Every key first, so that a missing one removes nothing.
            for key in arguments.operands where try !writer.holds(key, language: language) {
                throw .invalid(.key, "\"\(key)\" is not in the \(writer.table) table of \(language ?? "any localization") in \(writer.bundle)")
            }
            var changes: [TableWriter.Change] = []
            for key in arguments.operands {
                changes += try writer.remove(key, language: language, expecting: .table(arguments.value("if-version")))
            }
            return changes
        }
    }
}
