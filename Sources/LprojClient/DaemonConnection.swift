#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LprojProtocol

/// A blocking connection to lprojd for tools and tests: send a request and
/// wait for its reply; events that arrive meanwhile are kept, in order, for
/// `nextEvent`. Every wait has a deadline. Use it from one thread.
public final class DaemonConnection {
    /// Why talking to the daemon failed.
    public enum Failure: Error, CustomStringConvertible {
        /// No daemon answers at the path (or the socket cannot be reached).
        case unreachable(path: String, reason: String)
        /// The daemon closed the connection.
        case closed
        /// Nothing arrived before the deadline.
        case timedOut
        /// The daemon refused the request.
        case refused(ProtocolError)
        /// A line that is not what the protocol promises.
        case garbled(String)

        public var description: String {
            switch self {
            case .unreachable(let path, let reason): return "cannot reach lprojd at \(path): \(reason)"
            case .closed: return "lprojd closed the connection"
            case .timedOut: return "lprojd did not answer in time"
            case .refused(let error): return "\(error.message) (\(error.code.rawValue)\(error.field.map { ", field \($0)" } ?? ""))"
            case .garbled(let what): return "unexpected reply from lprojd: \(what)"
            }
        }
    }

    /// An event as received: its name, its subscription, the whole line.
    public struct ReceivedEvent: Sendable {
        public var name: String
        public var subscription: String
        public var line: [UInt8]

        /// The event's fields as type `E`.
        public func decode<E: Event>(_ type: E.Type) throws -> E {
            try JSONDecoder().decode(E.self, from: Data(line))
        }

        /// The event's fields as a dictionary.
        public var object: [String: Any] {
            ((try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any]) ?? [:]
        }
    }

    public let path: String
    private let descriptor: Int32
    private let interrupter: Interrupter?
    private var framer = LineFramer(maximumLineLength: 1 << 30)
    private var lines: [[UInt8]] = []
    private var events: [ReceivedEvent] = []
    private var nextID: Int64 = 0

