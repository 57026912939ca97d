import LprojCommandLine
import LprojProtocol

/// `lprojctl metrics`: the daemon's metrics in Prometheus' text format.
enum MetricsCommand {
    static let help = """
        Usage: lprojctl metrics [--socket PATH]

        Prints the running lprojd's metrics in Prometheus' text exposition
        format (what [Socket] MetricsListen= serves over HTTP, for a
        Prometheus server to scrape): per bundle its generation and the
        processes following it and behind it; clients and subscriptions;
        events, acknowledgements, parse refusals and reloads; inotify watches
        beside the kernel's limit; the history's size; missed keys; and a
        histogram of the time from a save's event to its publication.
        For a textfile collector: lprojctl metrics > DIR/lprojd.prom.

        Options:
        \(LiveDaemon.socketHelp)

        Exit status: 0 success, 2 usage error, 3 no daemon answers.
        """

    static func run(_ argv: [String]) {
        let command = "\(program) metrics"
        let arguments = LiveDaemon.arguments(argv, command: command, help: help)
        let (connection, _) = LiveDaemon.connect(arguments, client: "lprojctl metrics")
        let text = LiveDaemon.send(MetricsRequest(), on: connection).text
        Console.out(String(text.dropLast(text.hasSuffix("\n") ? 1 : 0)))
    }
}
