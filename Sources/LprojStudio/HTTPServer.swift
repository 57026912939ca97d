import CHTTP
import Foundation
import Synchronization

/// An HTTP request as the studio reads it: the method, the path, the few
/// headers, query arguments and cookie it looks at, and the whole body.
public struct HTTPRequest: Sendable {
    public var method: String
    public var path: String
    /// Request headers by lower-cased name (only those `HTTPServer.headerNames` lists).
    public var headers: [String: String]
    /// Query arguments (only those `HTTPServer.argumentNames` lists).
    public var query: [String: String]
    /// The studio's cookie, when sent.
    public var cookie: String?
    public var body: [UInt8]
    /// The body went past the server's bound (and is empty).
    public var bodyTooLarge: Bool

    public init(method: String, path: String, headers: [String: String] = [:], query: [String: String] = [:], cookie: String? = nil,
                body: [UInt8] = [], bodyTooLarge: Bool = false) {
        self.method = method
        self.path = path
        self.headers = headers
        self.query = query
        self.cookie = cookie
        self.body = body
        self.bodyTooLarge = bodyTooLarge
    }
}

/// What the studio answers: a status, headers and a body, or a stream of
/// server-sent events.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    public var stream: EventStream?

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = [], stream: EventStream? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.stream = stream
    }
}

/// libmicrohttpd (through `CHTTP`) on one address: a thread per
/// connection, each request handed to `handler` once whole (its body bounded).
public final class HTTPServer: @unchecked Sendable {
    /// The headers a request carries to the handler.
    static let headerNames = ["Host", "Origin", "Authorization", "Content-Type", "Accept", "Sec-Fetch-Site"]
    /// The query arguments a request carries to the handler.
    static let argumentNames = ["token", "bundle", "table", "languages", "filter", "q", "offset", "limit", "key", "language"]
    /// The studio's cookie.
    static let cookieName = "lproj_studio"

    private var server: OpaquePointer?
    private let handler: @Sendable (HTTPRequest) -> HTTPResponse
    /// The port listened on.
    public private(set) var port: UInt16 = 0

    /// Listens on `address` and `port` (0: a free one); `maximumBody` bounds
    /// request bodies. At most `connectionLimit` connections, `perPeer` of
    /// them from one peer (on loopback, one local user: another user's
    /// connections cannot take the owner's); a request's headers must be
    /// complete within `headerSeconds` (a slow sender is cut off then).
    public init(address: String, port: UInt16, maximumBody: Int, connectionLimit: Int = 64, perPeer: Int = 32, headerSeconds: Int = 10,
                handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws(StudioError) {
        self.handler = handler
        var error = [CChar](repeating: 0, count: 256)
        let context = Unmanaged.passUnretained(self).toOpaque()
        server = lproj_http_start(address, port, maximumBody, UInt32(connectionLimit), UInt32(clamping: perPeer), UInt32(clamping: headerSeconds), { context, exchange, method, url, body, size, tooLarge in
            let server = Unmanaged<HTTPServer>.fromOpaque(context!).takeUnretainedValue()
            server.serve(exchange!, method: String(cString: method!), url: String(cString: url!), body: body, size: size, tooLarge: tooLarge != 0)
        }, context, &error, error.count)
        guard server != nil else {
            throw StudioError(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.port = lproj_http_port(server)
    }

    /// Stops listening and waits for the connections' threads.
    public func stop() {
        guard let server else { return }
        self.server = nil
        lproj_http_stop(server)
    }

    deinit { stop() }

    private func serve(_ exchange: OpaquePointer, method: String, url: String, body: UnsafePointer<CChar>?, size: Int, tooLarge: Bool) {
        var headers: [String: String] = [:]
        for name in Self.headerNames {
            if let value = lproj_http_header(exchange, name) { headers[name.lowercased()] = String(cString: value) }
        }
        var query: [String: String] = [:]
        for name in Self.argumentNames {
            if let value = lproj_http_argument(exchange, name) { query[name] = String(cString: value) }
        }
        let cookie = lproj_http_cookie(exchange, Self.cookieName).map { String(cString: $0) }
        let bytes = body.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? []
        let response = handler(HTTPRequest(method: method, path: url, headers: headers, query: query, cookie: cookie, body: bytes,
                                           bodyTooLarge: tooLarge))
        let flat = response.headers.flatMap { [$0.0, $0.1] }
        withCStrings(flat) { pointers in
            if let stream = response.stream {
                let retained = Unmanaged.passRetained(stream).toOpaque()
                _ = lproj_http_respond_stream(exchange, UInt32(response.status), pointers, response.headers.count, { stream, buffer, max in
                    Unmanaged<EventStream>.fromOpaque(stream!).takeUnretainedValue().read(into: buffer!, max: max)
                }, { stream in
                    let stream = Unmanaged<EventStream>.fromOpaque(stream!).takeRetainedValue()
                    stream.close()
                }, retained)
            } else {
                _ = response.body.withUnsafeBufferPointer { body in
                    body.withMemoryRebound(to: CChar.self) { lproj_http_respond(exchange, UInt32(response.status), pointers, response.headers.count,
                                                                                $0.baseAddress, $0.count) }
                }
            }
        }
    }

    private func withCStrings<Result>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> Result) -> Result {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}

/// A stream of server-sent events to one page: what the hub posts is
/// queued (bounded: a page that does not read is closed, and reloads), and
/// handed to the server's thread for that connection as it asks, which
/// waits for it; a comment keeps an idle stream open.
public final class EventStream: @unchecked Sendable {
    private let condition = NSCondition()
    private var pending: [UInt8] = []
    private var closed = false
    /// Bytes queued at most before the stream is given up.
    static let limit = 4 << 20
    /// How long a read waits before a keep-alive comment.
    static let keepAlive: TimeInterval = 15

    public init() {}

    /// Queues `text` (an event, already framed); false when the stream is closed.
    @discardableResult
    public func post(_ text: String) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        if pending.count + text.utf8.count > Self.limit {
            closed = true
        } else {
            pending += Array(text.utf8)
        }
        condition.broadcast()
        return !closed
    }

    /// Ends the stream (the page reconnects).
    public func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    public var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    /// The server's thread asks for bytes: what is queued, else (after a
    /// wait) a keep-alive comment; -1 once closed and drained.
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        condition.lock()
        defer { condition.unlock() }
        if pending.isEmpty, !closed { _ = condition.wait(until: Date(timeIntervalSinceNow: Self.keepAlive)) }
        if pending.isEmpty {
            if closed { return -1 }
            pending = Array(": keep-alive\n\n".utf8)
        }
        let count = min(max, pending.count)
        pending.withUnsafeBufferPointer { source in
            buffer.withMemoryRebound(to: UInt8.self, capacity: count) { $0.update(from: source.baseAddress!, count: count) }
        }
        pending.removeFirst(count)
        return count
    }
}

/// Why the studio cannot run: one line.
public struct StudioError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
