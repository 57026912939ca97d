import Foundation
import LprojBundles
import LprojCommandLine
import LprojLanguages

/// `lprojctl match`: which localizations a list of preferences selects.
enum MatchCommand {
    static let help = """
        Usage: lprojctl match --available TAG[,TAG...] [--prefer TAG[,TAG...]] [--development TAG]

        Prints the localizations chosen for the preferred languages, best first,
        one per line: the best match, its more generic ancestors that are
        available, then Base (when available), then the development
        localization — the search list lprojctl get shows and bundles search.
        Matching is Apple's (ualoc_localizationsToUse, as CFBundle uses it):
        zh-TW and zh-HK find zh-Hant (never zh-Hans), en-IN finds en-GB then
        en-001, en-AU lists en-AU, en-GB, en; es-CL with es and es-AR finds es
        (never a sibling region over the language); legacy names such as
        English work; a pseudolanguage only by its own name. With
        no preference at all (no --prefer, none in the environment) it says so.

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
        if preferences.isEmpty {
            // Said plainly: with no preference at all only Base and the development localization can answer.
            Console.error("\(program) match: no preferences: --prefer was not given and the environment names no language "
                          + "(\(SystemLanguages.origin(environment: ProcessInfo.processInfo.environment)))")
        }
        let development = arguments.value("development")
        // The search list, as `get` shows it and bundles search it: the chain, then Base, then the development localization.
        let searchList = SearchPlan(preferences: preferences, available: available, development: development).searchList
        guard !searchList.isEmpty else {
            Console.fail(program, preferences.isEmpty ? "no localization answers: give --prefer or --development"
                                                      : "no localization matches \(preferences.joined(separator: ","))", status: 1)
        }
        Console.out(searchList.joined(separator: "\n"))
    }

    private static func list(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
