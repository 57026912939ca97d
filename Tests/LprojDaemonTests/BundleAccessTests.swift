import Foundation
import LprojClient
import LprojProtocol
import XCTest
@testable import LprojDaemon

/// A bundle is served only to peers that could read it on disk: the peer's
/// uid and groups against the directories from `/` to the bundle, its
/// localizations' directories and its table files, POSIX ACLs included.
final class BundleAccessTests: XCTestCase {
    // MARK: - The rule (FilePermissions)

    private let nobody = PeerCredentials(pid: 1, uid: 65534, gid: 65534, groups: [65534])

    private func peer(_ uid: UInt32, groups: Set<UInt32> = []) -> PeerCredentials {
        PeerCredentials(pid: 1, uid: uid, gid: uid, groups: groups.union([uid]))
    }

    func testTheModeDecidesByOwnerThenGroupThenOthers() {
        let file = FilePermissions(owner: 1000, group: 4242, mode: 0o640)
        XCTAssertTrue(file.grants(.read, to: peer(1000)))
        XCTAssertTrue(file.grants(.read, to: peer(1001, groups: [4242])))
        XCTAssertFalse(file.grants(.read, to: peer(1001)))
        XCTAssertTrue(file.grants(.read, to: peer(0)), "root reads anything")
        // The owner class is the owner's even when the others' bits would let it in.
        XCTAssertFalse(FilePermissions(owner: 1000, group: 4242, mode: 0o044).grants(.read, to: peer(1000)))
        let directory = FilePermissions(owner: 0, group: 0, mode: 0o711)
        XCTAssertTrue(directory.grants(.search, to: nobody))
        XCTAssertFalse(directory.grants([.read, .search], to: nobody))
        XCTAssertTrue(FilePermissions(owner: 0, group: 0, mode: 0o755).grantsEveryone([.read, .search]))
    }

    func testAnACLNamesUsersAndGroupsWithinItsMask() {
        let entries: [FilePermissions.ACLEntry] = [
            .init(tag: .owner, bits: 7, id: 0), .init(tag: .user, bits: 5, id: 1000), .init(tag: .user, bits: 0, id: 1002),
            .init(tag: .owningGroup, bits: 0, id: 0), .init(tag: .group, bits: 5, id: 4242), .init(tag: .mask, bits: 5, id: 0),
            .init(tag: .other, bits: 5, id: 0),
        ]
        let acl = FilePermissions(owner: 0, group: 0, mode: 0o755, acl: entries)
        XCTAssertTrue(acl.grants([.read, .search], to: peer(1000)))
        XCTAssertFalse(acl.grants(.search, to: peer(1002)), "a named user with no bits is refused though the others may")
        XCTAssertTrue(acl.grants(.read, to: peer(1003, groups: [4242])))
        XCTAssertFalse(acl.grants(.read, to: peer(1003, groups: [0])), "a matched group that grants nothing refuses")
        XCTAssertTrue(acl.grants(.read, to: peer(1004)), "nobody named: the others' entry")
        XCTAssertFalse(acl.grantsEveryone(.read), "an ACL that names anyone is never 'everyone'")
        var masked = entries
        masked[5].bits = 0
        XCTAssertFalse(FilePermissions(owner: 0, group: 0, mode: 0o705, acl: masked).grants(.read, to: peer(1000)), "the mask bounds a named user")
    }

    func testTheKernelsACLBytesAreRead() throws {
        // setfacl writes what the kernel keeps; FilePermissions reads it back.
        let directory = try temporaryDirectory()
        chmod(directory, 0o700)
        XCTAssertEqual(try run("/usr/bin/setfacl", ["-m", "u:1000:rx,g:4242:r", directory]), 0)
        let read = try XCTUnwrap(FilePermissions.read(directory))
        XCTAssertTrue(read.acl.contains(.init(tag: .user, bits: 5, id: 1000)), "\(read.acl)")
        XCTAssertTrue(read.acl.contains(.init(tag: .group, bits: 4, id: 4242)), "\(read.acl)")
        XCTAssertTrue(read.grants([.read, .search], to: peer(1000)))
        XCTAssertFalse(read.grants(.search, to: peer(1001, groups: [4242])), "the group may read the listing, not enter")
        XCTAssertFalse(read.grants(.search, to: nobody))
        XCTAssertEqual(FilePermissions.parseACL([2, 0, 0, 0, 1, 0, 7, 0, 255, 255]), nil, "a torn ACL is not read as none")
        XCTAssertEqual(FilePermissions.parseACL([3, 0, 0, 0]), nil, "another version is not read as none")
    }

