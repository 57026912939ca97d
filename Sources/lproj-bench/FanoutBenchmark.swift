import Foundation
import CLinux
import LprojCommandLine
import Synchronization

/// `lproj-bench fanout`: one save, N subscribers; the time until the last
/// of them has read the event — beside the floor: the same event line
/// written by a plain loop to N connected sockets, read by the same loop.
enum FanoutBenchmark {
    static func run(_ argv: [String]) {
        let command = "\(program) fanout"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json"], options: ["subscribers", "saves", "rounds"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        let counts = (arguments.value("subscribers") ?? "1,100,1000").split(separator: ",").compactMap { Int($0) }
        guard !counts.isEmpty, counts.allSatisfy({ $0 > 0 }), let saves = Int(arguments.value("saves") ?? "100"), saves > 0,
              let rounds = Int(arguments.value("rounds") ?? "1"), rounds > 0 else {
            Console.usage(command, UsageError("--subscribers takes counts like 1,100,1000, --saves and --rounds positive numbers"))
        }
        // A thousand sockets: raise the descriptor limit to what the system allows.
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)

        struct Row: Encodable {
            var subscribers: Int; var firstSubscriber: Distribution; var lastSubscriber: Distribution; var floor: Distribution; var p99Ratio: Double
            var floorFromSave: Distribution; var p99RatioFromSave: Double; var p50RatioFromSave: Double; var round: Int
        }
        var rows: [Row] = []
        // Each round a daemon and its subscribers anew: the goal is held in every round of one run, not in the best.
        for round in 1...rounds { for count in counts {
            let daemon = DaemonUnderTest()
            let relative = "App/en.lproj/Localizable.strings"
            try? FileManager.default.createDirectory(atPath: daemon.root + "/App/en.lproj", withIntermediateDirectories: true)
            daemon.save(relative, LatencyBenchmark.table(keys: 100, marker: 0), atomically: false)
            let config = daemon.directory + "/lprojd.conf"
            try? Data("[Limits]\nMaxClients=\(count + 16)\n".utf8).write(to: URL(fileURLWithPath: config))
            daemon.start(extraArguments: ["--config", config])
            var connected: [RawSubscriber] = []
            for _ in 0..<count {
                guard let subscriber = RawSubscriber(socket: daemon.socket) else { Console.fail(program, "cannot subscribe \(count) clients", status: 1) }
                connected.append(subscriber)
            }
            let subscribers = Readers(connected)
            let floor = Floor(subscribers: count, bundle: daemon.root + "/App")
            let fromSave = Floor(subscribers: count, bundle: daemon.root + "/App", seeingSavesIn: daemon.directory + "/floor")
            var times: [Double] = [], firsts: [Double] = [], floorTimes: [Double] = [], fromSaveTimes: [Double] = []
            // The three ways take turns save by save (each going first in turn),
            // so that a slow minute of the machine falls on all three alike.
            for save in 1...saves {
                for way in (0..<3).map({ ($0 + save) % 3 }) {
                    switch way {
                    case 0:
                        // The text is made before the clock starts: making it is not what is measured.
                        let contents = LatencyBenchmark.table(keys: 100, marker: save)
                        let needle = Array("\"k0000\":\"save \(save)\"".utf8)
                        subscribers.rearm()
                        let start = Measure.now()
                        daemon.save(relative, contents, atomically: save % 2 == 0)
                        if let (first, last) = subscribers.untilAllHave(needle, since: start) {
                            firsts.append(first)
                            times.append(last)
                        }
                    case 1:
                        if let time = floor.time(save: save) { floorTimes.append(time) }
                    default:
                        if let time = fromSave.time(save: save) { fromSaveTimes.append(time) }
                    }
                }
            }
            floor.stop()
            fromSave.stop()
            for subscriber in subscribers.subscribers { close(subscriber.descriptor) }
            daemon.stop()
            let lprojd = Distribution(seconds: times), floorTimed = Distribution(seconds: floorTimes)
            let fromSaveTimed = Distribution(seconds: fromSaveTimes)
            rows.append(Row(subscribers: count, firstSubscriber: Distribution(seconds: firsts), lastSubscriber: lprojd, floor: floorTimed,
                            p99Ratio: lprojd.p99 / floorTimed.p99, floorFromSave: fromSaveTimed, p99RatioFromSave: lprojd.p99 / fromSaveTimed.p99,
                            p50RatioFromSave: lprojd.p50 / fromSaveTimed.p50, round: round))
        } }
        // Acknowledging subscribers, as LiveBundle is: save → the last acknowledgement beside save → the last read, the same saves.
        let acknowledged = counts.map { AcknowledgedFanout.measure(subscribers: $0, saves: saves) }
        if arguments.has("json") {
            struct Report: Encodable { var rows: [Row]; var acknowledged: [AcknowledgedFanout.Result] }
            Console.out((try? CanonicalJSON.text(encoding: Report(rows: rows, acknowledged: acknowledged))) ?? "{}")
        } else {
            var lines = ["fanout: save of a 100-key table → the last subscriber has read the event (\(saves) saves each)"]
            for row in rows {
                lines.append("  \(rounds > 1 ? "round \(row.round), " : "")\(row.subscribers) subscriber\(row.subscribers == 1 ? "" : "s"): \(row.lastSubscriber.text)")
                lines.append("    (the first of them: \(row.firstSubscriber.text))")
                lines.append("    floor (a plain loop writing the line to each socket): \(row.floor.text); p99 ratio \(Measure.format(row.p99Ratio, 2))×")
                lines.append("    floor from the save (the same loop, started by inotify seeing the save): \(row.floorFromSave.text); "
                             + "p50 ratio \(Measure.format(row.p50RatioFromSave, 2))×, p99 ratio \(Measure.format(row.p99RatioFromSave, 2))×")
            }
            let fromSave = rows.filter { $0.subscribers == 1000 }
            if !fromSave.isEmpty {
                let met = fromSave.allSatisfy { $0.p50RatioFromSave <= 1.5 && $0.p99RatioFromSave <= 1.5 }
                lines.append("  goal: at 1,000, p50 and p99 ≤ 1.5× the floor from the save in each of \(fromSave.count) round\(fromSave.count == 1 ? "" : "s") — "
                             + "\(met ? "met" : "NOT met")")
            }
            if let thousand = rows.first(where: { $0.subscribers == 1000 }) {
                let met = thousand.p99Ratio <= 1.5 && thousand.lastSubscriber.p99 <= 5
                lines.append("  goal: p99 ≤ 1.5× the floor's and ≤ 5 ms at 1,000 — \(met ? "met" : "NOT met")")
            }
            for row in acknowledged {
                lines.append("  ack, \(row.subscribers) acknowledging subscriber\(row.subscribers == 1 ? "" : "s"): save → the last acknowledgement "
                             + "\(row.lastAcknowledgement.text); save → the last read \(row.lastRead.text); p99 ratio \(Measure.format(row.p99Ratio, 2))×")
            }
            if let thousand = acknowledged.first(where: { $0.subscribers == 1000 }) {
                lines.append("  goal: ack p99 ≤ 1.5× the last read's at 1,000 — \(thousand.p99Ratio <= 1.5 ? "met" : "NOT met")")
            }
            Console.out(lines.joined(separator: "\n"))
        }
    }

    /// The floor: an event line like the daemon's, written by a plain loop on
    /// another thread to `subscribers` connected sockets (socket pairs), and
    /// read the way the daemon's subscribers are read (`Readers`). The clock
    /// starts when the loop is told to write — or, with `seeingSavesIn` (a
    /// directory made for it), as the daemon's does: before the same save
    /// of a table there, which the loop's thread waits to see through inotify.
    /// It lives as long as the daemon's subscribers do: the ways take turns.
    final class Floor {
        private let writers: [Int32]
        private let readers: Readers
        private let go = DispatchSemaphore(value: 0)
        private let saved: SaveWatch?
        /// The line the loop writes next (set before its clock starts; empty: the benchmark is over).
        private let line = NextLine()
        private let bundle: String

        init(subscribers count: Int, bundle: String, seeingSavesIn directory: String? = nil) {
            var made: [Int32] = []
            var connected: [RawSubscriber] = []
            for _ in 0..<count {
                var pair: [Int32] = [0, 0]
                guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                    Console.fail(program, "cannot make \(count) socket pairs", status: 1)
                }
                made.append(pair[0])
                connected.append(RawSubscriber(connected: pair[1]))
            }
            writers = made
            self.bundle = bundle
            readers = Readers(connected)
            saved = directory.map { SaveWatch(directory: $0) }
            let (go, saved, line, writers) = (go, saved, line, made)
            let writing = Thread {
                while true {
                    if let saved { saved.waitForSave() } else { go.wait() }
                    let bytes = line.bytes.withLock { $0 }
                    if bytes.isEmpty { return }
                    for descriptor in writers { _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
                }
            }
            writing.start()
        }

        /// Seconds from the start (the loop told to write, or the save) until every subscriber has save `save`'s line.
        func time(save: Int) -> Double? {
            let needle = Array("\"k0000\":\"save \(save)\"".utf8)
            // (Made before the clock starts, as the daemon's saves are.)
            line.bytes.withLock {
                $0 = Array(("{\"sub\":\"b\",\"event\":\"table-changed\",\"clock\":\"0123456789abcdef:\(save)\",\"bundle\":\"\(bundle)\","
                            + "\"language\":\"en\",\"table\":\"Localizable\",\"changed\":{\"k0000\":\"save \(save)\"}}\n").utf8)
            }
            let contents = saved == nil ? [] : LatencyBenchmark.table(keys: 100, marker: save)
            readers.rearm()
            let start = Measure.now()
            if let saved { DaemonUnderTest.save(at: saved.file, contents, atomically: save % 2 == 0) } else { go.signal() }
            return readers.untilAllHave(needle, since: start)?.last
        }

        /// Ends the loop's thread (it waits for its next line, every one
        /// before having been read whole) and closes the sockets.
        func stop() {
            line.bytes.withLock { $0 = [] }
            if let saved { DaemonUnderTest.save(at: saved.file, [], atomically: false) } else { go.signal() }
            for descriptor in writers + readers.subscribers.map(\.descriptor) { close(descriptor) }
        }

        private final class NextLine: Sendable {
            let bytes = Mutex<[UInt8]>([])
        }
    }

    /// A table file in a directory of its own, watched with a plain inotify
    /// descriptor: what the floor from the save waits on.
    final class SaveWatch: Sendable {
        let file: String
        private let descriptor: Int32

        init(directory: String) {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            file = directory + "/Localizable.strings"
            descriptor = inotify_init1(Int32(IN_CLOEXEC))
            guard descriptor >= 0, inotify_add_watch(descriptor, directory, UInt32(IN_CLOSE_WRITE | IN_MOVED_TO)) >= 0 else {
                Console.fail(program, "cannot watch \(directory) with inotify: \(String(cString: strerror(errno)))", status: 1)
            }
        }

        deinit { close(descriptor) }

        /// Blocks until the table file is saved: closed after a write, or renamed into place.
        func waitForSave() {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { return }
                var offset = 0
                var saved = false
                while offset + 16 <= count {
                    let length = Int(buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) })
                    let name = buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
                    if name.elementsEqual("Localizable.strings".utf8) { saved = true }
                    offset += 16 + length
                }
                if saved { return }
            }
        }
    }

    /// The reading side both ways share: every subscriber's socket in one
    /// epoll set, each reported once a save (a wake costs the sockets that
    /// have data, not a scan of all of them), and one buffer for every read.
    final class Readers {
        private(set) var subscribers: [RawSubscriber]
        private let poller = lproj_epoll_create()
        /// Subscriber index by descriptor.
        private var indexOf: [Int: Int] = [:]
        private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)

        init(_ subscribers: [RawSubscriber]) {
            self.subscribers = subscribers
            for (index, subscriber) in subscribers.enumerated() {
                indexOf[Int(subscriber.descriptor)] = index
                _ = lproj_epoll_control(poller, subscriber.descriptor, UInt32(LPROJ_POLL_IN | LPROJ_POLL_ONESHOT), 1)
            }
        }

        deinit {
            close(poller)
            buffer.deallocate()
        }

        /// Makes every subscriber reportable again: call before the clock starts.
        func rearm() {
            for subscriber in subscribers {
                _ = lproj_epoll_control(poller, subscriber.descriptor, UInt32(LPROJ_POLL_IN | LPROJ_POLL_ONESHOT), 0)
            }
        }

        /// Seconds from `start` until the first and until every subscriber
        /// has read a line holding `needle` (nil after 10 s).
        func untilAllHave(_ needle: [UInt8], since start: Double) -> (first: Double, last: Double)? {
            var waiting = subscribers.count
            var first: Double?
            let deadline = start + 10
            var descriptors = [Int32](repeating: 0, count: 256)
            var events = [UInt32](repeating: 0, count: 256)
            while waiting > 0, Measure.now() < deadline {
                let ready = lproj_epoll_wait(poller, &descriptors, &events, Int32(descriptors.count), 100)
                guard ready > 0 else { continue }
                for slot in 0..<Int(ready) {
                    let descriptor = descriptors[slot]
                    guard let index = indexOf[Int(descriptor)] else { continue }
                    if subscribers[index].receive(containing: needle, buffer: buffer) {
                        if first == nil { first = Measure.now() - start }
                        waiting -= 1
                    } else {
                        // Not yet whole: report it again when more comes.
                        _ = lproj_epoll_control(poller, descriptor, UInt32(LPROJ_POLL_IN | LPROJ_POLL_ONESHOT), 0)
                    }
                }
            }
            guard waiting == 0, let first else { return nil }
            return (first, Measure.now() - start)
        }
    }

    static let help = """
        Usage: lproj-bench fanout [--subscribers N,...] [--saves N] [--rounds N] [--json]

        For each count (default 1,100,1000), starts a real lprojd, connects that
        many subscribers, saves a 100-key table N times (default 100) and measures
        save start → the last subscriber has read the event; beside it the floor:
        the same kind of event line written by a plain loop to that many connected
        sockets, read the same way, and the ratio of the two p99s; and the floor
        from the save: that loop started by inotify seeing the same save of a
        table in a directory of its own, timed from the save, as lprojd is. The
        three take turns save by save, each going first in turn. --rounds N
        (default 1) does it all N times, a daemon and its subscribers anew each
        time, and holds the goal (p50 and p99 ≤ 1.5× the floor from the save at
        1,000) to every round. Then, with
        subscribers that acknowledge generations (as LiveBundle does): per save,
        save → the daemon has every acknowledgement (a wait for the save's
        generation answers) beside save → the last subscriber read the event.
        """
}
