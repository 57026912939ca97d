/// What one user's connections hold in all — bytes queued for them and
/// their subscriptions — against `[Limits] UserQueueBytes=`. Each
/// connection is bounded by `ClientQueueBytes=`; this bounds a user's many
/// connections together, so one user's `MaxClientsPerUser` connections
/// that ask and never read cannot take the daemon's memory. Root and the
/// daemon's own user have none (they are few and trusted).
///
/// Past the bound, every connection of the user is full: its events are
/// dropped (a `resync` follows once it reads), its requests wait, and a
/// new subscription is refused. Sessions report what they hold as it
/// changes (`Session.account`), so asking is one comparison.
final class UserShare {
    let user: UInt32
    /// The bound, in bytes (a reload may change it).
    var limit: Int
    /// What the user's sessions hold now.
    private(set) var bytes = 0
    /// Sessions holding the share (it goes when the last one closes).
    var sessions = 0
    /// Set when the share fell back below its bound: the shell then reads
    /// again from the user's connections that it paused (`takeReleased`).
    private var released = false

    init(user: UInt32, limit: Int) {
        self.user = user
        self.limit = limit
    }

    /// Whether the user's connections hold their bound or more.
    var isFull: Bool { bytes >= limit }

    /// Counts a change of what one session holds.
    func add(_ delta: Int) {
        let wasFull = isFull
        bytes += delta
        if wasFull, !isFull { released = true }
    }

    /// Whether the share fell below its bound since the last call.
    func takeReleased() -> Bool {
        defer { released = false }
        return released
    }
}
