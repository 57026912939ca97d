#if canImport(Glibc)
import Glibc
#endif
import CLinux
import LprojProtocol

/// One connected client as the shell sees it: its socket, its peer, the
/// bytes it sent that do not yet make a line, and its `Session` (what the
/// publisher owes it).
final class ClientConnection {
    let descriptor: Int32
    let peer: PeerCredentials
    let connected: ContinuousClock.Instant
    var framer: LineFramer
    let session: Session
    /// What the loop's epoll waits for on this socket (changed only when it must).
    var interest = interestIn | interestPeerClosed

    init(descriptor: Int32, peer: PeerCredentials, session: Session, maximumLineLength: Int) {
        self.descriptor = descriptor
        self.peer = peer
        self.session = session
        self.framer = LineFramer(maximumLineLength: maximumLineLength)
        connected = .now
    }

    /// Writes as much of the session's queue as the socket takes. Returns false when the peer is gone.
    func flush() -> Bool {
        var failed = false
        while session.queuedBytes > 0, !failed {
            var wouldBlock = false
            session.write { bytes in
                while true {
                    let count = send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
                    if count >= 0 { return count }
                    if errno == EINTR { continue }
                    if errno == EAGAIN || errno == EWOULDBLOCK { wouldBlock = true } else { failed = true }
                    return 0
                }
            }
            if wouldBlock { break }
        }
        return !failed
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
