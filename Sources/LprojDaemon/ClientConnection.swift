#if canImport(Glibc)
import Glibc
#endif
import CLinux
import LprojProtocol

/// One connected client as the shell sees it: its socket, the bytes it
/// sent that do not yet make a line, and its `Session` (who it is, and what
/// the publisher owes it).
final class ClientConnection {
    let descriptor: Int32
    let connected: ContinuousClock.Instant
    var framer: LineFramer
    let session: Session
    /// What the loop's epoll waits for on this socket (changed only when it must).
    var interest = interestIn | interestPeerClosed
    /// Whether a complete request line came (until then, `FirstRequestTimeout=` runs).
    var hasSentRequest = false
    /// Where the images attached to replies come from.
    private let images: ImageShelf
    /// What may be in flight to clients, over every connection.
    private let budget: DescriptorBudget
    /// Descriptors sent on this socket that the peer may not have read yet.
    private var unread = 0

    init(descriptor: Int32, session: Session, maximumLineLength: Int, images: ImageShelf, budget: DescriptorBudget) {
        self.descriptor = descriptor
        self.session = session
        self.framer = LineFramer(maximumLineLength: maximumLineLength)
        self.images = images
        self.budget = budget
        connected = .now
    }

    /// Writes as much of the session's queue as the socket takes, with the
    /// images attached to a line sent with its first byte. Images that may
    /// not or cannot go (`DescriptorBudget`, ETOOMANYREFS, an image that
    /// could not be made) are withheld: the line made for that goes
    /// instead. Returns false when the peer is gone.
    func flush() -> Bool {
        var failed = false
        while session.queuedBytes > 0, !failed {
            var wouldBlock = false
            var withheld: String?
            session.write { bytes, attached in
                var descriptors: [Int32] = []
                if !attached.isEmpty {
                    if let refusal = refusal(toSend: attached.count) {
                        withheld = refusal
                        return 0
                    }
                    guard let made = images.descriptors(for: attached) else {
                        withheld = "an image could not be made (the daemon is out of memory or file descriptors)"
                        return 0
                    }
                    descriptors = made
                }
                while true {
                    let count = descriptors.isEmpty
                        ? send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
                        : lproj_send_with_descriptors(descriptor, bytes.baseAddress, bytes.count, descriptors, Int32(descriptors.count))
                    if count >= 0 {
                        if count > 0, !descriptors.isEmpty {
                            unread += descriptors.count
                            budget.sent(descriptors.count, to: session.peer.uid)
                        }
                        return count
                    }
                    if errno == EINTR { continue }
                    if errno == EAGAIN || errno == EWOULDBLOCK {
                        wouldBlock = true
                    } else if errno == ETOOMANYREFS && !descriptors.isEmpty {
                        withheld = "the kernel refuses to send more descriptors (ETOOMANYREFS: clients hold too many unread)"
                    } else {
                        failed = true
                    }
                    return 0
                }
            }
            if let withheld {
                session.withholdImages(because: withheld)
                images.countWithheld()
            }
            if wouldBlock { break }
        }
        return !failed
    }

    /// Gives back what this connection had in flight (it is closing).
    func settleDescriptors() {
        budget.settled(unread, of: session.peer.uid)
        unread = 0
    }

    /// Gives back what it had in flight if its peer has read everything.
    func settleIfRead() {
        if unread > 0, lproj_unread_bytes(descriptor) == 0 { settleDescriptors() }
    }

    /// Why `count` descriptors may not go now, nil when they may; what the
    /// peer has read since the last send is given back first.
    private func refusal(toSend count: Int) -> String? {
        settleIfRead()
        return budget.refusal(toSend: count, unread: unread, user: session.peer.uid)
    }
}

extension PeerCredentials {
    /// Who is on the other end of the Unix socket `descriptor`, as the kernel
    /// saw it connect (SO_PEERCRED, SO_PEERGROUPS): never the user database,
    /// so a process that dropped a group is not let in by it.
    init?(socket descriptor: Int32) {
        var (pid, uid, gid): (Int32, UInt32, UInt32) = (0, 0, 0)
        guard lproj_peer_credentials(descriptor, &pid, &uid, &gid) == 0 else { return nil }
        var room = 64
        while true {
            var list = [UInt32](repeating: 0, count: room)
            let count = Int(lproj_peer_groups(descriptor, &list, Int32(room)))
            guard count >= 0 else { return nil }
            if count <= room {
                self.init(pid: pid, uid: uid, gid: gid, groups: Set(list.prefix(count)).union([gid]))
                return
            }
            room = count
        }
    }
}
