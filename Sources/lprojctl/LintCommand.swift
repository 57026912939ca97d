import Foundation
import LprojCommandLine
import LprojFormats
import LprojPaths
import LprojTables

/// `lprojctl lint`: every problem in every table under the given paths.
enum LintCommand {
    static let help = """
        Usage: lprojctl lint [--format gcc|json] [--max-bytes N] PATH...

        Parses every .strings, .stringsdict and .xcstrings file named, or found under a
        named directory, and reports every problem with file, line and column.

        Options:
          --format gcc    one line per problem: path:line:column: severity: message (default)
          --format json   a JSON array of {file, line, column, severity, message, hint}
          --max-bytes N   refuse tables larger than N bytes (default 16777216)

        Exit status: 0 no errors (warnings allowed), 1 errors found, 2 usage error or
        unreadable path. A summary goes to standard error.
        """

    static func run(_ argv: [String]) {
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help"], options: ["format", "max-bytes"])
        } catch {
            Console.usage("\(program) lint", error)
        }
        if arguments.has("help") { Console.out(help); return }
        let format = arguments.value("format") ?? "gcc"
        guard format == "gcc" || format == "json" else {
            Console.usage("\(program) lint", UsageError("--format must be gcc or json, not '\(format)'"))
        }
        let limits = TableLimits(maximumFileBytes: byteLimit(arguments.value("max-bytes"), command: "lint"))
        guard !arguments.operands.isEmpty else {
            Console.usage("\(program) lint", UsageError("no PATH given"))
        }

        var unreadable = false
        var diagnostics: [Diagnostic] = []
        var fileCount = 0
        for operand in arguments.operands {
            let paths: [String]
            do {
                paths = try TableFiles.find(under: operand)
            } catch {
                Console.error("\(program): \(error)")
                unreadable = true
                continue
            }
            for path in paths {
                do {
                    let file = try TableFile.read(path: path, limits: limits)
                    diagnostics += file.diagnostics
                    fileCount += 1
                } catch {
                    Console.error("\(program): cannot read \(error)")
                    unreadable = true
                }
            }
        }

        printDiagnostics(diagnostics, format: format)
        let errors = diagnostics.filter { $0.severity == .error }.count
        let warnings = diagnostics.count - errors
        Console.error("\(plural(errors, "error")) and \(plural(warnings, "warning")) in \(plural(fileCount, "file"))")
        exit(unreadable ? 2 : errors > 0 ? 1 : 0)
    }

    private static func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}

/// Prints `diagnostics` as `--format` asks: one gcc-style line each, or a JSON array (`[]` for none).
func printDiagnostics(_ diagnostics: [Diagnostic], format: String) {
    if format == "json" {
        Console.out(try! CanonicalJSON.text(encoding: diagnostics))
    } else if !diagnostics.isEmpty {
        Console.out(diagnostics.map(\.description).joined(separator: "\n"))
    }
}

/// `--max-bytes` as a positive whole number, or a usage error.
func byteLimit(_ text: String?, command: String) -> Int {
    guard let text else { return TableLimits().maximumFileBytes }
    guard let value = Int(text), value > 0 else {
        Console.usage("\(program) \(command)", UsageError("--max-bytes must be a positive whole number, not '\(text)'"))
    }
    return value
}

/// Finding table files on disk.
enum TableFiles {
    /// `path` itself if it is a table file; the table files under it
    /// (sorted) if it is a directory.
    static func find(under path: String) throws -> [String] {
        try FileSearch.find(under: path, accepting: { TableFormat(path: $0) != nil },
                            refusing: "not a table file (expected .strings, .stringsdict or .xcstrings)")
    }
}

/// Files named on a command line: a file itself, or the files under a directory that `accepting` takes.
enum FileSearch {
    /// `path` itself when it is a file (refused with `refusing` unless
    /// `accepting` takes it; nil: any file named is taken), else the files
    /// under it that `accepting` takes, sorted; hidden directories skipped when `skippingHidden`.
    static func find(under path: String, accepting: (String) -> Bool, refusing: String?, skippingHidden: Bool = false) throws -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw TableReadError(path: path, reason: "no such file or directory")
        }
        guard isDirectory.boolValue else {
            if let refusing, !accepting(path) { throw TableReadError(path: path, reason: refusing) }
            return [path]
        }
        guard let enumerator = FileManager.default.enumerator(atPath: path) else {
            throw TableReadError(path: path, reason: "cannot list the directory")
        }
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            if skippingHidden, (relative as NSString).lastPathComponent.hasPrefix(".") {
                enumerator.skipDescendants()
                continue
            }
            if accepting(relative) { found.append(path.hasSuffix("/") ? path + relative : path + "/" + relative) }
        }
        return found.sorted()
    }
}