    // MARK: - The daemon's core, in this process

    /// `Open` is everyone's; `Secret` (0700) root's alone; `Open/fr.lproj/Private.strings` (0600) root's alone.
    private func harness() throws -> CoreHarness {
        try CoreHarness(populate: { root in
            for (path, text) in [("Open/fr.lproj/Localizable.strings", "\"a\" = \"A\";\n"), ("Open/fr.lproj/Private.strings", "\"p\" = \"P\";\n"),
                                 ("Secret/fr.lproj/Localizable.strings", "\"s\" = \"S\";\n")] {
                try FileManager.default.createDirectory(atPath: root + "/" + (path as NSString).deletingLastPathComponent,
                                                        withIntermediateDirectories: true)
                try Data(text.utf8).write(to: URL(fileURLWithPath: root + "/" + path))
            }
            chmod(root + "/Secret", 0o700)
            chmod(root + "/Open/fr.lproj/Private.strings", 0o600)
        })
    }

    func testAnotherUserIsServedOnlyWhatItCouldRead() throws {
        let core = try harness()
        let user = try core.connect(uid: 65534), root = try core.connect()
        _ = try root.send(Sync())

        let listed = try user.send(List())
        XCTAssertEqual(listed.bundles.map(\.path), [core.path("Open")])
        XCTAssertEqual(listed.bundles.first?.localizations.first?.tables.map(\.name), ["Localizable"], "a table it cannot read is not listed")
        XCTAssertEqual(try root.send(List()).bundles.count, 2)

        let everything = try user.send(Snapshot())
        XCTAssertEqual(everything.tables.map { "\($0.bundle)/\($0.table)" }, [core.path("Open") + "/Localizable"])
        for request in [{ _ = try user.send(Snapshot(bundle: core.path("Secret"))) },
                        { _ = try user.send(Lookup(bundle: core.path("Secret"), key: "s", languages: ["fr"])) },
                        { _ = try user.send(Subscribe(name: "s", bundle: core.path("Secret"))) },
                        { _ = try user.send(ReportMisses(bundle: core.path("Secret"), misses: [
                            MissReport(table: "Localizable", key: "k", language: "fr", languages: ["fr"], answer: .key, count: 1)])) }] {
            XCTAssertThrowsError(try request()) { error in
                guard case DaemonConnection.Failure.refused(let refusal) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(refusal.code, .forbidden)
                XCTAssertEqual(refusal.field, "bundle")
                XCTAssertTrue(refusal.message.contains("cannot read \(core.path("Secret"))"), refusal.message)
            }
        }
        XCTAssertEqual(try root.send(Lookup(bundle: core.path("Secret"), key: "s", languages: ["fr"])).text, "S")
        XCTAssertEqual(try user.send(Lookup(bundle: core.path("Open"), key: "a", languages: ["fr"])).text, "A")
    }

