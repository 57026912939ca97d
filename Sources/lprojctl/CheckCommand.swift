import Foundation
import LprojBundles
import LprojCommandLine
import LprojLanguages
import LprojPaths
import LprojTables

/// `lprojctl check`: the cross-language checks of bundles (`BundleCheck`),
/// with every file's own problems.
enum CheckCommand {
    static let help = """
        Usage: lprojctl check [--format gcc|json] [--development TAG] BUNDLE...

        Checks each bundle directory (the one holding the *.lproj directories and
        *.xcstrings catalogs) the way a translator's mistakes ship: every table's
        own problems (as lint reports them), then each localization against the
        development one — keys missing or only in one localization, format
        specifiers that disagree (%@ for %d: a crash on Apple platforms),
        plural rules without "other" or missing a category the language needs
        (CLDR, from ICU), empty values, values left the same as the development
        language's (unless a comment holds lproj:same), zh-TW.lproj where zh-Hant is meant, and
        InfoPlist keys Info.plist lacks or some localizations leave out. Prints
        nothing for a clean bundle.

        Options:
          --format gcc        one line per problem: path:line:column: severity: message (default)
          --format json       a JSON array of {file, line, column, severity, message, hint}
          --development TAG   the localization to check the others against (default: Info.plist's
                              CFBundleDevelopmentRegion, else en)

        Exit status: 0 no errors (warnings allowed), 1 errors found, 2 usage error or
        unreadable bundle. A summary goes to standard error when there is a problem.
        """

    static func run(_ argv: [String]) {
        let command = "\(program) check"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help"], options: ["format", "development"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        let format = arguments.value("format") ?? "gcc"
        guard format == "gcc" || format == "json" else { Console.usage(command, UsageError("--format must be gcc or json, not '\(format)'")) }
        guard !arguments.operands.isEmpty else { Console.usage(command, UsageError("no BUNDLE given")) }
        var diagnostics: [Diagnostic] = []
        var unreadable = false
        for operand in arguments.operands {
            let path = PathText.tidy(operand.hasPrefix("/") ? operand : Environment.currentDirectory + "/" + operand)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                Console.error("\(program): \(operand): not a bundle directory")
                unreadable = true
                continue
            }
            do {
                let bundle = try LocalizedBundle.load(path: path)
                let check = BundleCheck(bundle: bundle, development: arguments.value("development"))
                // A file's own problems first (those a check reports as worse, once: as the check's).
                diagnostics += bundle.diagnostics.filter { !BundleCheck.supersedes($0) } + check.diagnostics()
            } catch {
                Console.error("\(program): cannot read \(error)")
                unreadable = true
            }
        }
        printDiagnostics(diagnostics, format: format)
        let errors = diagnostics.count { $0.severity == .error }
        if !diagnostics.isEmpty {
            let warnings = diagnostics.count { $0.severity == .warning }, infos = diagnostics.count - errors - warnings
            Console.error("\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
                          + (infos > 0 ? ", \(infos) note\(infos == 1 ? "" : "s")" : ""))
        }
        exit(unreadable ? 2 : errors > 0 ? 1 : 0)
    }
}
