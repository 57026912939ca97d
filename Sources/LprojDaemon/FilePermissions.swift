#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// Who may do what with one file or directory: its owner, group, mode and
/// POSIX access ACL, as the kernel would weigh them for a process of a
/// given user and groups. The daemon reads every bundle it serves; it
/// serves one to a peer only where these say the peer could read it too.
struct FilePermissions: Sendable, Equatable {
    /// What a process asks of a file: bits as in a mode's `rwx` triple.
    struct Wanted: OptionSet, Sendable {
        let rawValue: UInt16
        static let read = Wanted(rawValue: 4)
        static let search = Wanted(rawValue: 1)
    }

    /// One entry of an access ACL (`system.posix_acl_access`).
    struct ACLEntry: Sendable, Equatable {
        enum Tag: UInt16, Sendable {
            case owner = 0x01, user = 0x02, owningGroup = 0x04, group = 0x08, mask = 0x10, other = 0x20
        }
        var tag: Tag
        var bits: UInt16
        /// The user or group a `user` or `group` entry names.
        var id: UInt32
    }

    var owner: UInt32
    var group: UInt32
    /// The permission bits (`st_mode & 0o777`).
    var mode: UInt16
    /// The access ACL's entries beyond the mode; empty when it has none.
    var acl: [ACLEntry]

    init(owner: UInt32, group: UInt32, mode: UInt16, acl: [ACLEntry] = []) {
        self.owner = owner
        self.group = group
        self.mode = mode & 0o777
        self.acl = acl
    }

    /// Whether a process of `peer` gets `wanted` here: the owner's bits for
    /// the owner; a named user's entry (within the mask); any matching
    /// group entry (within the mask) that grants it — a group matched that
    /// grants nothing is a refusal —; else the others' bits (POSIX.1e, as
    /// Linux checks). Root (uid 0) reads and searches anything.
    func grants(_ wanted: Wanted, to peer: PeerCredentials) -> Bool {
        if peer.uid == 0 { return true }
        let want = wanted.rawValue
        if peer.uid == owner { return (mode >> 6) & want == want }
        let groups = peer.groups.union([peer.gid])
        guard !acl.isEmpty else {
            return groups.contains(group) ? (mode >> 3) & want == want : mode & want == want
        }
        let mask = acl.first { $0.tag == .mask }?.bits ?? 7
        if let named = acl.first(where: { $0.tag == .user && $0.id == peer.uid }) { return named.bits & mask & want == want }
        var groupMatched = false
        for entry in acl {
            let matches = switch entry.tag {
            case .owningGroup: groups.contains(group)
            case .group: groups.contains(entry.id)
            default: false
            }
            guard matches else { continue }
            groupMatched = true
            if entry.bits & mask & want == want { return true }
        }
        if groupMatched { return false }
        let other = acl.first { $0.tag == .other }?.bits ?? mode & 7
        return other & want == want
    }

    /// Whether every process gets `wanted` here (the others' bits grant it
    /// and no ACL entry names anyone): no peer need be asked about.
    func grantsEveryone(_ wanted: Wanted) -> Bool {
        acl.isEmpty && mode & wanted.rawValue == wanted.rawValue
    }

    /// The permissions of what `path` names (links followed), nil when it cannot be read (gone).
    static func read(_ path: String) -> FilePermissions? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 4 + 8 * 64)
        let length = lproj_access_acl(path, &bytes, UInt(bytes.count))
        // An ACL that cannot be read (too long, an error) is never taken as no ACL.
        let acl = length == 0 ? [] : length > 0 ? parseACL(bytes.prefix(length)) : nil
        return FilePermissions(owner: status.st_uid, group: status.st_gid, mode: UInt16(status.st_mode & 0o777),
                               acl: acl ?? [ACLEntry(tag: .other, bits: 0, id: 0)])
    }

    /// The entries of an access ACL as the kernel stores it (a version-2
    /// header, then tag, bits and id, little-endian); nil when it is not
    /// that (then `read` lets nobody but the owner in: a rule it cannot
    /// read is never taken as no rule). An ACL of only the mode's three
    /// entries is empty.
    static func parseACL<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [ACLEntry]? {
        let bytes = Array(bytes)
        func word(_ offset: Int, _ count: Int) -> UInt32 {
            (0..<count).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
        }
        guard bytes.count >= 4, (bytes.count - 4) % 8 == 0, word(0, 4) == 2 else { return nil }
        var entries: [ACLEntry] = []
        for offset in stride(from: 4, to: bytes.count, by: 8) {
            guard let tag = ACLEntry.Tag(rawValue: UInt16(word(offset, 2))) else { return nil }
            entries.append(ACLEntry(tag: tag, bits: UInt16(word(offset + 2, 2)) & 7, id: word(offset + 4, 4)))
        }
        let extended = entries.contains { $0.tag == .user || $0.tag == .group || $0.tag == .mask }
        return extended ? entries : []
    }
}
