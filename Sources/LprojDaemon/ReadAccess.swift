#if canImport(Glibc)
import Glibc
#endif
import LprojPaths
import LprojTables

/// Which bundles a peer is served: only those it could read itself. The
/// daemon may read more than its clients (root, or a user in more groups);
/// a table, a snapshot, an image, a lookup or an event is given to a peer
/// only where the peer's uid and groups could read it on disk — search on
/// every directory from `/` to the bundle (where the bundle's links lead),
/// read and search on the bundle, search on a localization's directory,
/// read on each of the table's files that exists. Root and the daemon's own
/// user are served everything (`Session.readsEveryUser`).
///
/// Nothing is cached across turns: a `chmod` makes no inotify event the
/// daemon listens for, so every answer reads the permissions as they are
/// now. Within one event's fan-out the permissions are read once and each
/// peer's identity decided once (`EventGate`). What can no longer be read
/// (a bundle that went) is decided as it was last decided for that bundle
/// and identity, and refused when it never was: a peer that was told a
/// bundle came is told it went.
final class ReadAccess {
    /// The permissions of a path (links followed), nil when gone: the real
    /// file system by default, a stand-in in tests.
    var permissions: (String) -> FilePermissions? = FilePermissions.read
    /// Where a path leads (links and `..` resolved), nil when it does not exist.
    var resolve: (String) -> String? = ReadAccess.realPath
    /// The last answer for each bundle and identity, for bundles that are gone.
    private var lastDecision: [ExactName: [Identity: Bool]] = [:]
    /// Within `reading`: what was read, so a request over many tables of a bundle reads its directories once.
    private var memo: [String: FilePermissions?]?
    private var resolved: [String: String?] = [:]

    /// Whom a decision is about: everything but the pid.
    struct Identity: Hashable {
        var uid: UInt32
        var groups: Set<UInt32>
        init(_ peer: PeerCredentials) {
            uid = peer.uid
            groups = peer.groups.union([peer.gid])
        }
    }

    /// What must be readable for an event about `scope`, as one list of
    /// (path, what is wanted, whether it may be missing).
    struct Requirement {
        var bundle: String
        var steps: [(path: String, wanted: FilePermissions.Wanted, optional: Bool)]
    }

    /// Whether `session` may hear of `scope` (always, when it reads everything or the scope names no bundle).
    func allows(_ session: Session, _ scope: Scope) -> Bool {
        guard !session.readsEveryUser, let requirement = Self.requirement(of: scope) else { return true }
        return EventGate(access: self, requirement: requirement).allows(session.peer)
    }

    /// Whether `session` may read the bundle at `path` (as `ServedTables` names it).
    func allows(_ session: Session, bundle path: String) -> Bool {
        allows(session, .bundle(path))
    }

    /// Whether `session` may read the table at `address`.
    func allows(_ session: Session, table address: TableAddress) -> Bool {
        allows(session, .table(bundle: address.bundle, localization: address.localization, table: address.table))
    }

    /// Whether every local user could read the table at `address` — each
    /// step's others' bits grant it and no ACL names anyone —, so that it
    /// may be given to processes the daemon never sees (published images).
    func allowsEveryone(table address: TableAddress) -> Bool {
        guard let requirement = Self.requirement(of: .table(bundle: address.bundle, localization: address.localization, table: address.table)),
              let chain = chain(requirement) else { return false }
        return chain.allSatisfy { $0.permissions.grantsEveryone($0.wanted) }
    }

    /// The decisions for one event: its permissions read once (on the first
    /// peer that asks), each identity decided once.
    final class EventGate {
        private let access: ReadAccess
        private let requirement: Requirement
        private var chain: [(permissions: FilePermissions, wanted: FilePermissions.Wanted)]??
        private var decided: [Identity: Bool] = [:]

        init(access: ReadAccess, requirement: Requirement) {
            self.access = access
            self.requirement = requirement
        }

