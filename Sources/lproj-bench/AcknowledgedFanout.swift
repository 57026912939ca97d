import CLinux
import Foundation
import LprojCommandLine

/// The fan-out's acknowledged side: N subscribers that acknowledge
/// generations (as LiveBundle does), one save at a time; per save, save →
/// the last subscriber has read the event, and save → the daemon has every
/// acknowledgement (a `wait` for the save's generation answers) — both on
/// the same save, so their ratio is what acknowledging costs.
enum AcknowledgedFanout {
    struct Result: Encodable {
        var subscribers: Int
        var lastRead: Distribution
        var lastAcknowledgement: Distribution
        var p99Ratio: Double
    }

    static func measure(subscribers count: Int, saves: Int) -> Result {
        let daemon = DaemonUnderTest()
        let relative = "App/en.lproj/Localizable.strings"
        let bundle = daemon.root + "/App"
        try? FileManager.default.createDirectory(atPath: bundle + "/en.lproj", withIntermediateDirectories: true)
        daemon.save(relative, LatencyBenchmark.table(keys: 100, marker: 0), atomically: false)
        let config = daemon.directory + "/lprojd.conf"
        try? Data("[Limits]\nMaxClients=\(count + 16)\n".utf8).write(to: URL(fileURLWithPath: config))
        daemon.start(extraArguments: ["--config", config])
        var subscribers: [Acknowledger] = []
        for _ in 0..<count {
            guard let subscriber = Acknowledger(socket: daemon.socket, bundle: bundle) else {
                Console.fail(program, "cannot subscribe \(count) acknowledging clients", status: 1)
            }
            subscribers.append(subscriber)
        }
        guard var waiter = RawSubscriber(socket: daemon.socket, subscribe: false), subscribers.first?.generation != nil else {
            Console.fail(program, "cannot reach the daemon", status: 1)
        }
        let poller = lproj_epoll_create()
        var indexOf: [Int32: Int] = [:]
        for (index, subscriber) in subscribers.enumerated() {
            indexOf[subscriber.descriptor] = index
            _ = lproj_epoll_control(poller, subscriber.descriptor, UInt32(LPROJ_POLL_IN), 1)
        }
        _ = lproj_epoll_control(poller, waiter.descriptor, UInt32(LPROJ_POLL_IN), 1)
        var reads: [Double] = [], acknowledgements: [Double] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        for save in 1...saves {
            // The generation this save makes: the next after the one every subscriber showed last.
            let generation = subscribers[0].generation! + 1
            let contents = LatencyBenchmark.table(keys: 100, marker: save)
            let needle = Array("\"k0000\":\"save \(save)\"".utf8)
            // Asked before the save: answered once every subscriber acknowledged the generation the save makes.
            let wait = Array("{\"id\":\(save),\"op\":\"wait\",\"bundles\":[\"\(bundle)\"],\"generation\":\(generation),\"timeout\":10}\n".utf8)
            _ = wait.withUnsafeBytes { send(waiter.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            for index in subscribers.indices { subscribers[index].seen = false }
            var unread = count
            var lastRead: Double?, lastAcknowledgement: Double?
            let start = Measure.now()
            daemon.save(relative, contents, atomically: save % 2 == 0)
            var descriptors = [Int32](repeating: 0, count: 256)
            var events = [UInt32](repeating: 0, count: 256)
            while lastAcknowledgement == nil, Measure.now() < start + 10 {
                let ready = lproj_epoll_wait(poller, &descriptors, &events, Int32(descriptors.count), 100)
                for slot in 0..<Int(max(0, ready)) {
                    let descriptor = descriptors[slot]
                    if descriptor == waiter.descriptor {
                        while let line = waiter.readLine(timeoutMilliseconds: 0) {
                            if line.contains("\"done\":true") { lastAcknowledgement = Measure.now() - start }
                        }
                        continue
                    }
                    guard let index = indexOf[descriptor] else { continue }
                    let (readEvent, _) = subscribers[index].receive(needle: needle, buffer: &buffer)
                    if readEvent, !subscribers[index].seen {
                        subscribers[index].seen = true
                        unread -= 1
                        if unread == 0 { lastRead = Measure.now() - start }
                    }
                }
            }
            if let lastRead, let lastAcknowledgement {
                reads.append(lastRead)
                acknowledgements.append(lastAcknowledgement)
            }
        }
        close(poller)
        for subscriber in subscribers { close(subscriber.descriptor) }
        close(waiter.descriptor)
        daemon.stop()
        let read = Distribution(seconds: reads), acknowledged = Distribution(seconds: acknowledgements)
        return Result(subscribers: count, lastRead: read, lastAcknowledgement: acknowledged, p99Ratio: acknowledged.p99 / read.p99)
    }

    /// A subscriber that acknowledges each generation the moment its event is read.
    struct Acknowledger {
        let descriptor: Int32
        let bundle: String
        /// The bundle's generation when it subscribed.
        var generation: UInt64?
        var seen = false
        private var pending: [UInt8] = []

        init?(socket path: String, bundle: String) {
            guard var raw = RawSubscriber(socket: path, subscribe: false) else { return nil }
            descriptor = raw.descriptor
            self.bundle = bundle
            let request = Array("{\"id\":1,\"op\":\"subscribe\",\"name\":\"b\",\"bundle\":\"\(bundle)\",\"acknowledges\":true}\n".utf8)
            _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard let reply = raw.readLine(timeoutMilliseconds: 10_000), reply.contains("\"ok\":true"),
                  let event = raw.readLine(timeoutMilliseconds: 10_000), let number = Self.generation(in: event) else { return nil }
            generation = number
            acknowledge(number)
            // Its reply: read and dropped.
            _ = raw.readLine(timeoutMilliseconds: 10_000)
        }

        /// Reads what is there; whether a line holding `needle` came, and acknowledges every generation event that did.
        mutating func receive(needle: [UInt8], buffer: inout [UInt8]) -> (Bool, Bool) {
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard count > 0 else { return (false, false) }
            pending += buffer.prefix(count)
            var found = false, acknowledged = false
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = pending[..<newline]
                if !found, line.count >= needle.count, String(decoding: line, as: UTF8.self).contains(String(decoding: needle, as: UTF8.self)) {
                    found = true
                }
                if line.starts(with: Array("{\"sub\":\"b\",".utf8)), let number = Self.generation(in: String(decoding: line, as: UTF8.self)) {
                    acknowledge(number)
                    generation = number
                    acknowledged = true
                }
                pending.removeSubrange(...newline)
            }
            return (found, acknowledged)
        }

        private func acknowledge(_ generation: UInt64) {
            let ack = Array("{\"id\":2,\"op\":\"ack\",\"bundle\":\"\(bundle)\",\"generation\":\(generation)}\n".utf8)
            _ = ack.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        private static func generation(in line: String) -> UInt64? {
            guard line.contains("\"event\":\"generation\""), let range = line.range(of: "\"generation\":") else { return nil }
            return UInt64(line[range.upperBound...].prefix { $0.isNumber })
        }
    }
}
