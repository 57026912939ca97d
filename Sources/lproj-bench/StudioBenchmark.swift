import Foundation
import LprojCommandLine
import LprojEditing
import LprojStudio

/// `lproj-bench studio`: a page's `PUT /api/entry` until a second page's
/// event stream has the change, beside `TableWriter.set` (what `lprojctl
/// set` runs) until a daemon subscriber has it, alternating on one table.
enum StudioBenchmark {
    static func run(_ argv: [String]) {
        let command = "\(program) studio"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json"], options: ["keys", "saves"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        guard let keys = Int(arguments.value("keys") ?? "1000"), keys > 0, let saves = Int(arguments.value("saves") ?? "100"), saves > 0 else {
            Console.usage(command, UsageError("--keys and --saves take positive numbers"))
        }
        let daemon = DaemonUnderTest()
        let bundle = daemon.translatedBundle(keys: keys)
        daemon.start()
        let studio = Self.studio(socket: daemon.socket)
        defer { studio.stop() }
        guard let port = URLComponents(string: studio.address)?.port, var page = EventPage(port: UInt16(port), token: studio.access.token),
              var editor = KeptConnection(port: UInt16(port), token: studio.access.token),
              var subscriber = RawSubscriber(socket: daemon.socket), let writer = try? TableWriter(bundle: bundle) else {
            Console.fail(program, "cannot reach the studio or the daemon", status: 1)
        }
        var studioLatencies: [Double] = [], setLatencies: [Double] = []
        for save in 0..<saves {
            let value = "studio \(save)"
            let needle = "\"k0000\":\"\(value)\""
            let start = Measure.now()
            if save % 2 == 0 {
                let body = "{\"bundle\":\"\(bundle)\",\"language\":\"de\",\"key\":\"k0000\",\"value\":\"\(value)\"}"
                guard editor.put(body) == 200, page.arrive(needle) else {
                    Console.fail(program, "save \(save) through the studio did not arrive", status: 1)
                }
                studioLatencies.append(Measure.now() - start)
            } else {
                _ = try? writer.set("k0000", to: value, language: "de")
                while true {
                    guard let line = subscriber.readLine(timeoutMilliseconds: 10_000) else { Console.fail(program, "no event for save \(save)", status: 1) }
                    if line.contains(needle) { break }
                }
                setLatencies.append(Measure.now() - start)
            }
        }
        daemon.stop()
        let studioResult = Distribution(seconds: studioLatencies), setResult = Distribution(seconds: setLatencies)
        let ratio = studioResult.p50 / setResult.p50
        if arguments.has("json") {
            struct Report: Encodable { var keys: Int; var studio: Distribution; var set: Distribution; var p50Ratio: Double }
            Console.out((try? CanonicalJSON.text(encoding: Report(keys: keys, studio: studioResult, set: setResult, p50Ratio: ratio))) ?? "{}")
        } else {
            Console.out("""
                studio: \(saves) saves of one value in a \(keys)-key de.lproj/Localizable.strings, alternating
                  PUT /api/entry → a second page's event stream: \(studioResult.text)
                  TableWriter.set (lprojctl set) → a subscriber:  \(setResult.text)
                  p50 ratio studio / set: \(Measure.format(ratio, 2))× — goal ≤ 1.5×: \(ratio <= 1.5 ? "met" : "NOT met")
                """)
        }
    }

    /// A studio in this process over the daemon at `socket`, on a free loopback port.
    static func studio(socket: String) -> Studio {
        do {
            return try Studio(host: "127.0.0.1", port: 0, socket: socket, bundles: nil)
        } catch {
            Console.fail(program, "cannot start the studio: \(error)", status: 1)
        }
    }

    /// The page's connection for its saves, kept open between them as a browser keeps it.
    struct KeptConnection {
        let socket: Int32
        let port: UInt16
        let token: String

        init?(port: UInt16, token: String) {
            guard let socket = StudioBenchmark.connect(port: port) else { return nil }
            (self.socket, self.port, self.token) = (socket, port, token)
        }

        /// One `PUT /api/entry`; the status (0 when the answer did not come).
        mutating func put(_ body: String) -> Int {
            exchange("PUT", "/api/entry", body: body).status
        }

        /// One request on the kept connection: the status (0 when the answer did not come) and the body.
        mutating func exchange(_ method: String, _ path: String, body: String? = nil) -> (status: Int, body: [UInt8]) {
            let bytes = Array((body ?? "").utf8)
            var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\n"
            if body != nil { head += "Content-Type: application/json\r\nContent-Length: \(bytes.count)\r\n" }
            let request = Array((head + "\r\n").utf8) + bytes
            _ = request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // The answer: its head, then Content-Length bytes.
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                if let end = Self.headEnd(in: received) {
                    let head = String(decoding: received[..<end], as: UTF8.self).lowercased()
                    let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                    if received.count - (end + 4) >= length {
                        return (Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0, Array(received[(end + 4)..<(end + 4 + length)]))
                    }
                }
                let count = recv(socket, &buffer, buffer.count, 0)
                guard count > 0 else { return (0, []) }
                received += buffer.prefix(count)
            }
        }

        private static func headEnd(in bytes: [UInt8]) -> Int? {
            guard bytes.count >= 4 else { return nil }
            for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
                return index
            }
            return nil
        }
    }

    static func connect(port: UInt16) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// A second page: the studio's event stream, read as it comes.
    struct EventPage {
        let socket: Int32
        var pending = ""

        init?(port: UInt16, token: String) {
            guard let socket = StudioBenchmark.connect(port: port) else { return nil }
            self.socket = socket
            let request = Array("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\n\r\n".utf8)
            _ = request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard arrive("event: daemon\ndata: {\"connected\":true}") else { return nil }
        }

        /// Reads until `needle` has arrived (false after 10 s without it).
        mutating func arrive(_ needle: String) -> Bool {
            while true {
                if let range = pending.range(of: needle) {
                    pending.removeSubrange(..<range.upperBound)
                    return true
                }
                var poll = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                guard Glibc.poll(&poll, 1, 10_000) > 0 else { return false }
                var buffer = [UInt8](repeating: 0, count: 65536)
                let count = recv(socket, &buffer, buffer.count, 0)
                guard count > 0 else { return false }
                pending += String(decoding: buffer.prefix(count), as: UTF8.self)
            }
        }
    }

    static let help = """
        Usage: lproj-bench studio [--keys N] [--saves N] [--json]

        A real lprojd (the binary beside this one) serves a generated bundle
        (de.lproj/Localizable.strings of N keys, default 1,000, en beside it) and a
        studio runs in this process. --saves (default 100) saves of one value
        alternate between a page's PUT /api/entry, timed until a second page's
        event stream has the change, and TableWriter.set (what lprojctl set runs),
        timed until a daemon subscriber has it. Prints p50/p99 of both and their
        ratio (goal ≤ 1.5×).
        """
}
