import Foundation
import LprojCommandLine
import LprojProtocol

/// `lprojctl list`: the bundles the daemon serves, their localizations and tables.
enum ListCommand {
    static let help = """
        Usage: lprojctl list [--json] [--socket PATH]

        Lists every bundle the running lprojd knows, its localizations, and each
        table with its entry count. A table whose file is broken right now is
        marked "invalid" (its last good version is still served). A bundle the
        cross-language checks find problems in says how many (lprojctl tail
        --diagnostics shows them, lprojctl check BUNDLE too). Each bundle's
        generation (it grows with every published change) and its tables' hash
        are shown, with how many processes follow it and how many of those that
        acknowledge show it (lprojctl wait waits for them all).

        Options:
          --json          print the daemon's reply as canonical JSON
        \(LiveDaemon.socketHelp)

        Exit status: 0 success, 2 usage error, 3 no daemon answers.
        """

    static func run(_ argv: [String]) {
        let command = "\(program) list"
        let arguments = LiveDaemon.arguments(argv, command: command, help: help, flags: ["json"])
        let (connection, _) = LiveDaemon.connect(arguments, client: "lprojctl list")
        let list = LiveDaemon.send(List(), on: connection)
        if arguments.has("json") {
            Console.out((try? CanonicalJSON.text(encoding: list)) ?? "{}")
            return
        }
        var lines: [String] = []
        for bundle in list.bundles {
            var header = bundle.path
            if let checks = bundle.checks, checks.errors + checks.warnings > 0 {
                header += "  (checks: \(checks.errors) error\(checks.errors == 1 ? "" : "s"), \(checks.warnings) warning\(checks.warnings == 1 ? "" : "s"))"
            }
            lines.append(header)
            if let generation = bundle.generation {
                let followers = bundle.followers ?? []
                let acknowledging = followers.filter(\.acknowledges)
                let showing = acknowledging.filter { $0.refused == nil && $0.generation == generation }.count
                var line = "  generation \(generation) (\(bundle.hash ?? "")): \(followers.count) process\(followers.count == 1 ? "" : "es") following"
                if !acknowledging.isEmpty { line += ", \(showing) of \(acknowledging.count) acknowledging show it" }
                lines.append(line)
            }
            let width = bundle.localizations.map(\.name.count).max() ?? 0
            for localization in bundle.localizations {
                let tables = localization.tables.map { table -> String in
                    var detail = "\(table.entries)"
                    if table.health == .invalid { detail += ", invalid: \(table.errors) error\(table.errors == 1 ? "" : "s")" }
                    if table.warnings > 0 { detail += ", \(table.warnings) warning\(table.warnings == 1 ? "" : "s")" }
                    return "\(table.name) (\(detail))"
                }
                lines.append("  " + localization.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + tables.joined(separator: "  "))
            }
        }
        if lines.isEmpty { lines = ["(no bundles)"] }
        Console.out(lines.joined(separator: "\n"))
    }
}
