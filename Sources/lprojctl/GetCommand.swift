import Foundation
import LprojCatalog
import LprojCommandLine
import LprojTables

/// `lprojctl get`: a key's value in a bundle on disk, and how it was found.
enum GetCommand {
    static let help = """
        Usage: lprojctl get KEY --bundle PATH [--language TAG]... [--table NAME]
                            [--development TAG] [--default TEXT] [--fallback]
                            [--arg VALUE]... [--json]

        Looks KEY up in the bundle directory PATH (its *.lproj directories and
        *.xcstrings catalogs) as an app would, and prints the text on the first
        line, then how it was resolved: the localization chain and each table
        consulted. Reads the files on disk.

        Options:
          --bundle PATH       the bundle directory (required)
          --language TAG      a preferred language; repeat for more, most preferred
                              first (default: from LANGUAGE, LC_ALL, LC_MESSAGES, LANG)
          --table NAME        the table (default: Localizable)
          --development TAG   the development localization (default: en when present)
          --default TEXT      the text for a missing key (default: the key itself)
          --fallback          look a missing key up in the development localization too
          --arg VALUE         a format argument (numbers as numbers); repeat in order
          --json              print {"text", "source", "localization", "chain", "steps"}

        Exit status: 0 found, 1 the key is missing (the default or the key is
        printed), 2 usage error or unreadable bundle.
        """

    static func run(_ argv: [String]) {
        let command = "\(program) get"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "fallback", "json"],
                                      options: ["bundle", "language", "table", "development", "default", "arg"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        guard arguments.operands.count == 1, let key = arguments.operands.first else {
            Console.usage(command, UsageError(arguments.operands.isEmpty ? "no KEY given" : "get takes one KEY"))
        }
        guard let path = arguments.value("bundle") else { Console.usage(command, UsageError("--bundle is required")) }
        let bundle: LocalizedBundle
        do {
            bundle = try LocalizedBundle.load(path: path)
        } catch {
            Console.fail(program, "cannot read bundle \(error)", status: 2)
        }
        for diagnostic in bundle.diagnostics where diagnostic.severity == .error {
            Console.error("\(diagnostic) (file skipped)")
        }
        var preferences = arguments.values("language")
        if preferences.isEmpty { preferences = SystemLanguages.preferences(environment: ProcessInfo.processInfo.environment) }
        for tag in preferences where LanguageTag(tag) == nil {
            Console.usage(command, UsageError("'\(tag)' is not a language tag"))
        }
        let lookup = BundleLookup(key: key, table: arguments.value("table"), in: bundle, preferences: preferences,
                                  development: arguments.value("development"), defaultValue: arguments.value("default"),
                                  developmentFallback: arguments.has("fallback"))
        let resolution = lookup.resolution, searchList = lookup.searchList
        var text = resolution.text
        let formatArguments: [any CVarArg] = arguments.values("arg").map { value in
            if let integer = Int(value) { return integer }
            if let double = Double(value) { return double }
            return value
        }
        if let entry = resolution.entry, entry.text == nil || !formatArguments.isEmpty {
            text = StringFormatter(language: lookup.formattingLanguage).string(for: entry, arguments: formatArguments)
        }
        if arguments.has("json") {
            let object: [String: Any] = [
                "text": text, "source": lookup.sourceName, "localization": lookup.localization ?? NSNull(),
                "chain": searchList, "table": resolution.table,
                "steps": resolution.steps.map { ["localization": $0.localization, "table": $0.table, "found": $0.found] as [String: Any] },
            ]
            Console.out(CanonicalJSON.text(object))
        } else {
            var lines = [text, "  chain: \(searchList.joined(separator: " → "))"]
            lines += resolution.steps.map { "  \($0.localization)/\($0.table): \($0.found ? "found" : "missing")" }
            lines.append("  from: \(lookup.sourceName)\(lookup.localization.map { " \($0)" } ?? "")")
            Console.out(lines.joined(separator: "\n"))
        }
        exit(resolution.isMiss ? 1 : 0)
    }
}
