import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import XCTest

/// A root reached through a symbolic link that deploys swap (Capistrano's
/// `current -> releases/N`): served under the configured path, and a swap
/// publishes the real difference between the releases, one change per table.
final class LinkSwapTests: XCTestCase {
    func testAReleaseSwapPublishesTheDifferenceUnderTheConfiguredPath() throws {
        let daemon = try DaemonProcess(config: "", passesRoot: false)
        let app = daemon.directory + "/app"
        let served = app + "/current/Resources"
        func release(_ number: Int, _ files: [String: String]) throws {
            for (relative, text) in files {
                let path = "\(app)/releases/\(number)/Resources/\(relative)"
                try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            }
        }
        try release(1, ["en.lproj/Localizable.strings": "\"title\" = \"One\";\n\"same\" = \"x\";\n",
                        "de.lproj/Localizable.strings": "\"title\" = \"Eins\";\n",
                        "ja.lproj/Localizable.strings": "\"title\" = \"一\";\n"])
        try release(2, ["en.lproj/Localizable.strings": "\"title\" = \"Two\";\n\"same\" = \"x\";\n",
                        "de.lproj/Localizable.strings": "\"title\" = \"Eins\";\n",
                        "fr.lproj/Localizable.strings": "\"title\" = \"Deux\";\n"])
        try daemon.shell("ln -s releases/1 current", in: app)
        try daemon.rewriteConfig("[Watch]\nRoot=\(served)\n")
        try daemon.start()
        let connection = try daemon.connect()
        _ = try connection.send(Hello(client: "tests"))
        XCTAssertEqual(try connection.send(Status()).roots, [served], "served under the configured path")
        let reply = try connection.send(Subscribe(name: "all", snapshot: true))
        XCTAssertEqual(Set(try XCTUnwrap(reply.tables).map(\.bundle)), [served])
        var options = LiveBundle.Options()
        options.socketPath = daemon.socket
        options.environment = ["LANG": "en_US.UTF-8", "HOME": daemon.directory]
        let live = try LiveBundle(path: served, options: options)
        XCTAssertEqual(live.path, served)
        try awaitState(of: live) { live.isConnected }
        XCTAssertEqual(live.localizedString(forKey: "title", value: nil, table: nil), "One")

        // The deploy: a new link renamed over the old one.
        try daemon.shell("ln -s releases/2 current.tmp && mv -T current.tmp current", in: app)
        _ = try connection.send(Sync())
        var changes: [String: TableChanged] = [:]
        var names: [String] = []
        while let event = try? connection.nextEvent(timeout: .milliseconds(1)) {
            names.append(event.name)
            if event.name == TableChanged.name {
                let change = try event.decode(TableChanged.self)
                XCTAssertNil(changes[change.language], "one change per table: \(change.language)")
                changes[change.language] = change
                XCTAssertEqual(change.bundle, served)
            }
        }
        XCTAssertEqual(Set(changes.keys), ["en", "fr", "ja"], "de is the same in both releases: \(names)")
        XCTAssertEqual(changes["en"]?.changed["title"]?.text, "Two")
        XCTAssertEqual(changes["en"]?.removed, [])
        XCTAssertEqual(changes["fr"]?.added["title"]?.text, "Deux")
        XCTAssertEqual(changes["ja"]?.deleted, true)
        XCTAssertFalse(names.contains(BundleRemoved.name))
        try awaitState(of: live) { live.localizedString(forKey: "title", value: nil, table: nil) == "Two" }

        // Requests name the bundle by the configured path or by where it leads.
        XCTAssertEqual(try connection.send(Lookup(bundle: served, key: "title", languages: ["fr"])).text, "Deux")
        XCTAssertEqual(try connection.send(Snapshot(bundle: app + "/releases/2/Resources")).tables.first?.bundle, served)
        // Edits in the new release are followed; pruning the old release says nothing.
        try Data("\"title\" = \"Zwei\";\n".utf8).write(to: URL(fileURLWithPath: app + "/releases/2/Resources/de.lproj/Localizable.strings"))
        XCTAssertEqual(try connection.awaitEvent(TableChanged.name).decode(TableChanged.self).changed["title"]?.text, "Zwei")
        try daemon.shell("rm -rf releases/1", in: app)
        _ = try connection.send(Sync())
        XCTAssertNil(try? connection.nextEvent(timeout: .milliseconds(1)), "the old release is nobody's business any more")
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }
}
