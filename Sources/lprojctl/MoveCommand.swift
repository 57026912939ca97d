import Foundation
import LprojCommandLine
import LprojEditing

/// `lprojctl mv`: rename a key in every localization of a table.
enum MoveCommand {
    static let help = """
        Usage: lprojctl mv OLD NEW --bundle PATH [--table NAME] [--json]

        Renames the key OLD to NEW in every localization of the table (its
        .strings and .stringsdict files, or its String Catalog), each value and
        comment kept, every other byte of each file unchanged; each write is
        atomic and locked. NEW must not be a key of any localization yet.

        Options:
          --bundle PATH      the bundle directory (required)
          --table NAME       the table (default: Localizable)
          --json             print {"changes": [...]} as set does

        Exit status: 0 renamed, 2 usage error, OLD missing or NEW taken (nothing
        renamed).
        """

    static func run(_ argv: [String]) {
        let command = "\(program) mv"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json"], options: ["bundle", "table"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        EditOutput.requireValidUTF8(command)
        guard arguments.operands.count == 2 else { Console.usage(command, UsageError("mv takes OLD and NEW")) }
        guard arguments.operands[0] != arguments.operands[1] else { Console.usage(command, UsageError("OLD and NEW are the same key")) }
        let writer = EditOutput.writer(command, arguments)
        EditOutput.run(arguments) { () throws(TableWriter.Failure) in
            try writer.rename(arguments.operands[0], to: arguments.operands[1])
        }
    }
}
