import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import XCTest

/// Tables that arrive by deploy, laid out and updated exactly as the tools
/// do it: a Kubernetes ConfigMap volume (kubelet's atomic writer, with
/// sub-path items and as a whole `.lproj`), git-sync's worktree link. Each
/// update publishes the real difference, one change per table, never a
/// removal and re-add; a subscriber and a `LiveBundle` follow.
final class DeployLayoutTests: XCTestCase {
    /// A ConfigMap whose items have sub-paths (`en.lproj/Localizable.strings`)
    /// mounted as the root: `en.lproj -> ..data/en.lproj`, `..data -> ..2026_…`.
    func testAConfigMapVolumeFollowsEachUpdate() throws {
        let daemon = try DaemonProcess()
        let volume = KubeletAtomicWriter(target: daemon.root)
        try volume.write(["en.lproj/Localizable.strings": "\"title\" = \"One\";\n\"same\" = \"x\";\n",
                          "de.lproj/Localizable.strings": "\"title\" = \"Eins\";\n",
                          "ja.lproj/Localizable.strings": "\"title\" = \"一\";\n"])
        try daemon.start()
        let connection = try daemon.connect()
        _ = try connection.send(Hello(client: "tests"))
        let reply = try connection.send(Subscribe(name: "all", snapshot: true))
        let tables = try XCTUnwrap(reply.tables)
        XCTAssertEqual(Set(tables.map(\.bundle)), [daemon.root], "the payload directories are no bundles of their own")
        XCTAssertEqual(Set(tables.map(\.language)), ["en", "de", "ja"])
        let live = try liveBundle(daemon.root, on: daemon)
        XCTAssertEqual(live.localizedString(forKey: "title", value: nil, table: nil), "One")

        // An update: en edited, de the same, ja dropped, fr new.
        try volume.write(["en.lproj/Localizable.strings": "\"title\" = \"Two\";\n\"same\" = \"x\";\n",
                          "de.lproj/Localizable.strings": "\"title\" = \"Eins\";\n",
                          "fr.lproj/Localizable.strings": "\"title\" = \"Deux\";\n"])
        let (changes, names) = try changesUntilSync(on: connection)
        XCTAssertEqual(Set(changes.keys), ["en", "fr", "ja"], "\(names)")
        XCTAssertEqual(changes["en"]?.changed["title"]?.text, "Two")
        XCTAssertEqual(changes["en"]?.removed, [])
        XCTAssertEqual(changes["fr"]?.added["title"]?.text, "Deux")
        XCTAssertEqual(changes["ja"]?.deleted, true)
        XCTAssertFalse(names.contains(BundleRemoved.name), "\(names)")
        try awaitState(of: live) { live.localizedString(forKey: "title", value: nil, table: nil) == "Two" }

        // The next update edits one table: one change, and the old payload's removal says nothing.
        try volume.write(["en.lproj/Localizable.strings": "\"title\" = \"Three\";\n\"same\" = \"x\";\n",
                          "de.lproj/Localizable.strings": "\"title\" = \"Eins\";\n",
                          "fr.lproj/Localizable.strings": "\"title\" = \"Deux\";\n"])
        let (again, againNames) = try changesUntilSync(on: connection)
        XCTAssertEqual(Set(again.keys), ["en"], "\(againNames)")
        XCTAssertEqual(again["en"]?.changed["title"]?.text, "Three")
        try awaitState(of: live) { live.localizedString(forKey: "title", value: nil, table: nil) == "Three" }
        XCTAssertEqual(try connection.send(Lookup(bundle: daemon.root, key: "title", languages: ["fr"])).text, "Deux")
        XCTAssertFalse(daemon.log.contains("not followed"), "kubelet's links all lead inside the volume: \(daemon.log)")
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    /// A ConfigMap mounted as one `.lproj` directory: its tables are links
    /// (`Localizable.strings -> ..data/Localizable.strings`).
    func testAConfigMapMountedAsAnLprojFollowsEachUpdate() throws {
        let daemon = try DaemonProcess()
        let lproj = daemon.path("App/en.lproj")
        try FileManager.default.createDirectory(atPath: lproj, withIntermediateDirectories: true)
        try daemon.write("App/de.lproj/Localizable.strings", "\"title\" = \"Titel\";\n")
        let volume = KubeletAtomicWriter(target: lproj)
        try volume.write(["Localizable.strings": "\"title\" = \"Title\";\n", "Menu.strings": "\"open\" = \"Open\";\n"])
        try daemon.start()
        let connection = try daemon.connect()
        _ = try connection.send(Hello(client: "tests"))
        let reply = try connection.send(Subscribe(name: "all", snapshot: true))
        XCTAssertEqual(Set(try XCTUnwrap(reply.tables).map { "\($0.language)/\($0.table)" }), ["en/Localizable", "en/Menu", "de/Localizable"])

        try volume.write(["Localizable.strings": "\"title\" = \"New title\";\n", "InfoPlist.strings": "\"CFBundleName\" = \"App\";\n"])
        let (changes, names) = try changesUntilSync(on: connection, by: \.table)
        XCTAssertEqual(Set(changes.keys), ["Localizable", "Menu", "InfoPlist"], "\(names)")
        XCTAssertEqual(changes["Localizable"]?.changed["title"]?.text, "New title")
        XCTAssertEqual(changes["Menu"]?.deleted, true)
        XCTAssertEqual(changes["InfoPlist"]?.added["CFBundleName"]?.text, "App")
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    /// git-sync (`--root`, `--link current`): each sync checks a worktree
    /// out under `.worktrees/<hash>` and swaps `current` to it through
    /// `tmp-link`, then removes the old worktree.
    func testAGitSyncLinkSwapPublishesTheDifference() throws {
        let daemon = try DaemonProcess(config: "[Watch]\nExclude=.git .worktrees tmp-link\n")
        func worktree(_ hash: String, _ files: [String: String]) throws {
            for (relative, text) in files { try daemon.write(".worktrees/\(hash)/App/\(relative)", text) }
        }
        try worktree("aaa", ["en.lproj/Localizable.strings": "\"title\" = \"One\";\n", "de.lproj/Localizable.strings": "\"title\" = \"Eins\";\n"])
        try daemon.shell("ln -s .worktrees/aaa current", in: daemon.root)
        try daemon.start()
        let connection = try daemon.connect()
        _ = try connection.send(Hello(client: "tests"))
        let bundle = daemon.path("current/App")
        let reply = try connection.send(Subscribe(name: "all", snapshot: true))
        XCTAssertEqual(Set(try XCTUnwrap(reply.tables).map(\.bundle)), [bundle], "served through the link, the worktrees excluded")
        let live = try liveBundle(bundle, on: daemon)
        XCTAssertEqual(live.localizedString(forKey: "title", value: nil, table: nil), "One")

        try worktree("bbb", ["en.lproj/Localizable.strings": "\"title\" = \"Two\";\n", "de.lproj/Localizable.strings": "\"title\" = \"Eins\";\n"])
        try daemon.shell("ln -s .worktrees/bbb tmp-link && mv -T tmp-link current && rm -rf .worktrees/aaa", in: daemon.root)
        let (changes, names) = try changesUntilSync(on: connection)
        XCTAssertEqual(Set(changes.keys), ["en"], "\(names)")
        XCTAssertEqual(changes["en"]?.changed["title"]?.text, "Two")
        XCTAssertFalse(names.contains(BundleRemoved.name) || names.contains(BundleAdded.name), "\(names)")
        try awaitState(of: live) { live.localizedString(forKey: "title", value: nil, table: nil) == "Two" }
        // Edits in the new worktree are followed under the link's path.
        try daemon.write(".worktrees/bbb/App/de.lproj/Localizable.strings", "\"title\" = \"Zwei\";\n")
        XCTAssertEqual(try connection.awaitEvent(TableChanged.name).decode(TableChanged.self).changed["title"]?.text, "Zwei")
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    /// A bundle link swapped as `ln -s` and `mv` do it, with the daemon
    /// looking between the two: the new link, under a temporary name, is
    /// never served as a bundle of its own; moved over the bundle link, the
    /// bundle serves its new target's tables and no longer the old one's.
    func testALinkSeenUnderItsTemporaryNameThenMovedOverTheBundleLink() throws {
        let daemon = try DaemonProcess(config: "")
        try daemon.write("A/en.lproj/Localizable.strings", "\"k\" = \"a\";\n")
        try daemon.write("A/de.lproj/Localizable.strings", "\"k\" = \"a-de\";\n")
        try daemon.write("B/en.lproj/Localizable.strings", "\"k\" = \"b\";\n")
        try daemon.shell("ln -s A L", in: daemon.root)
        try daemon.start()
        let connection = try daemon.subscriber()
        func served() throws -> [String: String] {
            _ = try connection.send(Sync())
            var result: [String: String] = [:]
            for table in try connection.send(Snapshot()).tables {
                result[String(table.bundle.dropFirst(daemon.root.count + 1)) + "/" + table.language] = table.entries["k"]?.text ?? "?"
            }
            return result
        }
        XCTAssertEqual(try served(), ["A/en": "a", "A/de": "a-de", "B/en": "b", "L/en": "a", "L/de": "a-de"])
        try daemon.shell("ln -s B L.tmp", in: daemon.root)
        XCTAssertEqual(try served(), ["A/en": "a", "A/de": "a-de", "B/en": "b", "L/en": "a", "L/de": "a-de"], daemon.log)
        try daemon.shell("mv -T L.tmp L", in: daemon.root)
        XCTAssertEqual(try served(), ["A/en": "a", "A/de": "a-de", "B/en": "b", "L/en": "b"], daemon.log)
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    /// A link that leads out of every root is refused until
    /// `FollowLinksTo=` names where it leads (applied by a reload).
    func testFollowLinksToLetsALinkLeadOutOfTheRoots() throws {
        let daemon = try DaemonProcess(config: "")
        let shared = daemon.directory + "/shared"
        try FileManager.default.createDirectory(atPath: shared + "/fr.lproj", withIntermediateDirectories: true)
        try Data("\"title\" = \"Titre\";\n".utf8).write(to: URL(fileURLWithPath: shared + "/fr.lproj/Localizable.strings"))
        try daemon.write("App/en.lproj/Localizable.strings", "\"title\" = \"Title\";\n")
        try daemon.shell("ln -s \(shared)/fr.lproj App/fr.lproj", in: daemon.root)
        try daemon.start()
        let connection = try daemon.subscriber()
        XCTAssertEqual(try connection.send(Snapshot(bundle: daemon.path("App"))).tables.map(\.language), ["en"])
        XCTAssertTrue(daemon.log.contains("fr.lproj: symbolic link not followed: it leads to \(shared)/fr.lproj, outside every root"),
                      daemon.log)

        try daemon.rewriteConfig("[Watch]\nFollowLinksTo=\(shared)\n")
        daemon.signal(SIGHUP)
        let added = try connection.awaitEvent(TableChanged.name).decode(TableChanged.self)
        XCTAssertEqual(added.language, "fr")
        XCTAssertEqual(added.added["title"]?.text, "Titre")
        // Edits where it leads are followed (the link's target is watched under the link's path).
        try Data("\"title\" = \"Titre modifié\";\n".utf8).write(to: URL(fileURLWithPath: shared + "/fr.lproj/Localizable.strings"))
        XCTAssertEqual(try connection.awaitEvent(TableChanged.name).decode(TableChanged.self).changed["title"]?.text, "Titre modifié")
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    /// A dangling link is followed once what it leads to appears (a file,
    /// or a directory), and a save elsewhere in a tree with links changes nothing about them.
    func testADanglingLinkIsFollowedOnceItsTargetAppears() throws {
        let daemon = try DaemonProcess(config: "[Watch]\nQuietPeriod=20ms\n")
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"v\";\n")
        try FileManager.default.createDirectory(atPath: daemon.path("shared"), withIntermediateDirectories: true)
        try daemon.shell("ln -s ../../shared/Later.strings App/en.lproj/Later.strings && ln -s ../shared/fr.lproj App/fr.lproj", in: daemon.root)
        try daemon.start()
        let connection = try daemon.subscriber()
        XCTAssertTrue(daemon.log.contains("Later.strings: symbolic link not followed: dangling"), daemon.log)
        // A save elsewhere: the links are not what changed.
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"w\";\n")
        XCTAssertEqual(try connection.awaitEvent(TableChanged.name).decode(TableChanged.self).table, "Localizable")
        // The file a dangling file link leads to is written: the link's table appears.
        try daemon.write("shared/Later.strings", "\"later\" = \"Later\";\n")
        let later = try connection.awaitEvent(TableChanged.name) { (try? $0.decode(TableChanged.self).table) == "Later" }.decode(TableChanged.self)
        XCTAssertEqual(later.bundle, daemon.path("App"))
        XCTAssertEqual(later.added["later"]?.text, "Later")
        // The directory a dangling directory link leads to is made: the localization appears.
        try daemon.write("shared/fr.lproj/Localizable.strings", "\"k\" = \"fr\";\n")
        let french = try connection.awaitEvent(TableChanged.name) { (try? $0.decode(TableChanged.self).language) == "fr" }.decode(TableChanged.self)
        XCTAssertEqual(french.bundle, daemon.path("App"))
        XCTAssertEqual(french.added["k"]?.text, "fr")
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    // MARK: - Helpers

    /// A `LiveBundle` on `path`, connected to the test's daemon.
    private func liveBundle(_ path: String, on daemon: DaemonProcess) throws -> LiveBundle {
        var options = LiveBundle.Options()
        options.socketPath = daemon.socket
        options.environment = ["LANG": "en_US.UTF-8", "HOME": daemon.directory]
        let live = try LiveBundle(path: path, options: options)
        try awaitState(of: live) { live.isConnected }
        return live
    }

    /// The table changes published until a `sync` is answered, by language
    /// (or by `key`), each at most once (a second fails the test); and every event's name.
    private func changesUntilSync(on connection: DaemonConnection, by key: KeyPath<TableChanged, String> = \.language,
                                  file: StaticString = #filePath, line: UInt = #line) throws -> ([String: TableChanged], [String]) {
        _ = try connection.send(Sync())
        var changes: [String: TableChanged] = [:]
        var names: [String] = []
        while let event = try? connection.nextEvent(timeout: .milliseconds(1)) {
            names.append(event.name)
            guard event.name == TableChanged.name else { continue }
            let change = try event.decode(TableChanged.self)
            XCTAssertNil(changes[change[keyPath: key]], "one change per table: \(change[keyPath: key]) in \(names)", file: file, line: line)
            changes[change[keyPath: key]] = change
        }
        return (changes, names)
    }
}
