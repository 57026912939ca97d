import Foundation
import LprojCatalog
import LprojCommandLine

/// `lprojctl match`: which localizations a list of preferences selects.
enum MatchCommand {
    static let help = """
        Usage: lprojctl match --available TAG[,TAG...] [--prefer TAG[,TAG...]] [--development TAG]

        Prints the localizations chosen for the preferred languages, best first,
        one per line: the best match, its more generic ancestors that are
        available, then the development localization. Matching follows Apple's
        bundles: zh-TW and zh-HK find zh-Hant (never zh-Hans), en-IN finds en-GB,
        es-MX finds es-419, fr-CA finds fr; legacy names such as English work.

        Options:
          --available TAG,...    the localizations there are (.lproj names)
          --prefer TAG,...       preferred languages, most preferred first
                                 (default: from LANGUAGE, LC_ALL, LC_MESSAGES, LANG)
          --development TAG      the development localization, tried last

        Exit status: 0 something was chosen, 1 nothing matched, 2 usage error.
        """

    static func run(_ argv: [String]) {
        let command = "\(program) match"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help"], options: ["available", "prefer", "development"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        guard arguments.operands.isEmpty else { Console.usage(command, UsageError("unexpected argument '\(arguments.operands[0])'")) }
        let available = list(arguments.values("available"))
        guard !available.isEmpty else { Console.usage(command, UsageError("--available is required")) }
        var preferences = list(arguments.values("prefer"))
        if arguments.value("prefer") == nil { preferences = SystemLanguages.preferences(environment: ProcessInfo.processInfo.environment) }
        for tag in available + preferences + [arguments.value("development")].compactMap({ $0 }) where LanguageTag(tag) == nil {
            Console.usage(command, UsageError("'\(tag)' is not a language tag"))
        }
        let chosen = LanguageMatcher.match(preferences: preferences, available: available, development: arguments.value("development"))
        guard !chosen.isEmpty else { Console.fail(program, "no localization matches \(preferences.joined(separator: ","))", status: 1) }
        Console.out(chosen.joined(separator: "\n"))
    }

    private static func list(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
