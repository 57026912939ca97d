import Foundation
import LprojBundles
import LprojCommandLine
import LprojExchange
import LprojPaths
import LprojTables

/// `lprojctl scan`: the keys sources use (`SourceScanner`) against a bundle's tables.
enum ScanCommand {
    static let help = """
        Usage: lprojctl scan SOURCE... --bundle PATH [--macro NAME]... [--development TAG]
                             [--format gcc|json]

        Reads Swift and Objective-C sources (files, or directories searched for
        *.swift, *.m, *.mm, *.h; hidden directories skipped) for the keys they
        look up — NSLocalizedString and its FromTable/InBundle/WithDefaultValue
        forms, String(localized:), bundle.localizedString(forKey:…), [bundle
        localizedStringForKey:…], the macros named with --macro, and every Swift
        literal given a localizable type as Xcode extracts it (SwiftUI's Text,
        Button, .navigationTitle…, App Intents' @Parameter(title:)…, the
        sources' own LocalizedStringKey parameters and declarations; see lprojctl
        catalog sync --explain) — with the
        table each names, and reports every key used but missing from the
        development localization's table (at the place of the use), and every
        key of those tables no source uses (at its line). Escapes, raw and
        multi-line strings and calls over several lines are read as the compiler
        reads them; comments and strings that only look like calls are skipped.
        Nothing is compiled or run.

        Options:
          --bundle PATH       the bundle directory (required)
          --macro NAME        a macro that takes a key first, e.g. RDLocalizedString; repeat for more
          --development TAG   the localization the keys must be in (default: Info.plist's
                              CFBundleDevelopmentRegion, else en)
          --format gcc        one line per problem: path:line:column: severity: message (default)
          --format json       a JSON array of {file, line, column, severity, message, hint}

        Exit status: 0 every key used is there (unused keys are warnings), 1 a used
        key is missing, 2 usage error or unreadable path.
        """

    static func run(_ argv: [String]) {
        let command = "\(program) scan"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help"], options: ["bundle", "macro", "development", "format"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        let format = arguments.value("format") ?? "gcc"
        guard format == "gcc" || format == "json" else { Console.usage(command, UsageError("--format must be gcc or json, not '\(format)'")) }
        guard let bundlePath = arguments.value("bundle") else { Console.usage(command, UsageError("--bundle is required")) }
        guard !arguments.operands.isEmpty else { Console.usage(command, UsageError("no SOURCE given")) }
        let bundle: LocalizedBundle
        do {
            bundle = try LocalizedBundle.load(path: absolute(bundlePath))
        } catch {
            Console.fail(program, "cannot read the bundle: \(error)", status: 2)
        }
        guard let development = arguments.value("development").map({ BundleCheck(bundle: bundle, development: $0).development ?? $0 })
                ?? DevelopmentLocalization.of(bundle) else {
            Console.fail(program, "\(bundlePath): no development localization found (give --development)", status: 2)
        }
        let (uses, unreadable) = scan(arguments.operands, macros: arguments.values("macro"))
        var diagnostics: [Diagnostic] = []
        var used: Set<String> = []
        var missing = 0
        let tables = bundle.tables[development] ?? [:]
        for use in uses {
            let name = use.table ?? "Localizable"
            used.insert(name + "\u{0}" + use.key)
            guard tables[name]?[use.key] == nil else { continue }
            missing += 1
            diagnostics.append(Diagnostic(file: use.file, line: use.line, column: use.column, severity: .error,
                                          message: "\"\(use.key)\" is used but missing from \(development).lproj/\(name)",
                                          hint: tables[name] == nil ? "\(development) has no \(name) table" : "add it to the table"))
        }
        // Keys no source uses, where they are written (InfoPlist's are Info.plist's, never looked up in code) —
        // only when every source was read: otherwise "unused" would say nothing true.
        for name in tables.keys.sorted() where name != "InfoPlist" && !unreadable {
            var files = FileLocations(bundlePath: bundle.path, localization: development, table: name)
            for (key, entry) in tables[name]! where !used.contains(name + "\u{0}" + key) {
                let (file, line, column) = files.location(of: key, entry: entry)
                diagnostics.append(Diagnostic(file: file, line: line, column: column, severity: .warning,
                                              message: "\"\(key)\" is never used in the sources scanned",
                                              hint: "remove it, or it is looked up with a key made at run time"))
            }
        }
        printDiagnostics(diagnostics, format: format)
        if !diagnostics.isEmpty {
            Console.error("\(uses.count) use\(uses.count == 1 ? "" : "s") found; \(missing) missing, \(diagnostics.count - missing) unused")
        }
        exit(unreadable ? 2 : missing > 0 ? 1 : 0)
    }

    /// The uses in every source under `operands`; unreadable paths are said on stderr and make `unreadable` true.
    static func scan(_ operands: [String], macros: [String], positions: LocalizablePositions = .apple)
        -> (uses: [SourceScanner.Use], unreadable: Bool) {
        let (scan, unreadable) = scanSources(operands, macros: macros, positions: positions)
        return (scan.uses, unreadable)
    }

    /// Every source under `operands`, scanned as one project (a call in one file of a function another declares counts).
    static func scanSources(_ operands: [String], macros: [String], positions: LocalizablePositions = .apple)
        -> (scan: SourceScanner.Scan, unreadable: Bool) {
        let scanner = SourceScanner(macros: Set(macros), positions: positions)
        var found: [(text: String, file: String)] = []
        var unreadable = false
        for operand in operands {
            let files: [String]
            do {
                files = try sources(under: absolute(operand))
            } catch {
                Console.error("\(program): \(error)")
                unreadable = true
                continue
            }
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    Console.error("\(program): cannot read \(file)")
                    unreadable = true
                    continue
                }
                found.append((String(decoding: data, as: UTF8.self), file))
            }
        }
        return (scanner.scan(found), unreadable)
    }

    private static func absolute(_ path: String) -> String {
        PathText.tidy(path.hasPrefix("/") ? path : Environment.currentDirectory + "/" + path)
    }

    /// `path` itself when it is a file, else the sources under it (hidden directories skipped), sorted.
    private static func sources(under path: String) throws -> [String] {
        try FileSearch.find(under: path, accepting: { ["swift", "m", "mm", "h"].contains(($0 as NSString).pathExtension) }, refusing: nil,
                            skippingHidden: true)
    }
}
