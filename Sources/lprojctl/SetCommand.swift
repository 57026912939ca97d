import Foundation
import LprojCommandLine
import LprojEditing

/// `lprojctl set`: change one translation, keeping every other byte of the table.
enum SetCommand {
    static let help = """
        Usage: lprojctl set KEY VALUE --bundle PATH --language TAG [--table NAME]
                            [--comment TEXT] [--plural [VARIABLE:]CATEGORY]
                            [--if-version V] [--force] [--json]

        Sets KEY to VALUE in LANGUAGE's table of the bundle directory PATH, and
        changes nothing else: a .strings file keeps its comments, order, spacing,
        line endings and encoding (UTF-16 stays UTF-16); a .stringsdict and an XML
        table keep their layout; a String Catalog is written as Xcode writes it
        (state "translated"). A new key goes at the end of the .strings file; a
        missing table or .lproj is made (UTF-8). The write is atomic and locked:
        a running lprojd sees one change, and two writers never lose each other's.
        A table that is a symbolic link is written through to its file when that is
        inside the bundle; one that leads outside it is refused, nothing written.

        Options:
          --bundle PATH        the bundle directory (required)
          --language TAG       the localization to change (required): an .lproj name or tag
          --table NAME         the table (default: Localizable)
          --comment TEXT       the entry's comment (a .strings comment above it, or the catalog's)
          --plural [VARIABLE:]CATEGORY
                               set one plural form instead: of a .stringsdict (or catalog
                               substitution) variable, or of a catalog entry's own plural
                               variations; CATEGORY is one the language's CLDR rules have
                               (zero, one, two, few, many, other)
          --if-version V       refuse unless the table is at version V (what lprojctl get
                               --json shows): an edit made on stale content is not written
          --force              write even what the checks refuse (format specifiers that
                               disagree with the development language, a plural without other)
          --json               print {"changes": [{file, language, key, before, after,
                               previousVersion, version, created}]}

        Exit status: 0 written, 1 refused by the checks (the problem is printed),
        2 usage error or a request that cannot be carried out (nothing written),
        3 the table is not at --if-version (the current value is printed).
        """

    static func run(_ argv: [String]) {
        let command = "\(program) set"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "force", "json"],
                                      options: ["bundle", "language", "table", "comment", "plural", "if-version"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        EditOutput.requireValidUTF8(command)
        guard arguments.operands.count == 2 else { Console.usage(command, UsageError("set takes KEY and VALUE")) }
        let (key, value) = (arguments.operands[0], arguments.operands[1])
        guard let language = arguments.value("language") else { Console.usage(command, UsageError("--language is required")) }
        let writer = EditOutput.writer(command, arguments)
        let version = arguments.value("if-version")
        if let plural = arguments.value("plural") {
            if arguments.value("comment") != nil { Console.usage(command, UsageError("--comment does not go with --plural")) }
            let parts = plural.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count <= 2, !parts.contains(where: \.isEmpty) else {
                Console.usage(command, UsageError("--plural takes VARIABLE:CATEGORY or CATEGORY, not '\(plural)'"))
            }
            let variable = parts.count == 2 ? parts[0] : nil
            EditOutput.run(arguments) { () throws(TableWriter.Failure) in
                [try writer.setPluralForm(key, variable: variable, category: parts.last!, to: value, language: language, expecting: .table(version))]
            }
        }
        EditOutput.run(arguments) { () throws(TableWriter.Failure) in
            [try writer.set(key, to: value, language: language, comment: arguments.value("comment"), expecting: .table(version))]
        }
    }
}
