import Foundation
import LprojCommandLine
import LprojPaths
import LprojProtocol

/// `lprojctl misses`: the keys running apps looked up and did not find.
enum MissesCommand {
    static let help = """
        Usage: lprojctl misses [--bundle PATH] [--language TAG] [--app ID] [--limit N]
                               [--json] [--socket PATH]

        Lists the keys running apps looked up and did not find, most met first:
        per bundle, the count, the localization the app's view chose first, the
        table, the key, what answered instead (the development language's text,
        the caller's default, or the key itself), the app, and when it was last
        met. Every LiveBundle reports its misses to lprojd, at most once a
        second (keys and languages, never values or arguments; LPROJD_MISSES=off
        in a process's environment, or LiveBundle.Options.reportsMisses = false,
        turns that off; [Limits] Misses= bounds what the daemon keeps). A miss
        leaves the list when its table gets the key.

        Options:
          --bundle PATH     only this bundle's
          --language TAG    only misses of this localization
          --app ID          only this app's
          --limit N         at most N
          --json            print the daemon's reply as canonical JSON
        \(LiveDaemon.socketHelp)

        Exit status: 0 success, 1 the daemon refused (a bundle outside its roots),
        2 usage error, 3 no daemon answers.
        """

    static func run(_ argv: [String]) {
        let command = "\(program) misses"
        let arguments = LiveDaemon.arguments(argv, command: command, help: help, flags: ["json"],
                                             options: ["bundle", "language", "app", "limit"])
        var limit: Int?
        if let text = arguments.value("limit") {
            guard let number = Int(text), number >= 0 else { Console.usage(command, UsageError("--limit takes a number from 0, not '\(text)'")) }
            limit = number
        }
        let bundle = arguments.value("bundle").map { PathText.absolute($0) }
        let (connection, _) = LiveDaemon.connect(arguments, client: "lprojctl misses")
        let reply = LiveDaemon.send(Misses(bundle: bundle, language: arguments.value("language"), app: arguments.value("app"), limit: limit),
                                    on: connection)
        if arguments.has("json") {
            Console.out((try? CanonicalJSON.text(encoding: reply)) ?? "{}")
            return
        }
        Console.out(lines(reply).joined(separator: "\n"))
        if reply.capacity == 0 { Console.error("\(program): this lprojd keeps no misses ([Limits] Misses=0)") }
        if reply.dropped > 0 { Console.error("\(program): \(reply.dropped) misses were not kept (the bound of \(reply.capacity) was reached)") }
        if let more = reply.more, more > 0 {
            Console.error("\(program): \(more) more not shown (--limit, or the reply's size bound): narrow with --bundle, --language or --app")
        }
    }

    /// One block per bundle, a line per miss, columns aligned.
    static func lines(_ reply: Misses.Reply) -> [String] {
        guard !reply.misses.isEmpty else { return ["(no misses)"] }
        var lines: [String] = []
        var bundles: [String] = []
        for record in reply.misses where !bundles.contains(record.bundle) { bundles.append(record.bundle) }
        for bundle in bundles {
            let records = reply.misses.filter { $0.bundle == bundle }
            let rows = records.map { record in
                [String(record.count), record.language ?? "-", record.table, quoted(record.key), "→ \(record.answer.rawValue)", record.app ?? "-", record.lastSeen]
            }
            let widths = (0..<7).map { column in rows.map { $0[column].count }.max() ?? 0 }
            lines.append(bundle)
            for row in rows {
                let count = String(repeating: " ", count: widths[0] - row[0].count) + row[0]
                let rest = (1..<7).map { column in column == 6 ? row[column] : row[column].padding(toLength: widths[column], withPad: " ", startingAt: 0) }
                lines.append("  " + ([count] + rest).joined(separator: "  "))
            }
        }
        return lines
    }

    private static func quoted(_ key: String) -> String {
        "\"" + key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}
