import Foundation
import LprojCommandLine

/// `lproj-bench fanout`: one save, N subscribers; the time until the last
/// of them has read the event — beside the floor: the same event line
/// written by a plain loop to N connected sockets, read by the same loop.
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

        struct Row: Encodable { var subscribers: Int; var lastSubscriber: Distribution; var floor: Distribution; var p99Ratio: Double }
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
                if let time = Self.untilAllHave(needle, &subscribers, since: start) { times.append(time) }
            }
            for subscriber in subscribers { close(subscriber.descriptor) }
            daemon.stop()
            let lprojd = Distribution(seconds: times), floor = Self.floor(subscribers: count, saves: saves, bundle: daemon.root + "/App")
            rows.append(Row(subscribers: count, lastSubscriber: lprojd, floor: floor, p99Ratio: lprojd.p99 / floor.p99))
        }
        if arguments.has("json") {
            Console.out((try? CanonicalJSON.text(encoding: rows)) ?? "[]")
        } else {
            var lines = ["fanout: save of a 100-key table → the last subscriber has read the event (\(saves) saves each)"]
            for row in rows {
                lines.append("  \(row.subscribers) subscriber\(row.subscribers == 1 ? "" : "s"): \(row.lastSubscriber.text)")
                lines.append("    floor (a plain loop writing the line to each socket): \(row.floor.text); p99 ratio \(Measure.format(row.p99Ratio, 2))×")
            }
            if let thousand = rows.first(where: { $0.subscribers == 1000 }) {
                let met = thousand.p99Ratio <= 1.5 && thousand.lastSubscriber.p99 <= 5
                lines.append("  goal: p99 ≤ 1.5× the floor's and ≤ 5 ms at 1,000 — \(met ? "met" : "NOT met")")
            }
            Console.out(lines.joined(separator: "\n"))
        }
    }

    /// The floor: an event line like the daemon's, written by a plain loop on
    /// another thread to `subscribers` connected sockets (socket pairs), and
    /// read by the same poll loop the daemon's subscribers are read with.
    static func floor(subscribers count: Int, saves: Int, bundle: String) -> Distribution {
        var writers: [Int32] = []
        var readers: [RawSubscriber] = []
        for _ in 0..<count {
            var pair: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                Console.fail(program, "cannot make \(count) socket pairs", status: 1)
            }
            writers.append(pair[0])
            readers.append(RawSubscriber(connected: pair[1]))
        }
        defer { (writers + readers.map(\.descriptor)).forEach { _ = close($0) } }
        let go = DispatchSemaphore(value: 0)
        // Every save's line made before any is timed.
        let lines = (1...saves).map { save in
            Array(("{\"sub\":\"b\",\"event\":\"table-changed\",\"clock\":\"0123456789abcdef:\(save)\",\"bundle\":\"\(bundle)\","
                   + "\"language\":\"en\",\"table\":\"Localizable\",\"changed\":{\"k0000\":\"save \(save)\"}}\n").utf8)
        }
        let writing = Thread { [writers] in
            for line in lines {
                go.wait()
                for descriptor in writers { _ = line.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
            }
        }
        writing.start()
        var times: [Double] = []
        for save in 1...saves {
            let needle = Array("\"k0000\":\"save \(save)\"".utf8)
            let start = Measure.now()
            go.signal()
            if let time = Self.untilAllHave(needle, &readers, since: start) { times.append(time) }
        }
        return Distribution(seconds: times)
    }

    /// Seconds from `start` until every subscriber has read a line holding `needle` (nil after 10 s).
    private static func untilAllHave(_ needle: [UInt8], _ subscribers: inout [RawSubscriber], since start: Double) -> Double? {
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
        return waiting.isEmpty ? Measure.now() - start : nil
    }

    static let help = """
        Usage: lproj-bench fanout [--subscribers N,...] [--saves N] [--json]

        For each count (default 1,100,1000), starts a real lprojd, connects that
        many subscribers, saves a 100-key table N times (default 100) and measures
        save start → the last subscriber has read the event; then the floor: the
        same kind of event line written by a plain loop to that many connected
        sockets, read the same way, and the ratio of the two p99s.
        """
}
