/// Who may connect and who may change selections, from `[Access]`.
/// An empty list lets everyone through that the socket's mode lets in;
/// the daemon's own user always may.
struct AccessPolicy {
    var connectUsers: Set<UInt32>
    var connectGroups: Set<UInt32>
    var selectUsers: Set<UInt32>
    var selectGroups: Set<UInt32>
    var ownUser: UInt32

    init(_ configuration: Configuration, ownUser: UInt32) {
        connectUsers = Set(configuration.access.allowUsers.map(\.id))
        connectGroups = Set(configuration.access.allowGroups.map(\.id))
        selectUsers = Set(configuration.access.selectUsers.map(\.id))
        selectGroups = Set(configuration.access.selectGroups.map(\.id))
        self.ownUser = ownUser
    }

    func mayConnect(_ peer: PeerCredentials) -> Bool {
        allows(peer, users: connectUsers, groups: connectGroups)
    }

    func maySelect(_ peer: PeerCredentials) -> Bool {
        allows(peer, users: selectUsers, groups: selectGroups)
    }

    private func allows(_ peer: PeerCredentials, users: Set<UInt32>, groups: Set<UInt32>) -> Bool {
        if users.isEmpty && groups.isEmpty { return true }
        if peer.uid == ownUser || peer.uid == 0 || users.contains(peer.uid) { return true }
        return !groups.isEmpty && !groups.isDisjoint(with: peer.groups)
    }
}
