#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Foundation
import LprojProtocol
import LprojTables

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

    /// An event as received: its name, its subscription, its clock, the whole line.
    public typealias ReceivedEvent = Wire.ReceivedEvent

    public let path: String
    private let descriptor: Int32
    private let interrupter: Interrupter?
    private var framer = LineFramer(maximumLineLength: 1 << 30)
    /// Where each read lands (made once: a read is a syscall, not a 64 KiB zeroed array as well).
    private let receiveBuffer: UnsafeMutableRawBufferPointer
    /// What arrived and was read (each line once), not yet taken, in order.
    private var received: [Wire.Incoming] = []
    private var nextID: Int64 = 0
    /// Descriptors that came with the bytes read (an `images` reply's), not yet matched to their reply.
    private var arrivedDescriptors: [Int32] = []
    /// Descriptors matched to the `images` reply they came with, by its request, until taken.
    private var descriptorsByReply: [RequestID: [Int32]] = [:]
    /// The most descriptors kept waiting for their reply: a peer that sends more is not lprojd.
    private static let maximumWaitingDescriptors = 1024
    /// Images that came with events (a subscription's that asked for them), by the event's clock, oldest first, until taken.
    private var eventImages: [(clock: Clock, descriptor: Int32)] = []
    /// The most event images kept untaken: past it the oldest is closed.
    private static let maximumEventImages = 64

    /// Connects to the daemon at `path` (default: the socket path rule).
    /// With an `interrupter`, another thread can end any wait of this
    /// connection (it then throws `closed`).
    public init(path: String? = nil, interrupter: Interrupter? = nil) throws(Failure) {
        let path = path ?? SocketPath.resolve(environment: ProcessInfo.processInfo.environment, userID: getuid())
        self.path = path
        self.interrupter = interrupter
        // Connected before anything else is the instance's: an init that
        // throws once every stored property is set runs `deinit`, which would
        // close the socket a second time — by then, maybe another thread's
        // descriptor of the same number (a reconnect loop fails this way
        // whenever the daemon is down).
        descriptor = try Self.connectedSocket(path: path)
        receiveBuffer = .allocate(byteCount: 1 << 16, alignment: 16)
    }

    /// Adopts `descriptor`, a stream socket already connected to a daemon —
    /// one end of a socket pair whose other end a daemon core in this
    /// process serves (`DaemonTransport`) — named `name` in messages. The
    /// connection closes it.
    public init(connected descriptor: Int32, name: String, interrupter: Interrupter? = nil) {
        path = name
        self.interrupter = interrupter
        self.descriptor = descriptor
        receiveBuffer = .allocate(byteCount: 1 << 16, alignment: 16)
    }

    /// A socket connected to `path`; on failure none is left open.
    private static func connectedSocket(path: String) throws(Failure) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
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
        if let distrust = distrust(of: descriptor, path: path) {
            close(descriptor)
            throw .unreachable(path: path, reason: distrust)
        }
        return descriptor
    }

    /// Why the daemon at `path` is not to be trusted, or nil: the socket
    /// file and the process that listens on it (SO_PEERCRED) must belong to
    /// this user, root or the `lprojd` user — another user who bound the
    /// path first would otherwise be told this process's misses and
    /// selections and show it their strings. Root trusts any (it chose the path).
    private static func distrust(of descriptor: Int32, path: String) -> String? {
        guard getuid() != 0 else { return nil }
        var info = stat()
        if lstat(path, &info) == 0, !DaemonTrust.trusts(info.st_uid) {
            return "the socket belongs to user \(info.st_uid), not to you, root or lprojd: not trusted (another user may pose as lprojd)"
        }
        var pid: Int32 = 0, uid: UInt32 = 0, gid: UInt32 = 0
        if lproj_peer_credentials(descriptor, &pid, &uid, &gid) == 0, !DaemonTrust.trusts(uid) {
            return "the daemon listening there runs as user \(uid) (pid \(pid)), not as you, root or lprojd: not trusted"
        }
        return nil
    }

    deinit {
        receiveBuffer.deallocate()
        close(descriptor)
        for descriptor in arrivedDescriptors + descriptorsByReply.values.joined() + eventImages.map(\.descriptor) { close(descriptor) }
    }

    /// The table whose image came with `event` (a `table-changed` event of a
    /// subscription that asked for images), mapped read-only, or the reason
    /// it was refused; nil when none came. Taken once: the descriptor is closed.
    public func takeImage(of event: ReceivedEvent) -> Result<Table, TableImage.Refusal>? {
        guard let descriptor = takeDescriptor(of: event) else { return nil }
        defer { close(descriptor) }
        return Result { () throws(TableImage.Refusal) -> Table in try SharedTableImage.table(in: descriptor) }
    }

    /// Closes the image that came with `event`, if any, unread.
    public func discardImage(of event: ReceivedEvent) {
        if let descriptor = takeDescriptor(of: event) { close(descriptor) }
    }

    private func takeDescriptor(of event: ReceivedEvent) -> Int32? {
        guard event.carriesImage, let clock = event.clock, let index = eventImages.firstIndex(where: { $0.clock == clock }) else { return nil }
        return eventImages.remove(at: index).descriptor
    }

    /// The tables the daemon shares as images (`Images`), each mapped
    /// read-only — or the reason an image was refused (damaged, truncated,
    /// of another version, not sealed), in which case the caller reads
    /// that table itself.
    public func images(_ request: Images, timeout: Duration = .seconds(10))
        throws(Failure) -> (clock: Clock, tables: [(image: ImageSummary, table: Result<Table, TableImage.Refusal>)]) {
        let id = try sendRequest(request)
        let line = try awaitReply(to: id, timeout: timeout)
        let descriptors = descriptorsByReply.removeValue(forKey: id) ?? []
        defer { for descriptor in descriptors { close(descriptor) } }
        let reply: Images.Reply
        do { reply = try line.decode(Images.Reply.self) } catch { throw .garbled("images reply: \(error)") }
        guard descriptors.count == reply.images.count else {
            throw .garbled("an images reply lists \(reply.images.count) images but \(descriptors.count) descriptors came with it")
        }
        return (reply.clock, zip(reply.images, descriptors).map { image, descriptor in
            (image, Result { () throws(TableImage.Refusal) -> Table in try SharedTableImage.table(in: descriptor) })
        })
    }

    /// Sends `request` and waits for its reply (events and other replies that come first are kept).
    public func send<R: Request>(_ request: R, timeout: Duration = .seconds(10)) throws(Failure) -> R.Reply {
        let id = try sendRequest(request)
        let reply = try awaitReply(to: id, timeout: timeout)
        do {
            return try reply.decode(R.Reply.self)
        } catch {
            throw .garbled("\(R.op) reply: \(error)")
        }
    }

    /// Sends `request` without waiting for its reply: it comes through
    /// `nextMessage` (or answers a later `send` no more than any other reply).
    /// Requests on one connection are answered in the order they were sent.
    @discardableResult
    public func sendRequest<R: Request>(_ request: R) throws(Failure) -> RequestID {
        nextID += 1
        let id = RequestID.number(nextID)
        let line: [UInt8]
        do { line = try Wire.encode(request, id: id) } catch { throw .garbled("cannot encode the request: \(error)") }
        try write(line)
        return id
    }

    /// Closes the descriptors that came with the reply to `id`, if it was an
    /// `images` reply nobody took (it came after its wait gave up).
    func closeDescriptors(of id: RequestID?) {
        guard let id, let descriptors = descriptorsByReply.removeValue(forKey: id) else { return }
        for descriptor in descriptors { close(descriptor) }
    }

    /// Sends raw bytes (tests of malformed input).
    public func write(_ bytes: [UInt8]) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw refusalLeftBehind() ?? .closed
            }
            offset += count
        }
    }

    /// The refusal a daemon sent before it closed the connection (out of
    /// descriptors, it cannot wait for the request to say why), if it is there to read.
    private func refusalLeftBehind() -> Failure? {
        while (try? receive(until: .now + .milliseconds(50))) == true {}
        for case .reply(let reply) in received where reply.id == nil {
            if let error = reply.error { return .refused(error) }
        }
        return nil
    }

    /// The next reply or event, in the order they arrived, within
    /// `timeout`; nil when `wakeUp` (a descriptor) became readable first.
    public func nextMessage(timeout: Duration = .seconds(10), wakeUp: Int32? = nil) throws(Failure) -> Wire.Incoming? {
        let deadline = ContinuousClock.now + timeout
        while received.isEmpty {
            guard try receive(until: deadline, wakeUp: wakeUp) else { return nil }
        }
        return received.removeFirst()
    }

    /// The next line that is not an event (a reply), within `timeout`.
    public func nextReplyLine(timeout: Duration = .seconds(10)) throws(Failure) -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let index = received.firstIndex(where: { if case .reply = $0 { true } else { false } }),
               case .reply(let reply) = received.remove(at: index) {
                return reply.line
            }
            _ = try receive(until: deadline)
        }
    }

    /// The next event, within `timeout`. A reply nobody waits for is an error.
    public func nextEvent(timeout: Duration = .seconds(10)) throws(Failure) -> ReceivedEvent {
        guard let message = try nextMessage(timeout: timeout) else { throw .timedOut }
        switch message {
        case .event(let event): return event
        case .reply(let reply): throw .garbled("a reply nobody waits for: \(String(decoding: reply.line, as: UTF8.self))")
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

    /// The reply to `id`; events and other replies are left in order for later.
    func awaitReply(to id: RequestID, timeout: Duration) throws(Failure) -> Wire.Reply {
        let deadline = ContinuousClock.now + timeout
        var searched = 0
        while true {
            while searched < received.count {
                if case .reply(let reply) = received[searched], reply.id == id || (reply.id == nil && reply.error != nil) {
                    received.remove(at: searched)
                    // An error without an id (the line could not be read) answers this request too.
                    if let error = reply.error { throw .refused(error) }
                    return reply
                }
                searched += 1
            }
            _ = try receive(until: deadline)
        }
    }

    /// Reads what the socket has, waiting until `deadline`; false when
    /// `wakeUp` became readable instead.
    private func receive(until deadline: ContinuousClock.Instant, wakeUp: Int32? = nil) throws(Failure) -> Bool {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { throw .timedOut }
        let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
        var polls = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        if let interrupter { polls.append(pollfd(fd: interrupter.descriptor, events: Int16(POLLIN), revents: 0)) }
        if let wakeUp { polls.append(pollfd(fd: wakeUp, events: Int16(POLLIN), revents: 0)) }
        let ready = Glibc.poll(&polls, nfds_t(polls.count), milliseconds)
        if ready < 0 {
            if errno == EINTR { return true }
            throw .closed
        }
        if ready == 0 { throw .timedOut }
        if interrupter != nil, polls[1].revents != 0 { throw .closed }
        if wakeUp != nil, polls[polls.count - 1].revents != 0, polls[0].revents == 0 { return false }
        var descriptors = [Int32](repeating: -1, count: Int(LPROJ_MAX_DESCRIPTORS) + 6)
        var descriptorCount: Int32 = 0
        let count = lproj_receive_with_descriptors(descriptor, receiveBuffer.baseAddress, receiveBuffer.count, &descriptors, Int32(descriptors.count),
                                                   &descriptorCount)
        arrivedDescriptors += descriptors.prefix(Int(descriptorCount))
        if count < 0 && errno == EINTR { return true }
        guard count > 0 else { throw .closed }
        guard arrivedDescriptors.count <= Self.maximumWaitingDescriptors else { throw .garbled("descriptors no reply asked for") }
        for output in framer.append(UnsafeRawBufferPointer(rebasing: receiveBuffer[..<count])) {
            guard case .line(let line) = output else { continue }
            guard let message = Wire.Incoming(line: line) else { throw .garbled(String(decoding: line, as: UTF8.self)) }
            if case .reply(let reply) = message, !arrivedDescriptors.isEmpty { try matchDescriptors(to: reply) }
            if case .event(let event) = message, event.carriesImage { try matchDescriptor(to: event) }
            received.append(message)
        }
        return true
    }

    /// Gives an `images` reply the descriptors that came with it: they
    /// arrive with the reply's first byte, so, replies being in order, they
    /// are the first ones not yet matched.
    private func matchDescriptors(to reply: Wire.Reply) throws(Failure) {
        struct Listed: Decodable { var images: [ImageSummary]? }
        guard reply.error == nil, let id = reply.id, let count = (try? reply.decode(Listed.self))?.images?.count, count > 0 else { return }
        guard count <= arrivedDescriptors.count else {
            throw .garbled("an images reply lists \(count) images but \(arrivedDescriptors.count) descriptors came with it")
        }
        descriptorsByReply[id] = Array(arrivedDescriptors.prefix(count))
        arrivedDescriptors.removeFirst(count)
    }

    /// Gives an event that says an image came with it the first descriptor
    /// not yet matched (it arrived with the event's first byte).
    private func matchDescriptor(to event: ReceivedEvent) throws(Failure) {
        guard let clock = event.clock, !arrivedDescriptors.isEmpty else {
            throw .garbled("a \(event.name) event says an image came with it, but \(event.clock == nil ? "it has no clock" : "no descriptor came")")
        }
        eventImages.append((clock, arrivedDescriptors.removeFirst()))
        if eventImages.count > Self.maximumEventImages { close(eventImages.removeFirst().descriptor) }
    }

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
