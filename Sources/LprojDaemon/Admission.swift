import LprojProtocol

/// Who gets a connection: the one rule for `[Limits] MaxClients=`,
/// `MaxClientsPerUser=` and `ReservedClients=`, with the count of
/// connections it holds by user. No descriptor: the shell asks before it
/// keeps a connection and says when one goes.
///
/// Root and the daemon's own user are *privileged*: they are not held to a
/// per-user cap and may take the reserved connections beyond `MaxClients`,
/// so `lprojctl status` still answers when another user has filled every
/// ordinary slot. Everyone else is admitted while fewer than `MaxClients`
/// are connected and their own user holds fewer than `MaxClientsPerUser`.
struct Admission {
    var maximumClients: Int
    var maximumPerUser: Int
    var reserved: Int
    let ownUser: UInt32
    /// Connections held now.
    private(set) var count = 0
    private var byUser: [UInt32: Int] = [:]

    init(_ configuration: Configuration, ownUser: UInt32) {
        maximumClients = configuration.limits.maximumClients
        maximumPerUser = configuration.limits.maximumClientsPerUser
        reserved = configuration.limits.reservedClients
        self.ownUser = ownUser
    }

    /// Takes the limits of a reloaded configuration (connections held stay).
    mutating func apply(_ configuration: Configuration) {
        maximumClients = configuration.limits.maximumClients
        maximumPerUser = configuration.limits.maximumClientsPerUser
        reserved = configuration.limits.reservedClients
    }

    /// Whether `user` is root or the daemon's own user.
    func isPrivileged(_ user: UInt32) -> Bool {
        user == 0 || user == ownUser
    }

    /// Why a connection of `user` is refused now, or nil when it may be kept (then call `admit`).
    func refusal(for user: UInt32) -> ProtocolError? {
        if isPrivileged(user) {
            guard count < maximumClients + reserved else {
                return ProtocolError(.busy, "the daemon has its maximum of \(maximumClients) clients and its \(reserved) reserved "
                                     + "connections in use ([Limits] MaxClients, ReservedClients)")
            }
            return nil
        }
        guard count < maximumClients else {
            return ProtocolError(.busy, "the daemon has its maximum of \(maximumClients) clients ([Limits] MaxClients)")
        }
        guard byUser[user, default: 0] < maximumPerUser else {
            return ProtocolError(.busy, "user \(user) has its maximum of \(maximumPerUser) connections ([Limits] MaxClientsPerUser)")
        }
        return nil
    }

    /// Counts a connection of `user` kept.
    mutating func admit(_ user: UInt32) {
        count += 1
        byUser[user, default: 0] += 1
    }

    /// Counts a connection of `user` gone.
    mutating func release(_ user: UInt32) {
        count -= 1
        byUser[user, default: 1] -= 1
        if byUser[user] == 0 { byUser[user] = nil }
    }
}
