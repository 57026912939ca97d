import LprojProtocol

/// How many image descriptors may be in flight — sent with a reply or an
/// event, not yet read by the client. The kernel counts every descriptor
/// in flight on any Unix socket against the user who sent it, and past
/// that user's `RLIMIT_NOFILE` refuses to send more (ETOOMANYREFS) to
/// every connection at once (unless the sender has `CAP_SYS_RESOURCE`). A
/// client that asks for images and never reads would so take images from
/// every other; this budget keeps that from happening:
///
/// - one connection has at most one reply's worth in flight
///   (`Images.maximumCount`): more wait until it reads (no byte written to
///   its socket is left unread);
/// - one user's connections (by the peer's uid) hold at most a quarter of
///   the limit together (at least one reply's worth);
/// - all of them, all but an eighth of it.
///
/// A send that would break a rule goes without its images: the reply is
/// refused with the reason, an event goes without its image (the client
/// applies its keys). Pure: the shell counts what it sent and what was read.
final class DescriptorBudget {
    /// The most descriptors one connection has in flight.
    static let perConnection = Images.maximumCount

    /// What the kernel allows in flight (this process's descriptor limit; a reload may raise it).
    var limit: Int {
        didSet { limit = max(limit, 0) }
    }
    /// In flight over every connection, as far as this process knows: a
    /// connection closed before its peer read gives its share back here,
    /// though the kernel counts those until the peer closes its end (then
    /// ETOOMANYREFS is what says so, and the send goes without images too).
    private(set) var inFlight = 0
    /// In flight to each user's connections.
    private var byUser: [UInt32: Int] = [:]

    init(limit: Int) {
        self.limit = max(limit, 0)
    }

    /// Gives back what every connection's peer has read since it was sent
    /// to (the shell's: each connection is settled lazily, when it is next
    /// sent to, so a refusal first asks this and looks again).
    var settleRead: () -> Void = {}

    /// The most one user's connections hold together.
    var perUser: Int { max(Self.perConnection, limit / 4) }

    /// Why `count` descriptors may not go to a connection of `user` with
    /// `unread` of them in flight; nil when they may.
    func refusal(toSend count: Int, unread: Int, user: UInt32) -> String? {
        if byUser[user, default: 0] + count > perUser || inFlight + count > limit - limit / 8 { settleRead() }
        if unread + count > Self.perConnection {
            return "\(unread) descriptors sent to this connection are not read yet (at most \(Self.perConnection) may be): read, then ask again"
        }
        let users = byUser[user, default: 0]
        if users + count > perUser {
            return "connections of uid \(user) hold \(users) descriptors unread (at most \(perUser) of the \(limit) the kernel lets this daemon send): "
                + "read, then ask again"
        }
        if inFlight + count > limit - limit / 8 {
            return "\(inFlight) descriptors are in flight to clients, near the \(limit) the kernel lets this daemon send: try again later"
        }
        return nil
    }

    /// Counts `count` descriptors sent to a connection of `user`.
    func sent(_ count: Int, to user: UInt32) {
        inFlight += count
        byUser[user, default: 0] += count
    }

    /// Counts `count` descriptors read by a connection of `user` (or given up with its connection).
    func settled(_ count: Int, of user: UInt32) {
        let users = byUser[user, default: 0]
        let settled = min(max(count, 0), users)
        inFlight -= settled
        byUser[user] = users > settled ? users - settled : nil
    }
}
