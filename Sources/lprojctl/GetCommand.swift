import Foundation
import LprojBundles
import LprojCommandLine
import LprojEditing
import LprojLanguages
import LprojPaths
import LprojProtocol
import LprojTables

/// `lprojctl get`: a key's value in a bundle, and how it was found — from
/// the files on disk, or (`--live`) from the running daemon's catalog.
enum GetCommand {
    static let help = """
        Usage: lprojctl get KEY --bundle PATH [--language TAG]... [--table NAME]
                            [--development TAG] [--default TEXT] [--fallback]
                            [--arg VALUE]... [--json] [--live [--socket PATH]]

        Looks KEY up in the bundle directory PATH (its *.lproj directories and
        *.xcstrings catalogs) as an app would, and prints the text on the first
        line, then how it was resolved: the localization chain and each table
        consulted. Reads the files on disk; with --live, asks the running lprojd
        (what its subscribers see: a broken file's last good version).

        Options:
          --bundle PATH       the bundle directory (required)
          --language TAG      a preferred language; repeat for more, most preferred
                              first (default: from LANGUAGE, LC_ALL, LC_MESSAGES, LANG)
          --table NAME        the table (default: Localizable)
          --development TAG   the development localization (default: en when present;
                              not with --live)
          --default TEXT      the text for a missing key (default: the key itself)
          --fallback          look a missing key up in the development localization
                              too (not with --live)
          --arg VALUE         a format argument (numbers as numbers); repeat in order
          --json              print {"text", "source", "localization", "chain", "steps", "version"}
                              (version: the answering localization's table, for set --if-version;
                              null with --live)
          --live              ask the running lprojd instead of reading the files
        \(LiveDaemon.socketHelp)

        Exit status: 0 found, 1 the key is missing (the default or the key is
        printed) or the daemon refused, 2 usage error or unreadable bundle,
        3 no daemon answers (--live).
        """

    /// A lookup's outcome, however it was made.
    private struct Outcome {
        var text: String
        var entry: Entry?
        var source: String
        var localization: String?
        var formattingLanguage: String
        var chain: [String]
        var table: String
        var steps: [(localization: String, table: String, found: Bool)]
        /// The version of the answering (else the best matching) localization's table, for `set --if-version`.
        var version: String?
        var isMiss: Bool { source == "default" || source == "key" }
    }

    static func run(_ argv: [String]) {
        let command = "\(program) get"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "fallback", "json", "live"],
                                      options: ["bundle", "language", "table", "development", "default", "arg", "socket"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        guard arguments.operands.count == 1, let key = arguments.operands.first else {
            Console.usage(command, UsageError(arguments.operands.isEmpty ? "no KEY given" : "get takes one KEY"))
        }
        guard let path = arguments.value("bundle") else { Console.usage(command, UsageError("--bundle is required")) }
        var preferences = arguments.values("language")
        // Said when the preferences come from the environment (a C locale makes gettext, and us, ignore LANGUAGE).
        var origin: String?
        if preferences.isEmpty {
            preferences = SystemLanguages.preferences(environment: ProcessInfo.processInfo.environment)
            origin = SystemLanguages.origin(environment: ProcessInfo.processInfo.environment)
        }
        for tag in preferences where LanguageTag(tag) == nil {
            Console.usage(command, UsageError("'\(tag)' is not a language tag"))
        }
        let outcome: Outcome
        if arguments.has("live") {
            for option in ["development", "fallback"] where arguments.has(option) || arguments.value(option) != nil {
                Console.usage(command, UsageError("--\(option) does not go with --live"))
            }
            outcome = live(key: key, path: path, preferences: preferences, arguments: arguments)
        } else {
            outcome = offline(key: key, path: path, preferences: preferences, arguments: arguments)
        }
        var text = outcome.text
        let formatArguments: [any CVarArg] = arguments.values("arg").map { value in
            if let integer = Int(value) { return integer }
            if let double = Double(value) { return double }
            return value
        }
        if let entry = outcome.entry, entry.text == nil || !formatArguments.isEmpty {
            text = StringFormatter(language: outcome.formattingLanguage).string(for: entry, arguments: formatArguments)
        } else if outcome.entry == nil, !formatArguments.isEmpty {
            // A missing key's text (the default, else the key) is the format, as LiveBundle's localizedString(format:) does.
            text = StringFormatter(language: outcome.formattingLanguage).string(format: text, arguments: formatArguments)
        }
        if arguments.has("json") {
            let object: [String: Any] = [
                "text": text, "source": outcome.source, "localization": outcome.localization ?? NSNull(),
                "chain": outcome.chain, "table": outcome.table,
                "steps": outcome.steps.map { ["localization": $0.localization, "table": $0.table, "found": $0.found] as [String: Any] },
                "version": outcome.version ?? NSNull(),
            ]
            Console.out(CanonicalJSON.text(object))
        } else {
            var lines = [text]
            if let origin { lines.append("  preferences: \(preferences.isEmpty ? "" : preferences.joined(separator: ", ") + " ")\(origin)") }
            lines.append("  chain: \(outcome.chain.joined(separator: " → "))")
            lines += outcome.steps.map { "  \($0.localization)/\($0.table): \($0.found ? "found" : "missing")" }
            lines.append("  from: \(outcome.source)\(outcome.localization.map { " \($0)" } ?? "")")
            Console.out(lines.joined(separator: "\n"))
        }
        exit(outcome.isMiss ? 1 : 0)
    }

    private static func offline(key: String, path: String, preferences: [String], arguments: Arguments) -> Outcome {
        let bundle: LocalizedBundle
        do {
            bundle = try LocalizedBundle.load(path: path)
        } catch {
            Console.fail(program, "cannot read bundle \(error)", status: 2)
        }
        for diagnostic in bundle.diagnostics where diagnostic.severity == .error {
            Console.error("\(diagnostic) (file skipped)")
        }
        let lookup = BundleLookup(key: key, table: arguments.value("table"), in: bundle, preferences: preferences,
                                  development: arguments.value("development"), defaultValue: arguments.value("default"),
                                  developmentFallback: arguments.has("fallback"))
        let resolution = lookup.resolution
        let versioned = lookup.localization ?? lookup.searchList.first
        return Outcome(text: resolution.text, entry: resolution.entry, source: lookup.sourceName, localization: lookup.localization,
                       formattingLanguage: lookup.formattingLanguage, chain: lookup.searchList, table: resolution.table,
                       steps: resolution.steps.map { ($0.localization, $0.table, $0.found) },
                       version: versioned.map { TableVersion.of(bundle.table(resolution.table, localization: $0)) })
    }

    private static func live(key: String, path: String, preferences: [String], arguments: Arguments) -> Outcome {
        let absolute = PathText.absolute(path)
        let (connection, _) = LiveDaemon.connect(arguments, client: "lprojctl get")
        let reply = LiveDaemon.send(Lookup(bundle: absolute, key: key, table: arguments.value("table"), languages: preferences,
                                           default: arguments.value("default")), on: connection)
        let language = reply.localization ?? reply.chain.first ?? "en"
        // The daemon sends `entry` for rules only; a found plain string is its text.
        let entry = reply.entry ?? (reply.localization != nil ? Entry(text: reply.text) : nil)
        return Outcome(text: reply.text, entry: entry, source: reply.source, localization: reply.localization,
                       formattingLanguage: LanguageTag(language)?.identifier ?? "en", chain: reply.chain,
                       table: reply.steps.first?.table ?? arguments.value("table") ?? "Localizable",
                       steps: reply.steps.map { ($0.localization, $0.table, $0.found) })
    }
}
