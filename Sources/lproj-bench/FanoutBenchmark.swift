import Foundation
import LprojCommandLine

/// `lproj-bench fanout`: one save, N subscribers; the time until the last
/// of them has read the event.
enum FanoutBenchmark {
    static func run(_ argv: [String]) {
        let command = "\(program) fanout"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json"], options: ["subscribers", "saves"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        let counts = (arguments.value("subscribers") ?? "1,100,1000").split(separator: ",").compactMap { Int($0) }
        guard !counts.isEmpty, counts.allSatisfy({ $0 > 0 }), let saves = Int(arguments.value("saves") ?? "100"), saves > 0 else {
            Console.usage(command, UsageError("--subscribers takes counts like 1,100,1000 and --saves a positive number"))
        }
        // A thousand sockets: raise the descriptor limit to what the system allows.
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)

        struct Row: Encodable { var subscribers: Int; var lastSubscriber: Distribution }
        var rows: [Row] = []
        for count in counts {
            let daemon = DaemonUnderTest()
            let relative = "App/en.lproj/Localizable.strings"
            try? FileManager.default.createDirectory(atPath: daemon.root + "/App/en.lproj", withIntermediateDirectories: true)
            daemon.save(relative, LatencyBenchmark.table(keys: 100, marker: 0), atomically: false)
            let config = daemon.directory + "/lprojd.conf"
            try? Data("[Limits]\nMaxClients=\(count + 16)\n".utf8).write(to: URL(fileURLWithPath: config))
            daemon.start(extraArguments: ["--config", config])
            var subscribers: [RawSubscriber] = []
            for _ in 0..<count {
                guard let subscriber = RawSubscriber(socket: daemon.socket) else { Console.fail(program, "cannot subscribe \(count) clients", status: 1) }
                subscribers.append(subscriber)
            }
            var times: [Double] = []
            for save in 1...saves {
                // The text is made before the clock starts: making it is not what is measured.
                let contents = LatencyBenchmark.table(keys: 100, marker: save)
                let needle = Array("\"k0000\":\"save \(save)\"".utf8)
                let start = Measure.now()
                daemon.save(relative, contents, atomically: save % 2 == 0)
                var waiting = Set(subscribers.indices)
                let deadline = start + 10
                var polls = subscribers.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
                while !waiting.isEmpty, Measure.now() < deadline {
                    guard poll(&polls, nfds_t(polls.count), 100) > 0 else { continue }
                    for index in waiting where polls[index].revents != 0 {
                        if subscribers[index].receive(containing: needle) {
                            waiting.remove(index)
                            polls[index].events = 0
                        }
                    }
                }
                if waiting.isEmpty { times.append(Measure.now() - start) }
            }
            for subscriber in subscribers { close(subscriber.descriptor) }
            daemon.stop()
            rows.append(Row(subscribers: count, lastSubscriber: Distribution(seconds: times)))
        }
        if arguments.has("json") {
            Console.out((try? CanonicalJSON.text(encoding: rows)) ?? "[]")
        } else {
            var lines = ["fanout: save of a 100-key table → the last subscriber has read the event (\(saves) saves each)"]
            for row in rows { lines.append("  \(row.subscribers) subscriber\(row.subscribers == 1 ? "" : "s"): \(row.lastSubscriber.text)") }
            if let thousand = rows.first(where: { $0.subscribers == 1000 }) {
                lines.append("  goal: p99 ≤ 20 ms at 1,000 — \(thousand.lastSubscriber.p99 <= 20 ? "met" : "NOT met")")
            }
            Console.out(lines.joined(separator: "\n"))
        }
    }

    static let help = """
        Usage: lproj-bench fanout [--subscribers N,...] [--saves N] [--json]

        For each count (default 1,100,1000), starts a real lprojd, connects that
        many subscribers, saves a 100-key table N times (default 100) and measures
        save start → the last subscriber has read the event.
        """
}
