import Foundation
import LprojCommandLine
import LprojProtocol

/// `lprojctl status`: what the running daemon is doing.
enum StatusCommand {
    static let help = """
        Usage: lprojctl status [--json] [--socket PATH]

        Shows the running lprojd: version, instance and clock, uptime, roots and
        watched directories, roots polled instead (and when each was last
        scanned), bundles and tables, connected clients with their subscriptions
        and queued bytes, counters, and warnings (a kernel limit reached, with
        the limit to raise).

        Options:
          --json          print the daemon's reply as canonical JSON
        \(LiveDaemon.socketHelp)

        Exit status: 0 success, 2 usage error, 3 no daemon answers.
        """

    static func run(_ argv: [String]) {
        let command = "\(program) status"
        let arguments = LiveDaemon.arguments(argv, command: command, help: help, flags: ["json"])
        let (connection, _) = LiveDaemon.connect(arguments, client: "lprojctl status")
        let status = LiveDaemon.send(Status(), on: connection)
        if arguments.has("json") {
            Console.out((try? CanonicalJSON.text(encoding: status)) ?? "{}")
            return
        }
        let uptime = Int(status.uptimeSeconds)
        var lines = [
            "\(status.server) (pid \(status.pid)), instance \(status.instance), clock \(status.clock), up \(uptime / 3600)h\(uptime / 60 % 60)m\(uptime % 60)s",
            "roots: \(status.roots.joined(separator: ", ")) (\(status.watches) directories watched)",
        ] + (status.polledRoots ?? []).map { polled in
            let scanned = polled.lastScanSecondsAgo.map { String(format: "last scanned %.1f s ago", $0) } ?? "not scanned since it was added"
            return "polled: \(polled.root) (\(polled.reason)), \(scanned)"
        } + [
            "\(status.bundles) bundle\(status.bundles == 1 ? "" : "s"), \(status.tables) table\(status.tables == 1 ? "" : "s")",
        ] + (status.metrics.map { ["metrics: \($0)"] } ?? []) + [
            "clients: \(status.clients.count)",
        ]
        for client in status.clients {
            var parts = [client.name ?? "(no hello)"]
            if let app = client.app { parts.append("app \(app)") }
            if let pid = client.pid { parts.append("pid \(pid)") }
            if !client.subscriptions.isEmpty { parts.append("subscriptions \(client.subscriptions.joined(separator: ","))") }
            parts.append("queued \(client.queuedBytes) B")
            lines.append("  " + parts.joined(separator: "  "))
        }
        lines.append("counters: " + status.counters.keys.sorted().map { "\($0) \(status.counters[$0]!)" }.joined(separator: ", "))
        if let error = status.lastError { lines.append("last error: \(error)") }
        for warning in status.warnings ?? [] { lines.append("warning: \(warning)") }
        Console.out(lines.joined(separator: "\n"))
    }
}
