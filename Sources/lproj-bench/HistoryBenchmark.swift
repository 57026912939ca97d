import Foundation
import LprojClient
import LprojCommandLine
import LprojProtocol

/// `lproj-bench history`: the daemon's memory once its event history is
/// full, beside the same daemon keeping no history, after the same saves.
enum HistoryBenchmark {
    static let help = """
        Usage: lproj-bench history [--saves N] [--keys N] [--bytes SIZE] [--json]

        Starts lprojd twice on the same table of N keys (default 5,000): once with
        [Limits] HistoryBytes=SIZE (default 64M), once with HistoryBytes=0; saves
        it N times (default 2,000), every value changed each time (each save is
        an event of every key), waiting for each to be published; then reads
        each daemon's resident memory. Reports what the history adds (the first
        minus the second) beside its bound: the goal is at most 1.25× the bound.
        """

    static func run(_ argv: [String]) {
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json"], options: ["saves", "keys", "bytes"])
        } catch {
            Console.usage("\(program) history", error)
        }
        if arguments.has("help") { Console.out(help); return }
        let saves = Int(arguments.value("saves") ?? "2000") ?? 2000
        let keys = Int(arguments.value("keys") ?? "5000") ?? 5000
        let bound = arguments.value("bytes") ?? "64M"
        let boundBytes = Self.bytes(bound)
        let with = measure(historyBytes: bound, saves: saves, keys: keys)
        let without = measure(historyBytes: "0", saves: saves, keys: keys)
        let added = with.rss - without.rss
        let ratio = Double(added) / Double(boundBytes)
        struct Report: Encodable { var saves: Int; var keys: Int; var bound: Int; var withHistory: Int; var withoutHistory: Int; var historyBytes: Int; var ratio: Double }
        if arguments.has("json") {
            Console.out((try? CanonicalJSON.text(encoding: Report(saves: saves, keys: keys, bound: boundBytes, withHistory: with.rss,
                                                                   withoutHistory: without.rss, historyBytes: with.historyBytes, ratio: ratio))) ?? "{}")
            return
        }
        func mib(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
        Console.out("""
            history: \(saves) saves of a \(keys)-key table, every value changed each time
              with HistoryBytes=\(bound): \(mib(with.rss)) resident (the history holds \(mib(with.historyBytes)) of events)
              with HistoryBytes=0: \(mib(without.rss)) resident
              the history adds \(mib(added)): \(String(format: "%.2f", ratio))× its bound — goal ≤ 1.25×: \(ratio <= 1.25 ? "met" : "NOT met")
            """)
    }

    private static func measure(historyBytes: String, saves: Int, keys: Int) -> (rss: Int, historyBytes: Int) {
        let daemon = DaemonUnderTest()
        let relative = "App/en.lproj/Localizable.strings"
        try? FileManager.default.createDirectory(atPath: daemon.root + "/App/en.lproj", withIntermediateDirectories: true)
        daemon.save(relative, table(keys: keys, round: 0), atomically: false)
        let config = daemon.directory + "/lprojd.conf"
        try? Data("[Limits]\nHistoryBytes=\(historyBytes)\nHistoryLength=1000000\n".utf8).write(to: URL(fileURLWithPath: config))
        daemon.start(extraArguments: ["--config", config])
        defer { daemon.stop() }
        guard let connection = try? DaemonConnection(path: daemon.socket) else { Console.fail(program, "cannot reach lprojd", status: 1) }
        for round in 1...saves {
            daemon.save(relative, table(keys: keys, round: round), atomically: round % 2 == 0)
            guard (try? connection.send(Sync(), timeout: .seconds(60))) != nil else { Console.fail(program, "lprojd did not answer", status: 1) }
        }
        let history = (try? connection.send(Status()))?.counters["history-bytes"] ?? 0
        return (daemon.residentBytes, Int(history))
    }

    /// A table whose every value names the round: each save changes every key.
    private static func table(keys: Int, round: Int) -> [UInt8] {
        var text = "/* generated */\n"
        for index in 0..<keys { text += "\"k\(String(format: "%05d", index))\" = \"Value \(index) of round \(round), with some words\";\n" }
        return Array(text.utf8)
    }

    private static func bytes(_ text: String) -> Int {
        let scale: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        if let last = text.last, let factor = scale[last] { return (Int(text.dropLast()) ?? 0) * factor }
        return Int(text) ?? 0
    }
}
