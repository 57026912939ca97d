import Foundation
import LprojBundles
import LprojClient
import LprojCommandLine
import LprojPaths
import LprojProtocol

/// `lprojctl coverage`: how far each localization of a bundle is translated.
enum CoverageCommand {
    static let help = """
        Usage: lprojctl coverage BUNDLE... [--development TAG] [--json] [--socket PATH]

        For each bundle directory, per table and localization: the keys to
        translate (the development localization's, and a String Catalog's own),
        how many are translated, missing, stale (a catalog's "stale" and
        "needs_review" states; "new" counts as missing) and unchanged (the
        development text itself, unless a comment holds lproj:same), and the words of the
        development text of the missing ones (what a translator quotes on). When
        a running lprojd answers, the keys apps looked up and did not find in
        that localization (lprojctl misses) are counted too.

        Options:
          --development TAG   the localization the others are measured against
                              (default: Info.plist's CFBundleDevelopmentRegion, else en)
          --json              print {"bundles": [{path, development, tables: [{table,
                              language, total, translated, missing, stale, unchanged, missingWords,
                              missedAtRuntime}]}]} (missedAtRuntime null without a daemon)
        \(LiveDaemon.socketHelp)

        Exit status: 0 success, 2 usage error or unreadable bundle.
        """

    static func run(_ argv: [String]) {
        let command = "\(program) coverage"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json"], options: ["development", "socket"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        guard !arguments.operands.isEmpty else { Console.usage(command, UsageError("no BUNDLE given")) }
        var bundles: [(coverage: Coverage, missed: [String: Int]?)] = []
        for operand in arguments.operands {
            let path = PathText.tidy(PathText.absolute(operand))
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                Console.fail(program, "\(operand): not a bundle directory", status: 2)
            }
            do {
                let coverage = try Coverage(bundle: path, development: arguments.value("development"))
                bundles.append((coverage, runtimeMisses(of: path, socket: arguments.value("socket"))))
            } catch {
                Console.fail(program, "cannot read \(error)", status: 2)
            }
        }
        if arguments.has("json") {
            Console.out(CanonicalJSON.text(["bundles": bundles.map { coverage, missed in
                [
                    "path": coverage.bundle, "development": coverage.development ?? NSNull(),
                    "tables": coverage.rows.map { row in
                        [
                            "table": row.table, "language": row.language, "total": row.total, "translated": row.translated,
                            "missing": row.missing, "stale": row.stale, "unchanged": row.unchanged, "missingWords": row.missingWords,
                            "missedAtRuntime": missed.map { $0[row.language + "/" + row.table] ?? 0 } ?? NSNull(),
                        ] as [String: Any]
                    },
                ] as [String: Any]
            }]))
            return
        }
        var lines: [String] = []
        for (coverage, missed) in bundles {
            lines.append("\(coverage.bundle)  (development: \(coverage.development ?? "none"))")
            let header = ["table", "language", "translated", "missing", "stale", "unchanged", "words missing", "missed at runtime"]
            let rows = coverage.rows.map { row in
                [row.table, row.language, "\(row.translated)/\(row.total)", "\(row.missing)", "\(row.stale)", "\(row.unchanged)", "\(row.missingWords)",
                 missed.map { "\($0[row.language + "/" + row.table] ?? 0)" } ?? "-"]
            }
            let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max()! }
            for row in [header] + rows {
                let cells = row.indices.map { column in
                    column < 2 ? row[column].padding(toLength: widths[column], withPad: " ", startingAt: 0)
                        : String(repeating: " ", count: widths[column] - row[column].count) + row[column]
                }
                lines.append("  " + cells.joined(separator: "  "))
            }
        }
        Console.out(lines.joined(separator: "\n"))
    }

    /// Distinct keys missed at runtime, by "language/table"; nil when no daemon answers (or it serves no such bundle).
    private static func runtimeMisses(of bundle: String, socket: String?) -> [String: Int]? {
        guard let connection = try? DaemonConnection(path: socket), (try? connection.send(Hello(client: "lprojctl coverage"))) != nil,
              let reply = try? connection.send(Misses(bundle: bundle)) else { return nil }
        var counts: [String: Int] = [:]
        for record in reply.misses { counts[(record.language ?? "-") + "/" + record.table, default: 0] += 1 }
        return counts
    }
}
