import CLinux
import Foundation
import LprojClient
import LprojPaths
import LprojProtocol
import Synchronization
import XCTest
@testable import LprojDaemon

/// lprojd's core served in this process, in real time, to clients that
/// reach it through a `DaemonTransport` of socket pairs: a thread of its
/// own owns the core, a real `WatchedTree` (real inotify) and one end of
/// each pair, and turns as the shell's loop does — read the tree, answer
/// requests, fire the one timer, drop sync markers, write what the
/// sessions owe (images attached, through the shell's `ClientConnection`).
/// No socket file, no process, no signals: a `LiveBundle` is tested against
/// the daemon's own decisions, as sourcekit-lsp drives its server through a
/// local connection.
///
/// (libinotifytools allows one tree per process: one server or harness at a time.)
final class CoreServer: @unchecked Sendable {
    let directory: String
    let root: String
    /// Clients reach the core through this.
    var transport: DaemonTransport {
        DaemonTransport { [self] interrupter throws(DaemonConnection.Failure) in try connect(interrupter: interrupter) }
    }

    private let core: DaemonCore
    private let feed: TreeFeed
    private let images = ImageShelf()
    private let budget = DescriptorBudget(limit: 1024)
    private let wake = Interrupter()
    /// Server ends of socket pairs handed over by `connect`, not yet taken in by the loop.
    private let arriving = Mutex<[Int32]>([])
    private let stopping = Mutex(false)
    private let stopped = DispatchSemaphore(value: 0)
    private var clients: [Int32: ClientConnection] = [:]

    /// A core on a new temporary root that `populate` fills first, with `configure` applied, serving at once.
    init(_ configure: (inout Configuration) -> Void = { _ in }, populate: (String) throws -> Void = { _ in }) throws {
        (directory, root, core, feed) = try CoreHarness.makeCore(prefix: "lps", configure, populate: populate)
        let thread = Thread { [self] in run() }
        thread.name = "core-server"
        thread.start()
    }

    /// Stops the loop, closes every connection and the tree, and removes the directory.
    func stop() {
        stopping.withLock { $0 = true }
        wake.interrupt()
        stopped.wait()
        try? FileManager.default.removeItem(atPath: directory)
    }

    func path(_ relative: String) -> String { root + "/" + relative }

    /// Writes `contents` to the file at `relative` under the root (its directories made first).
    func write(_ relative: String, _ contents: String) throws {
        let url = URL(fileURLWithPath: path(relative))
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: url)
    }

    /// A connection to the core: one end of a new socket pair; the loop takes in the other.
    func connect(interrupter: Interrupter? = nil) throws(DaemonConnection.Failure) -> DaemonConnection {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw .unreachable(path: "in-process core", reason: String(cString: strerror(errno)))
        }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        guard !stopping.withLock({ $0 }) else {
            close(ends[0])
            close(ends[1])
            throw .unreachable(path: "in-process core", reason: "stopped")
        }
        arriving.withLock { $0.append(ends[1]) }
        wake.interrupt()
        return DaemonConnection(connected: ends[0], name: "in-process core", interrupter: interrupter)
    }

    // MARK: - The loop (the server's thread alone touches the core)

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while !stopping.withLock({ $0 }) {
            feed.dropMarkers(for: core)
            var waits = [pollfd(fd: feed.tree.descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)]
            let order = clients.keys.sorted()
            waits += order.map { pollfd(fd: $0, events: Int16(POLLIN) | (clients[$0]!.session.queuedBytes > 0 ? Int16(POLLOUT) : 0), revents: 0) }
            var timeout: Int32 = feed.tree.hasQueuedEvents ? 0 : -1
            if let deadline = core.nextDeadline {
                let wait = deadline - .now
                timeout = wait <= .zero ? 0 : Int32(min(60_000, wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000 + 1))
            }
            _ = poll(&waits, nfds_t(waits.count), timeout)
            if waits[0].revents != 0 || feed.tree.hasQueuedEvents { _ = feed.readBatch(into: core) }
            if let deadline = core.nextDeadline, deadline <= .now { feed.timerFired(into: core) }
            if waits[1].revents != 0 {
                wake.drain()
                for descriptor in arriving.withLock({ taken in defer { taken = [] }; return taken }) { admit(descriptor) }
            }
            for (offset, descriptor) in order.enumerated() where waits[offset + 2].revents != 0 {
                guard let client = clients[descriptor] else { continue }
                if waits[offset + 2].revents & Int16(POLLOUT) != 0 { flush(client) }
                guard waits[offset + 2].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 else { continue }
                let count = recv(descriptor, &buffer, buffer.count, 0)
                if count <= 0 {
                    if count < 0, errno == EAGAIN || errno == EINTR { continue }
                    disconnect(client)
                    continue
                }
                for case .line(let line) in buffer.withUnsafeBytes({ client.framer.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) })
                where !line.isEmpty {
                    core.handle(line, from: client.session)
                }
            }
            feed.dropMarkers(for: core)
            core.answerSyncs()
            flushTouched()
            if core.hasDueChecks {
                core.runDueChecks()
                flushTouched()
            }
        }
        for client in Array(clients.values) { disconnect(client) }
        for descriptor in arriving.withLock({ $0 }) { close(descriptor) }
        feed.close()
        stopped.signal()
    }

    private func admit(_ descriptor: Int32) {
        guard let peer = PeerCredentials(socket: descriptor), case .success(let session) = core.admit(peer) else {
            close(descriptor)
            return
        }
        let client = ClientConnection(descriptor: descriptor, session: session, maximumLineLength: core.configuration.limits.maximumRequestBytes,
                                      images: images, budget: budget)
        clients[descriptor] = client
    }

    private func flushTouched() {
        let touched = core.publisher.takeTouched()
        for client in clients.values where touched.contains(client.session.id) { flush(client) }
    }

    private func flush(_ client: ClientConnection) {
        guard client.flush() else { return disconnect(client) }
        if images.takeHandedOut() { images.trim(to: core.configuration.limits.sharedImages) }
        if !core.publisher.settleLagging(client.session).isEmpty, !client.flush() { disconnect(client) }
    }

    private func disconnect(_ client: ClientConnection) {
        close(client.descriptor)
        client.settleDescriptors()
        clients[client.descriptor] = nil
        core.close(client.session)
    }
}
