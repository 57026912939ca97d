#if canImport(Glibc)
import Glibc
#endif
import CHTTP
import CLinux
import Foundation

/// `[Socket] MetricsListen=`: `GET /metrics` over HTTP (libmicrohttpd, on
/// its own threads), for a Prometheus server to scrape. The text is the
/// core's, made on the daemon's loop: a request wakes the loop (`wakeUp`, an
/// eventfd it polls), which renders the text and hands it over; the request
/// waits at most 5 s for it (503 after), never touching the core itself.
final class MetricsEndpoint: @unchecked Sendable {
    /// The eventfd the loop polls: readable while a scrape waits.
    let wakeUp: Int32
    /// Where it listens (the port chosen, when 0 was asked for).
    let address: String
    private(set) var port: UInt16 = 0
    private var server: OpaquePointer?
    private let condition = NSCondition()
    /// Scrapes asked for, and the text of the last one rendered with the ticket it answers.
    private var asked: UInt64 = 0
    private var rendered: (ticket: UInt64, text: String) = (0, "")

    init(address: String, port: UInt16) throws(MetricsEndpointError) {
        wakeUp = lproj_eventfd()
        guard wakeUp >= 0 else { throw MetricsEndpointError(message: "eventfd: \(String(cString: strerror(errno)))") }
        self.address = address
        var error = [CChar](repeating: 0, count: 256)
        let context = Unmanaged.passUnretained(self).toOpaque()
        // Scrapers are few: a handful of connections, headers within 10 s, no body.
        server = lproj_http_start(address, port, 0, 16, 8, 10, { context, exchange, method, url, _, _, _ in
            let endpoint = Unmanaged<MetricsEndpoint>.fromOpaque(context!).takeUnretainedValue()
            endpoint.serve(exchange!, method: String(cString: method!), url: String(cString: url!))
        }, context, &error, error.count)
        guard let server else {
            close(wakeUp)
            throw MetricsEndpointError(message: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.port = lproj_http_port(server)
    }

    /// The URL it serves, for the log and `status`.
    var url: String { "http://\(address.contains(":") ? "[\(address)]" : address):\(port)/metrics" }

    /// On the loop, when `wakeUp` is readable: renders once for every scrape waiting.
    func render(_ text: () -> String) {
        var count: UInt64 = 0
        _ = read(wakeUp, &count, 8)
        condition.lock()
        let ticket = asked
        condition.unlock()
        let made = text()
        condition.lock()
        rendered = (ticket, made)
        condition.broadcast()
        condition.unlock()
    }

    func stop() {
        guard let server else { return }
        self.server = nil
        lproj_http_stop(server)
        close(wakeUp)
    }

    deinit { stop() }

    private func serve(_ exchange: OpaquePointer, method: String, url: String) {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        guard path == "/metrics" else { return respond(exchange, 404, "not found: lprojd serves /metrics\n") }
        guard method == "GET" || method == "HEAD" else { return respond(exchange, 405, "method not allowed: GET /metrics\n", allow: true) }
        condition.lock()
        asked += 1
        let ticket = asked
        condition.unlock()
        var one: UInt64 = 1
        _ = write(wakeUp, &one, 8)
        condition.lock()
        let deadline = Date().addingTimeInterval(5)
        while rendered.ticket < ticket, condition.wait(until: deadline) {}
        let text = rendered.ticket >= ticket ? rendered.text : nil
        condition.unlock()
        guard let text else { return respond(exchange, 503, "the daemon's loop did not answer within 5 s\n") }
        respond(exchange, 200, text, contentType: "text/plain; version=0.0.4; charset=utf-8")
    }

    private func respond(_ exchange: OpaquePointer, _ status: UInt32, _ body: String, contentType: String = "text/plain; charset=utf-8",
                         allow: Bool = false) {
        var headers = ["Content-Type", contentType, "Cache-Control", "no-store"]
        if allow { headers += ["Allow", "GET, HEAD"] }
        let copies = headers.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        let bytes = Array(body.utf8)
        pointers.withUnsafeBufferPointer { list in
            bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) {
                    _ = lproj_http_respond(exchange, status, list.baseAddress, headers.count / 2, $0.baseAddress, $0.count)
                }
            }
        }
    }
}

struct MetricsEndpointError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
