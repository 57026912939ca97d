import Foundation
import LprojCommandLine
import Synchronization

/// `lproj-bench latency`: save → event read by a subscriber, lprojd (parse
/// and diff included) beside `inotifywait -m` (notification only) on the
/// same saves in the same run.
enum LatencyBenchmark {
    static func run(_ argv: [String]) {
        let command = "\(program) latency"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json"], options: ["saves", "keys", "interval-ms", "tree"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        guard let saves = Int(arguments.value("saves") ?? "200"), saves > 0,
              let keys = Int(arguments.value("keys") ?? "1000"), keys > 0,
              let interval = Double(arguments.value("interval-ms") ?? "2"), interval >= 0,
              let tree = Int(arguments.value("tree") ?? "0"), tree >= 0 else {
            Console.usage(command, UsageError("--saves, --keys, --interval-ms and --tree take positive numbers"))
        }
        let daemon = DaemonUnderTest()
        let relative = "App/en.lproj/Localizable.strings"
        let directory = daemon.root + "/App/en.lproj"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        daemon.save(relative, table(keys: keys, marker: 0), atomically: false)
        if tree > 0 {
            // The crawl's tree beside, and a translation of the saved table: each save checks de against it again.
            _ = CrawlBenchmark.generateTree(in: daemon.root, bundles: tree)
            try? FileManager.default.createDirectory(atPath: daemon.root + "/App/de.lproj", withIntermediateDirectories: true)
            daemon.save("App/de.lproj/Localizable.strings", table(keys: keys, marker: 0), atomically: false)
        }

        // The peer: inotifywait on the same directory, timestamps taken as its lines arrive.
        let peer = Process()
        peer.executableURL = URL(fileURLWithPath: "/usr/bin/inotifywait")
        peer.arguments = ["-m", "-e", "close_write,moved_to", "--format", "%e %f", directory]
        let peerOut = Pipe(), peerErr = Pipe()
        peer.standardOutput = peerOut
        peer.standardError = peerErr
        do { try peer.run() } catch { Console.fail(program, "cannot run inotifywait (Debian: inotify-tools): \(error)", status: 1) }
        defer { peer.terminate() }
        var established = ""
        while !established.contains("Watches established") {
            let data = peerErr.fileHandleForReading.availableData
            guard !data.isEmpty else { Console.fail(program, "inotifywait failed: \(established)", status: 1) }
            established += String(decoding: data, as: UTF8.self)
        }
        daemon.start()
        guard let subscriber = RawSubscriber(socket: daemon.socket) else { Console.fail(program, "cannot subscribe", status: 1) }

        let peerArrivals = Mutex<[Double]>([])
        let daemonArrivals = Mutex<[(marker: Int, time: Double)]>([])
        let peerHandle = peerOut.fileHandleForReading
        let peerThread = Thread {
            var pending = ""
            while true {
                let data = peerHandle.availableData
                let now = Measure.now()
                if data.isEmpty { return }
                pending += String(decoding: data, as: UTF8.self)
                while let newline = pending.firstIndex(of: "\n") {
                    let line = pending[..<newline]
                    if line.hasSuffix(" Localizable.strings") { peerArrivals.withLock { $0.append(now) } }
                    pending = String(pending[pending.index(after: newline)...])
                }
            }
        }
        peerThread.start()
        let daemonThread = Thread {
            var reader = subscriber
            while let line = reader.readLine(timeoutMilliseconds: 30_000) {
                let now = Measure.now()
                guard line.contains("\"event\":\"table-changed\""), let marker = marker(in: line) else { continue }
                daemonArrivals.withLock { $0.append((marker, now)) }
                if marker == saves { return }
            }
        }
        daemonThread.start()

        // Every save's text made before the first: formatting a table took the
        // writer most of each 2 ms, and its CPU is not what is measured.
        let tables = (1...saves).map { table(keys: keys, marker: $0) }
        var starts: [Double] = []
        starts.reserveCapacity(saves)
        for save in 1...saves {
            let start = Measure.now()
            starts.append(start)
            daemon.save(relative, tables[save - 1], atomically: save % 2 == 0)
            Measure.sleep(until: start + interval / 1000)
        }
        // Wait (bounded) until both saw the last save.
        let deadline = Measure.now() + 30
        while Measure.now() < deadline {
            let done = peerArrivals.withLock { $0.count >= saves } && daemonArrivals.withLock { $0.last?.marker == saves }
            if done { break }
            usleep(1000)
        }
        let peerTimes = peerArrivals.withLock { $0 }
        let daemonTimes = daemonArrivals.withLock { $0 }
        daemon.stop()
        // The k-th inotifywait line is the k-th save; lprojd's event for save i is the
        // first whose table already holds save i (a burst may be coalesced).
        let peerLatencies = zip(starts, peerTimes).map { $1 - $0 }
        var daemonLatencies: [Double] = []
        for (index, start) in starts.enumerated() {
            if let arrival = daemonTimes.first(where: { $0.marker >= index + 1 }) { daemonLatencies.append(arrival.time - start) }
        }
        let peerResult = Distribution(seconds: peerLatencies), daemonResult = Distribution(seconds: daemonLatencies)
        let coalesced = saves - Set(daemonTimes.map(\.marker)).count
        if arguments.has("json") {
            struct Report: Encodable { var saves: Int; var keys: Int; var inotifywait: Distribution; var lprojd: Distribution; var p50Ratio: Double; var coalescedSaves: Int }
            Console.out((try? CanonicalJSON.text(encoding: Report(saves: saves, keys: keys, inotifywait: peerResult, lprojd: daemonResult,
                                                                  p50Ratio: daemonResult.p50 / peerResult.p50, coalescedSaves: coalesced))) ?? "{}")
        } else {
            Console.out("""
                latency: \(saves) saves of a \(keys)-key en.lproj/Localizable.strings, \(Measure.format(interval)) ms apart, in place and renamed alternately
                  inotifywait -m (notification only): \(peerResult.text)
                  lprojd (parse + diff + publish):     \(daemonResult.text)
                  p50 ratio lprojd / inotifywait: \(Measure.format(daemonResult.p50 / peerResult.p50, 2))×; saves folded into a later event: \(coalesced)
                  goal: p99 ≤ 5 ms and p50 ≤ 3× inotifywait's — \(daemonResult.p99 <= 5 && daemonResult.p50 <= 3 * peerResult.p50 ? "met" : "NOT met")
                """)
        }
    }

    /// The save number carried in key `k0000`'s value.
    private static func marker(in line: String) -> Int? {
        guard let range = line.range(of: "\"k0000\":\"save ") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }

    static func table(keys: Int, marker: Int) -> [UInt8] {
        var text = "/* generated */\n\"k0000\" = \"save \(marker)\";\n"
        for index in 1..<max(keys, 1) {
            text += "\"k\(String(format: "%04d", index))\" = \"Value \(index) of the table, with some words in it\";\n"
        }
        return Array(text.utf8)
    }

    static let help = """
        Usage: lproj-bench latency [--saves N] [--keys N] [--interval-ms MS] [--tree N] [--json]

        Saves a generated en.lproj/Localizable.strings (default 1,000 keys) N times
        (default 200), MS apart (default 2), alternating an in-place rewrite and a
        write-then-rename, and measures save start → event read, for a subscriber
        of a real lprojd (the binary beside this one) and for `inotifywait -m -e
        close_write,moved_to` on the same saves. Prints p50/p99 for both. With
        --tree N, the crawl's tree of N bundles (500: 50,000 tables) lies beside,
        and a de.lproj copy of the table is checked against each save (the
        daemon's cross-language checks run after every change).
        """
}