        /// Whether `peer` could read what the event is about.
        func allows(_ peer: PeerCredentials) -> Bool {
            let identity = Identity(peer)
            if let known = decided[identity] { return known }
            if chain == nil { chain = access.chain(requirement) }
            let bundle = ExactName(requirement.bundle)
            let answer: Bool
            if let chain = chain! {
                answer = chain.allSatisfy { $0.permissions.grants($0.wanted, to: peer) }
                access.remember(answer, of: bundle, for: identity)
            } else {
                answer = access.lastDecision[bundle]?[identity] ?? false
            }
            decided[identity] = answer
            return answer
        }
    }

    /// Runs `body` reading each path's permissions at most once (a request
    /// that answers for many tables, the changes of one turn).
    func reading<T>(_ body: () throws -> T) rethrows -> T {
        guard memo == nil else { return try body() }
        memo = [:]
        defer {
            memo = nil
            resolved = [:]
        }
        return try body()
    }

    /// A gate for one event about `scope`; nil when the scope names no bundle (everyone may hear it).
    func gate(for scope: Scope) -> EventGate? {
        Self.requirement(of: scope).map { EventGate(access: self, requirement: $0) }
    }

    // MARK: - Helpers

    /// How many bundles' last decisions are kept (a replay after a bundle went needs them; a churning tree may not grow them without bound).
    static let rememberedBundles = 4096

    private func remember(_ answer: Bool, of bundle: ExactName, for identity: Identity) {
        if lastDecision[bundle] == nil, lastDecision.count >= Self.rememberedBundles {
            lastDecision.removeAll(keepingCapacity: true)
        }
        lastDecision[bundle, default: [:]][identity] = answer
    }

    /// The permissions each step needs, directories from `/` first; nil when
    /// the bundle cannot be found (gone); a missing optional step is passed over.
    private func chain(_ requirement: Requirement) -> [(permissions: FilePermissions, wanted: FilePermissions.Wanted)]? {
        guard let real = realPath(of: requirement.bundle) else { return nil }
        var result: [(permissions: FilePermissions, wanted: FilePermissions.Wanted)] = []
        var directories = ["/"], current = ""
        for component in real.split(separator: "/") {
            current += "/" + component
            directories.append(current)
        }
        for (index, directory) in directories.enumerated() {
            guard let permissions = permissions(of: directory) else { return nil }
            result.append((permissions, index == directories.count - 1 ? [.read, .search] : .search))
        }
        for step in requirement.steps {
            guard let permissions = permissions(of: real + "/" + step.path) else {
                if step.optional { continue }
                return nil
            }
            result.append((permissions, step.wanted))
        }
        return result
    }

    private func permissions(of path: String) -> FilePermissions? {
        guard memo != nil else { return permissions(path) }
        if let known = memo![path] { return known }
        let read = permissions(path)
        memo![path] = read
        return read
    }

    private func realPath(of path: String) -> String? {
        guard memo != nil else { return resolve(path) }
        if let known = resolved[path] { return known }
        let real = resolve(path)
        resolved[path] = real
        return real
    }

    /// What an event about `scope` asks of the disk; nil for a scope that names no bundle.
    static func requirement(of scope: Scope) -> Requirement? {
        switch scope {
        case .everyone, .app:
            return nil
        case .bundle(let bundle), .checks(let bundle), .misses(let bundle, _), .generation(let bundle):
            return Requirement(bundle: bundle, steps: [])
        case .localization(let bundle, let localization):
            return Requirement(bundle: bundle, steps: [(localization + ".lproj", .search, true)])
        case .table(let bundle, let localization, let table):
            guard let localization else {
                return Requirement(bundle: bundle, steps: [(table + ".xcstrings", .read, true)])
            }
            let directory = localization + ".lproj"
            return Requirement(bundle: bundle, steps: [(directory, .search, true), (directory + "/" + table + ".strings", .read, true),
                                                       (directory + "/" + table + ".stringsdict", .read, true),
                                                       (table + ".xcstrings", .read, true)])
        }
    }

    static func realPath(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }
}
