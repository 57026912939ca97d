import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import XCTest

/// lprojd under a service manager, proven with what this machine has:
/// `systemd-socket-activate`, a datagram NOTIFY_SOCKET of the test's own,
/// signals.
final class ServiceTests: XCTestCase {
    /// A launcher that passes a socket (LISTEN_FDS, LISTEN_PID) but no
    /// NOTIFY_SOCKET, and no --foreground: lprojd must not detach (its child
    /// would no longer be LISTEN_PID) and must serve the passed socket.
    func testAPassedSocketIsServedWithoutNotifySocketOrForeground() throws {
        let daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"x\";\n")
        let elsewhere = daemon.directory + "/default.sock"
        let process = try daemon.startSocketActivated(["--root", daemon.root, "--state", daemon.state],
                                                      environment: ["LPROJD_SOCKET": elsewhere])
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        let connection = try daemon.connect()
        let hello = try connection.send(Hello(client: "tests"), timeout: .seconds(30))
        XCTAssertEqual(hello.server, "lprojd 0.2.0")
        let status = try connection.send(Status())
        XCTAssertEqual(status.pid, process.processIdentifier, "the launcher's child serves: it did not detach")
        XCTAssertEqual(status.tables, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: elsewhere), "it never binds another path")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
    }

    /// READY=1 after the first crawl, WATCHDOG=1 from the loop, RELOADING=1
    /// (with MONOTONIC_USEC) then READY=1 around a SIGHUP, STOPPING=1.
    func testNotificationsAroundStartWatchdogReloadAndStop() throws {
        let daemon = try DaemonProcess(config: "[Log]\nLevel=info\n")
        for index in 0..<50 { try daemon.write("App/l\(index).lproj/Localizable.strings", "\"a\" = \"\(index)\";\n") }
        try daemon.start(environment: ["WATCHDOG_USEC": "200000"])
        let ready = try XCTUnwrap(daemon.notifications.last)
        XCTAssertTrue(ready.contains("READY=1"), ready)
        XCTAssertTrue(ready.contains("STATUS=1 bundles, 50 tables, 0 clients"), "ready once the crawl is served: \(ready)")
        try daemon.awaitNotification("WATCHDOG=1")
        try daemon.awaitNotification("WATCHDOG=1")
        daemon.signal(SIGHUP)
        let reloading = try daemon.awaitNotification("RELOADING=1")
        XCTAssertTrue(reloading.split(separator: "\n").contains { $0.hasPrefix("MONOTONIC_USEC=") && UInt64($0.dropFirst(15)) != nil }, reloading)
        try daemon.awaitNotification("READY=1")
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
        try daemon.awaitNotification("STOPPING=1")
    }

    /// A root added to the config and SIGHUP: a subscriber that stayed
    /// connected gets the new root's tables and edits, the pid unchanged; a
    /// root dropped takes its tables with it.
    func testReloadAddsAndDropsRootsForConnectedSubscribers() throws {
        let daemon = try DaemonProcess(config: "", passesRoot: false)
        let first = daemon.directory + "/first", second = daemon.directory + "/second"
        try daemon.rewriteConfig("[Watch]\nRoot=\(first)\n")
        for (root, value) in [(first, "one"), (second, "two")] {
            try FileManager.default.createDirectory(atPath: root + "/App/en.lproj", withIntermediateDirectories: true)
            try Data("\"k\" = \"\(value)\";\n".utf8).write(to: URL(fileURLWithPath: root + "/App/en.lproj/Localizable.strings"))
        }
        try daemon.start()
        let connection = try daemon.connect()
        _ = try connection.send(Hello(client: "tests"))
        let pid = try connection.send(Status()).pid
        _ = try connection.send(Subscribe(name: "all"))

        try daemon.rewriteConfig("[Watch]\nRoot=\(first)\nRoot=\(second)\n")
        daemon.signal(SIGHUP)
        let added = try connection.awaitEvent(TableChanged.name) { (try? $0.decode(TableChanged.self).bundle) == second + "/App" }
        XCTAssertEqual(try added.decode(TableChanged.self).added["k"]?.text, "two")
        try Data("\"k\" = \"two, edited\";\n".utf8).write(to: URL(fileURLWithPath: second + "/App/en.lproj/Localizable.strings"))
        let edited = try connection.awaitEvent(TableChanged.name) { (try? $0.decode(TableChanged.self).bundle) == second + "/App" }
        XCTAssertEqual(try edited.decode(TableChanged.self).changed["k"]?.text, "two, edited")
        let status = try connection.send(Status())
        XCTAssertEqual(status.pid, pid)
        XCTAssertEqual(status.roots, [first, second])

        try daemon.rewriteConfig("[Watch]\nRoot=\(second)\n")
        daemon.signal(SIGHUP)
        let dropped = try connection.awaitEvent(TableChanged.name) { (try? $0.decode(TableChanged.self).bundle) == first + "/App" }
        XCTAssertEqual(try dropped.decode(TableChanged.self).deleted, true)
        XCTAssertEqual(try connection.send(Status()).roots, [second])
        XCTAssertEqual(try connection.send(Snapshot()).tables.map(\.bundle), [second + "/App"])
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    /// A broken config on SIGHUP leaves the daemon running on the old one,
    /// saying why (its log, `status`), until a reload succeeds.
    func testABrokenConfigOnReloadKeepsTheOldOne() throws {
        let daemon = try DaemonProcess(config: "[Limits]\nMaxClients=50\n")
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"v\";\n")
        try daemon.start()
        let connection = try daemon.subscriber()
        try daemon.rewriteConfig("[Limits]\nMaxClients=lots\n")
        daemon.signal(SIGHUP)
        try daemon.awaitNotification("RELOADING=1")
        let ready = try daemon.awaitNotification("READY=1")
        XCTAssertTrue(ready.contains("reload failed"), ready)
        let status = try connection.send(Status())
        let error = try XCTUnwrap(status.lastError)
        XCTAssertTrue(error.contains("lprojd.conf:2: [Limits] MaxClients: must be from 1 to 65536, not 'lots'"), error)
        XCTAssertTrue(daemon.log.contains("lprojd.conf:2: [Limits] MaxClients"), daemon.log)
        // Still serving, and following saves.
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"after\";\n")
        XCTAssertEqual(try connection.awaitEvent(TableChanged.name).decode(TableChanged.self).changed["k"]?.text, "after")
        try daemon.rewriteConfig("[Limits]\nMaxClients=60\n")
        daemon.signal(SIGHUP)
        try daemon.awaitNotification("RELOADING=1")
        try daemon.awaitNotification("READY=1")
        XCTAssertNil(try connection.send(Status()).lastError)
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    /// A number past its range (here one whose milliseconds overflow 64 bits, which once killed the daemon and left its
    /// socket behind) fails the reload with the file, line and key; the daemon keeps serving on the old configuration.
    func testAnOverflowingValueOnReloadKeepsTheOldConfiguration() throws {
        let daemon = try DaemonProcess(config: "[Watch]\nRemovalGrace=100ms\n")
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"v\";\n")
        try daemon.start()
        let connection = try daemon.subscriber()
        for (section, key, value) in [("Watch", "RemovalGrace", "9223372036854776s"), ("Watch", "QuietPeriod", "9223372036854775808ms"),
                                      ("Watch", "PollInterval", "99999999999999999999s"), ("Limits", "HistoryBytes", "9999999999G"),
                                      ("Limits", "FirstRequestTimeout", "-5s")] {
            try daemon.rewriteConfig("[\(section)]\n\(key)=\(value)\n")
            daemon.signal(SIGHUP)
            let ready = try daemon.awaitNotification("READY=1")
            XCTAssertTrue(ready.contains("reload failed"), ready)
            let error = try XCTUnwrap(try connection.send(Status()).lastError)
            XCTAssertTrue(error.contains("lprojd.conf:2: [\(section)] \(key): must be from "), error)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: daemon.socket))
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"after\";\n")
        XCTAssertEqual(try connection.awaitEvent(TableChanged.name).decode(TableChanged.self).changed["k"]?.text, "after")
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    /// SIGHUP is a reload, never a death: the socket stays, the pid stays.
    func testSighupNeverKillsTheDaemon() throws {
        let daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"v\";\n")
        try daemon.start()
        let pid = try daemon.connect().send(Status()).pid
        daemon.signal(SIGHUP)
        try daemon.awaitNotification("READY=1")
        XCTAssertEqual(try daemon.connect().send(Status()).pid, pid)
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }
}