    /// Connects to the daemon at `path` (default: the socket path rule).
    /// With an `interrupter`, another thread can end any wait of this
    /// connection (it then throws `closed`).
    public init(path: String? = nil, interrupter: Interrupter? = nil) throws(Failure) {
        let path = path ?? SocketPath.resolve(environment: ProcessInfo.processInfo.environment, userID: getuid())
        self.path = path
        self.interrupter = interrupter
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .unreachable(path: path, reason: String(cString: strerror(errno))) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard path.utf8.count <= SocketPath.maximumLength else {
            close(descriptor)
            throw .unreachable(path: path, reason: "the path is too long for a Unix socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: Array(path.utf8) + [0])
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let reason = errno == ENOENT || errno == ECONNREFUSED ? "no daemon is running there" : String(cString: strerror(errno))
            close(descriptor)
            throw .unreachable(path: path, reason: reason)
        }
    }

    deinit {
        close(descriptor)
    }

    /// Sends `request` and waits for its reply (events that come first are kept).
    public func send<R: Request>(_ request: R, timeout: Duration = .seconds(10)) throws(Failure) -> R.Reply {
        nextID += 1
        let id = RequestID.number(nextID)
        let line: [UInt8]
        do { line = try Wire.encode(request, id: id) } catch { throw .garbled("cannot encode the request: \(error)") }
        try write(line)
        let reply = try awaitReply(to: id, timeout: timeout)
        do {
            return try JSONDecoder().decode(R.Reply.self, from: Data(reply))
        } catch {
            throw .garbled("\(R.op) reply: \(error)")
        }
    }

    /// Sends raw bytes (tests of malformed input).
    public func write(_ bytes: [UInt8]) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .closed
            }
            offset += count
        }
    }

    /// The next line that is not an event (a reply), within `timeout`.
    public func nextReplyLine(timeout: Duration = .seconds(10)) throws(Failure) -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        while true {
            while !lines.isEmpty {
                let line = lines.removeFirst()
                if let event = Self.event(in: line) { events.append(event) } else { return line }
            }
            try receive(until: deadline)
        }
    }

    /// The next event, within `timeout`.
    public func nextEvent(timeout: Duration = .seconds(10)) throws(Failure) -> ReceivedEvent {
        let deadline = ContinuousClock.now + timeout
        while true {
            if !events.isEmpty { return events.removeFirst() }
            while !lines.isEmpty {
                let line = lines.removeFirst()
                guard let event = Self.event(in: line) else { throw .garbled("a reply nobody waits for: \(String(decoding: line, as: UTF8.self))") }
                events.append(event)
            }
            if !events.isEmpty { return events.removeFirst() }
            try receive(until: deadline)
        }
    }

    /// Events of `name` are skipped until one of `name` arrives whose fields satisfy `condition`.
    public func awaitEvent(_ name: String, timeout: Duration = .seconds(10),
                           where condition: (ReceivedEvent) -> Bool = { _ in true }) throws(Failure) -> ReceivedEvent {
        let deadline = ContinuousClock.now + timeout
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw .timedOut }
            let event = try nextEvent(timeout: remaining)
            if event.name == name && condition(event) { return event }
        }
    }

    private func awaitReply(to id: RequestID, timeout: Duration) throws(Failure) -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw .timedOut }
            let line = try nextReplyLine(timeout: remaining)
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any] else {
                throw .garbled(String(decoding: line, as: UTF8.self))
            }
            if object["ok"] as? Bool == false {
                let error = (try? JSONDecoder().decode(ErrorEnvelope.self, from: Data(line)))?.error
                    ?? ProtocolError(.internal, String(decoding: line, as: UTF8.self))
                // An error without an id (the line could not be read) answers this request too.
                let replyID = try? JSONDecoder().decode(IDEnvelope.self, from: Data(line)).id
                if replyID == nil || replyID == id { throw .refused(error) }
                continue
            }
            if let replyID = try? JSONDecoder().decode(IDEnvelope.self, from: Data(line)).id, replyID == id { return line }
        }
    }

    private func receive(until deadline: ContinuousClock.Instant) throws(Failure) {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { throw .timedOut }
        let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
        var polls = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        if let interrupter { polls.append(pollfd(fd: interrupter.descriptor, events: Int16(POLLIN), revents: 0)) }
        let ready = Glibc.poll(&polls, nfds_t(polls.count), milliseconds)
        if ready < 0 {
            if errno == EINTR { return }
            throw .closed
        }
        if ready == 0 { throw .timedOut }
        if polls.count > 1, polls[1].revents != 0 { throw .closed }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count < 0 && errno == EINTR { return }
        guard count > 0 else { throw .closed }
        for output in framer.append(buffer.prefix(count)) {
            if case .line(let line) = output { lines.append(line) }
        }
    }

    private static func event(in line: [UInt8]) -> ReceivedEvent? {
        // Events start with {"sub": (the daemon writes them so); anything else is a reply.
        guard line.starts(with: Array("{\"sub\":".utf8)),
              let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any],
              let name = object["event"] as? String, let subscription = object["sub"] as? String else { return nil }
        return ReceivedEvent(name: name, subscription: subscription, line: line)
    }

    private struct ErrorEnvelope: Decodable { var error: ProtocolError }
    private struct IDEnvelope: Decodable { var id: RequestID? }
}

/// Ends the waits of connections made with it, from any thread: once
/// `interrupt()` is called, every wait returns at once (for good).
public final class Interrupter: Sendable {
    /// Readable once interrupted (poll it beside other descriptors).
    public let descriptor: Int32
    private let writer: Int32

    public init() {
        var ends: [Int32] = [0, 0]
        pipe(&ends)
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        descriptor = ends[0]
        writer = ends[1]
    }

    deinit {
        close(descriptor)
        close(writer)
    }

    public func interrupt() {
        var byte: UInt8 = 1
        _ = write(writer, &byte, 1)
    }

    /// Empties the pipe, so the interrupter can wake a loop again (for reuse as a wake-up).
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        var poll = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while Glibc.poll(&poll, 1, 0) > 0, read(descriptor, &buffer, buffer.count) > 0 {}
    }

    /// Waits up to `timeout`; returns true when interrupted (a pause that ends early).
    public func wait(_ timeout: Duration) -> Bool {
        var poll = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return Glibc.poll(&poll, 1, milliseconds) > 0
    }
}
