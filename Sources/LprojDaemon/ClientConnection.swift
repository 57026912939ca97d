#if canImport(Glibc)
import Glibc
#endif
import CLinux
import LprojProtocol

/// One connected client: its socket, what it said about itself, its
/// subscriptions, the bytes it sent that do not yet make a line, and the
/// bytes waiting to be written to it.
///
/// The output queue is bounded: replies beyond the bound pause reading
/// from the client (it must read to be served), and events beyond it are
/// dropped for its subscriptions, which get a `resync` once it has caught up.
/// A client that stops reading therefore costs at most its bound.
final class ClientConnection {
    let descriptor: Int32
    let peer: PeerCredentials
    let connected: ContinuousClock.Instant
    var name: String?
    var app: String?
    var framer: LineFramer
    var subscriptions: [String: Subscription] = [:]
    /// What the loop's epoll waits for on this socket (changed only when it must).
    var interest = interestIn | interestPeerClosed
    private(set) var output: [UInt8] = []
    private var written = 0
    let queueLimit: Int

    init(descriptor: Int32, peer: PeerCredentials, maximumLineLength: Int, queueLimit: Int) {
        self.descriptor = descriptor
        self.peer = peer
        self.framer = LineFramer(maximumLineLength: maximumLineLength)
        self.queueLimit = queueLimit
        connected = .now
    }

    /// Bytes queued and not yet written.
    var queuedBytes: Int { output.count - written }

    /// Whether the queue is past its bound (stop reading requests; drop events).
    var isFull: Bool { queuedBytes >= queueLimit }

    /// Queues a reply or a line that must not be dropped.
    func enqueue(_ line: [UInt8]) {
        output += line
    }

    /// Queues an event for `subscription` unless the queue is full, in which
    /// case the subscription is marked lagging. Returns whether it was queued.
    @discardableResult
    func enqueueEvent(_ body: [UInt8], for name: String) -> Bool {
        guard var subscription = subscriptions[name] else { return false }
        if subscription.lagging { return false }
        if isFull {
            subscription.lagging = true
            subscriptions[name] = subscription
            return false
        }
        Wire.appendAddressed(body, prefix: subscription.prefix, to: &output)
        return true
    }

    /// Writes as much of the queue as the socket takes. Returns false when the peer is gone.
    func flush() -> Bool {
        while written < output.count {
            let count = output.withUnsafeBytes { send(descriptor, $0.baseAddress! + written, $0.count - written, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { break }
                return false
            }
            written += count
        }
        if written == output.count {
            output.removeAll(keepingCapacity: output.capacity <= 1 << 16)
            written = 0
        } else if written > 1 << 16, written * 2 > output.count {
            output.removeFirst(written)
            written = 0
        }
        return true
    }

    /// The subscriptions that dropped events, now that the queue has room: they are owed a resync.
    func takeLagging() -> [Subscription] {
        guard queuedBytes == 0 else { return [] }
        var owed: [Subscription] = []
        for (name, subscription) in subscriptions where subscription.lagging {
            subscriptions[name]!.lagging = false
            owed.append(subscription)
        }
        return owed
    }
}

/// Who is on the other end of a Unix socket (SO_PEERCRED).
struct PeerCredentials: Sendable {
    var pid: Int32
    var uid: UInt32
    var gid: UInt32

    init?(socket descriptor: Int32) {
        (pid, uid, gid) = (0, 0, 0)
        guard lproj_peer_credentials(descriptor, &pid, &uid, &gid) == 0 else { return nil }
    }

    /// The groups of the peer's user: its primary group and the supplementary ones.
    var groups: Set<UInt32> {
        var result: Set<UInt32> = [gid]
        guard let entry = getpwuid(uid) else { return result }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(entry.pointee.pw_name, gid, &groups, &count) == -1 {
            groups = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(entry.pointee.pw_name, gid, &groups, &count)
        }
        result.formUnion(groups.prefix(Int(max(0, count))))
        return result
    }
}