    func testEventsGoOnlyToThoseWhoCouldReadAndFollowAChmodAtOnce() throws {
        let core = try harness()
        let user = try core.connect(uid: 65534), root = try core.connect()
        _ = try user.send(Subscribe(name: "all"))
        _ = try root.send(Subscribe(name: "all"))
        func save(_ path: String, _ text: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: core.path(path)))
            _ = try root.send(Sync())
            _ = try user.send(Sync())
        }
        func tables(_ connection: CoreConnection) throws -> [String] {
            var seen: [String] = []
            while let event = try? connection.nextEvent() {
                guard event.name == TableChanged.name else { continue }
                let changed = try event.decode(TableChanged.self)
                seen.append((changed.bundle as NSString).lastPathComponent + "/" + changed.table)
            }
            return seen
        }
        try save("Secret/fr.lproj/Localizable.strings", "\"s\" = \"S2\";\n")
        try save("Open/fr.lproj/Private.strings", "\"p\" = \"P2\";\n")
        try save("Open/fr.lproj/Localizable.strings", "\"a\" = \"A2\";\n")
        XCTAssertEqual(try tables(user), ["Open/Localizable"])
        XCTAssertEqual(try tables(root), ["Secret/Localizable", "Open/Private", "Open/Localizable"])

        // No inotify event says a mode changed: the next event is decided on the mode as it is then.
        chmod(core.path("Secret"), 0o755)
        try save("Secret/fr.lproj/Localizable.strings", "\"s\" = \"S3\";\n")
        XCTAssertEqual(try tables(user), ["Secret/Localizable"])
        XCTAssertEqual(try user.send(Lookup(bundle: core.path("Secret"), key: "s", languages: ["fr"])).text, "S3")
        chmod(core.path("Secret"), 0o700)
        try save("Secret/fr.lproj/Localizable.strings", "\"s\" = \"S4\";\n")
        XCTAssertEqual(try tables(user), [])
    }

    func testGroupsAndACLsLetAPeerInAsTheKernelWould() throws {
        let core = try harness()
        let secret = core.path("Secret")
        let member = try core.admitted(PeerCredentials(pid: 1, uid: 65534, gid: 65534, groups: [65534, 4242]))
        let other = try core.connect(uid: 65533)
        /// Whether the peer is served Secret, checked against what the kernel lets a process of that peer do.
        func served(_ connection: CoreConnection, _ expected: Bool, _ why: String, line: UInt = #line) throws {
            let peer = connection.session.peer
            let served = try connection.send(List()).bundles.contains { $0.path == secret }
            XCTAssertEqual(served, expected, why, line: line)
            XCTAssertEqual(try kernelLets(peer, readAndSearch: secret), expected, "the kernel disagrees: \(why)", line: line)
        }
        try served(member, false, "0700 root's")
        XCTAssertEqual(chown(secret, 0, 4242), 0)
        chmod(secret, 0o750)
        try served(member, true, "a group the peer holds when it connects")
        try served(other, false, "in no group of the directory")
        XCTAssertEqual(try run("/usr/bin/setfacl", ["-m", "u:65533:rx", secret]), 0)
        try served(other, true, "an ACL's named user")
        XCTAssertEqual(try run("/usr/bin/setfacl", ["-m", "m::r", secret]), 0)
        try served(other, false, "the mask bounds the named user")
        XCTAssertEqual(chown(secret, 0, 0), 0)
        chmod(secret, 0o755)
        XCTAssertEqual(try run("/usr/bin/setfacl", ["-m", "g:4242:---", secret]), 0)
        try served(member, false, "a matched group entry that grants nothing, though the others' bits would")
        try served(other, true, "the named user again, within the mask chmod set")
        XCTAssertEqual(try run("/usr/bin/setfacl", ["-m", "u:65533:---", core.path("Open")]), 0)
        XCTAssertEqual(try other.send(List()).bundles.map(\.path), [secret], "an ACL refuses a user the mode would let in")
    }

    func testAReplayGivesOnlyWhatThePeerCouldRead() throws {
        let core = try harness()
        let root = try core.connect(), user = try core.connect(uid: 65534)
        let since = try root.send(Sync()).clock
        try Data("\"s\" = \"S2\";\n".utf8).write(to: URL(fileURLWithPath: core.path("Secret/fr.lproj/Localizable.strings")))
        try Data("\"a\" = \"A2\";\n".utf8).write(to: URL(fileURLWithPath: core.path("Open/fr.lproj/Localizable.strings")))
        _ = try root.send(Sync())
        XCTAssertEqual(try user.send(Subscribe(name: "late", since: since)).fresh, false)
        var replayed: [String] = []
        while let event = try? user.nextEvent() {
            guard event.name == TableChanged.name else { continue }
            replayed.append(try event.decode(TableChanged.self).bundle)
        }
        XCTAssertEqual(replayed, [core.path("Open")])
    }

    // MARK: - Helpers

    private func temporaryDirectory() throws -> String {
        var template = Array("/tmp/lpa-XXXXXX".utf8CString)
        let directory = String(cString: mkdtemp(&template)!)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
        return directory
    }

    /// Whether a process of `peer` may list and enter `directory`, as the kernel says (`test` run through setpriv).
    private func kernelLets(_ peer: PeerCredentials, readAndSearch directory: String) throws -> Bool {
        let groups = peer.groups.subtracting([peer.gid]).map(String.init).joined(separator: ",")
        let status = try run("/usr/bin/setpriv", ["--reuid", "\(peer.uid)", "--regid", "\(peer.gid)"]
                             + (groups.isEmpty ? ["--clear-groups"] : ["--groups", groups])
                             + ["/bin/sh", "-c", "test -r \"$0\" && test -x \"$0\"", directory])
        return status == 0
    }

    private func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

extension CoreHarness {
    /// A session of `peer` exactly as given (its groups too).
    func admitted(_ peer: PeerCredentials) throws -> CoreConnection {
        switch core.admit(peer, at: now) {
        case .success(let session): return CoreConnection(harness: self, session: session)
        case .failure(let refusal): throw DaemonConnection.Failure.refused(refusal)
        }
    }
}
