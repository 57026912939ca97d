import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import XCTest

/// A `lprojctl set` is seen by the daemon as any save: one table change with
/// the new value, never a torn read; a subscribed LiveBundle switches.
final class EditWriterTests: XCTestCase {
    private var daemon: DaemonProcess!

    override func setUpWithError() throws {
        daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Home\";\n\"login\" = \"Log in\";\n")
        try daemon.write("App/fr.lproj/Localizable.strings", "/* Title */\n\"home_title\" = \"Accueil\";\n")
        try daemon.write("Catalog/Localizable.xcstrings", """
            {
              "sourceLanguage" : "en",
              "strings" : {
                "home_title" : {
                  "localizations" : {
                    "de" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "Start"
                      }
                    }
                  }
                }
              },
              "version" : "1.0"
            }
            """)
        try daemon.start()
    }

    override func tearDown() {
        if let daemon { XCTAssertEqual(daemon.stop(), 0, daemon.log) }
        daemon = nil
    }

    func testASetIsOneTableChangeWithTheNewValue() throws {
        let connection = try daemon.subscriber()
        var options = LiveBundle.Options()
        options.socketPath = daemon.socket
        options.environment = ["LANG": "fr_FR.UTF-8", "XDG_CONFIG_HOME": daemon.directory + "/config"]
        let bundle = try LiveBundle(path: daemon.root + "/App", app: "com.example.edits", options: options)
        let connected = expectation(description: "the LiveBundle follows the daemon")
        connected.assertForOverFulfill = false
        let following = bundle.observeConnection { if $0 { connected.fulfill() } }
        wait(for: [connected], timeout: 30)
        XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Accueil")
        let changed = expectation(description: "the LiveBundle switched")
        changed.assertForOverFulfill = false
        let token = bundle.observe { _ in
            if bundle.localizedString(forKey: "home_title", value: nil, table: nil) == "Page d'accueil" { changed.fulfill() }
        }
        defer { _ = (token, following) }
        try set(["home_title", "Page d'accueil", "--bundle", daemon.root + "/App", "--language", "fr"])
        try set(["home_title", "Anfang", "--bundle", daemon.root + "/Catalog", "--language", "de"])
        _ = try connection.send(Sync())
        var events: [[String: Any]] = []
        // The sync's reply came after every event published before it: they are all read.
        while let message = try? connection.nextMessage(timeout: .zero), case .event(let event) = message { events.append(event.object) }
        let changes = events.filter { $0["event"] as? String == "table-changed" }
        XCTAssertEqual(changes.count, 2, "\(events)")
        XCTAssertEqual(changes.first?["language"] as? String, "fr")
        XCTAssertEqual((changes.first?["changed"] as? [String: Any])?["home_title"] as? String, "Page d'accueil")
        XCTAssertEqual(changes.last?["language"] as? String, "de")
        XCTAssertEqual((changes.last?["changed"] as? [String: Any])?["home_title"] as? String, "Anfang")
        XCTAssertFalse(events.contains { $0["event"] as? String == "table-invalid" }, "\(events)")
        wait(for: [changed], timeout: 30)
    }

    private func set(_ arguments: [String]) throws {
        let status = try runToEnd(binaryDirectory().appendingPathComponent("lprojctl").path, ["set"] + arguments)
        XCTAssertEqual(status, 0)
    }
}
