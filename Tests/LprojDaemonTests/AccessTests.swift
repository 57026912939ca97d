import Foundation
import LprojProcessTesting
import LprojProtocol
import XCTest

/// [Access] checked with the peer's credentials (SO_PEERCRED): a client run
/// as another user (nobody, through setpriv) is refused or limited.
final class AccessTests: XCTestCase {
    func testAllowUsersRefusesOthersAndSelectUsersLimitsMutations() throws {
        try requirement(getuid() == 0, "connecting as another user needs root (setpriv)")
        for (access, statusExpected, selectExpected) in [("AllowUsers=root", Int32(1), Int32(1)),
                                                         ("SelectUsers=root", Int32(0), Int32(1)),
                                                         ("AllowGroups=nogroup", Int32(0), Int32(0))] {
            let config = NSTemporaryDirectory() + "/lprojd-access-\(UUID().uuidString).conf"
            try Data("[Socket]\nMode=0666\n\n[Access]\n\(access)\n".utf8).write(to: URL(fileURLWithPath: config))
            defer { try? FileManager.default.removeItem(atPath: config) }
            let daemon = try DaemonProcess(extraArguments: ["--config", config])
            chmod(daemon.directory, 0o755)
            try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"x\";\n")
            try daemon.start()
            // A copy of lprojctl where nobody can reach it (the build directory may not be).
            let tool = daemon.directory + "/lprojctl"
            if !FileManager.default.fileExists(atPath: tool) {
                try FileManager.default.copyItem(atPath: binaryDirectory().appendingPathComponent("lprojctl").path, toPath: tool)
                chmod(tool, 0o755)
            }
            let status = try asNobody(tool, ["status", "--socket", daemon.socket])
            XCTAssertEqual(status.status, statusExpected, "\(access): \(status.stderr)")
            if statusExpected != 0 { XCTAssertTrue(status.stderr.contains("may not connect"), status.stderr) }
            let select = try asNobody(tool, ["select", "--app", "com.example.demo", "fr", "--socket", daemon.socket])
            XCTAssertEqual(select.status, selectExpected, "\(access): \(select.stderr)")
            if access.hasPrefix("SelectUsers") { XCTAssertTrue(select.stderr.contains("may not select languages"), select.stderr) }
            XCTAssertEqual(daemon.stop(), 0)
        }
    }

    func testAReloadThatTakesAUserOutOfAccessClosesItsConnections() throws {
        try requirement(getuid() == 0, "connecting as another user needs root (setpriv)")
        let daemon = try DaemonProcess(config: "[Socket]\nMode=0666\n\n[Limits]\nFirstRequestTimeout=3600s\n")
        chmod(daemon.directory, 0o755)
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"x\";\n")
        try daemon.start()
        let rootConnection = try daemon.subscriber()
        let nobody = try UserConnections(uid: 65534, socket: daemon.socket, count: 3, mode: "idle")
        defer { nobody.finish() }
        // Their process connects on its own time: wait until the daemon holds all three.
        let deadline = ContinuousClock.now + .seconds(30)
        while try rootConnection.send(Status()).clients.count < 4 {
            guard ContinuousClock.now < deadline else { return XCTFail("the other user's connections never arrived") }
            _ = try rootConnection.send(Sync())
        }
        try daemon.rewriteConfig("[Socket]\nMode=0666\n\n[Limits]\nFirstRequestTimeout=3600s\n\n[Access]\nAllowUsers=root\n")
        daemon.signal(SIGHUP)
        try daemon.awaitNotification("READY=1")
        let lines = try nobody.lines(6)
        XCTAssertEqual(lines.filter { $0.contains("\"forbidden\"") && $0.contains("may no longer connect") }.count, 3, "\(lines)")
        XCTAssertEqual(lines.filter { $0.hasSuffix(": closed") }.count, 3, "\(lines)")
        let status = try rootConnection.send(Status())
        XCTAssertEqual(status.clients.count, 1, "root's connection stays")
        XCTAssertEqual(status.counters["connections-closed-by-reload"], 3)
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    /// Groups are the peer's own (SO_PEERGROUPS), as the kernel saw it connect, never the user database's: nobody is
    /// in no group 4242 in /etc/group, but a process of nobody's holding it is let in, and one that dropped it is not.
    func testAllowGroupsTakesThePeersOwnGroups() throws {
        try requirement(getuid() == 0, "connecting as another user needs root (setpriv)")
        let daemon = try DaemonProcess(config: "[Socket]\nMode=0666\n\n[Access]\nAllowGroups=4242\n")
        chmod(daemon.directory, 0o755)
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"x\";\n")
        try daemon.start()
        let tool = daemon.directory + "/lprojctl"
        try FileManager.default.copyItem(atPath: binaryDirectory().appendingPathComponent("lprojctl").path, toPath: tool)
        chmod(tool, 0o755)
        let holding = try asNobody(tool, ["status", "--socket", daemon.socket], groups: ["--groups", "4242"])
        XCTAssertEqual(holding.status, 0, holding.stderr)
        let dropped = try asNobody(tool, ["status", "--socket", daemon.socket], groups: ["--clear-groups"])
        XCTAssertEqual(dropped.status, 1)
        XCTAssertTrue(dropped.stderr.contains("may not connect"), dropped.stderr)
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// A bundle another user cannot read is not served to it, through the real socket and lprojctl.
    func testABundleAUserCannotReadIsNotServedToIt() throws {
        try requirement(getuid() == 0, "connecting as another user needs root (setpriv)")
        let daemon = try DaemonProcess(config: "[Socket]\nMode=0666\n")
        chmod(daemon.directory, 0o755)
        try daemon.write("Open/fr.lproj/Localizable.strings", "\"a\" = \"A\";\n")
        try daemon.write("Secret/fr.lproj/Localizable.strings", "\"s\" = \"S\";\n")
        let secret = daemon.path("Secret")
        XCTAssertTrue(FileManager.default.fileExists(atPath: secret), "the layout this test assumes")
        chmod(secret, 0o700)
        try daemon.start()
        let tool = daemon.directory + "/lprojctl"
        try FileManager.default.copyItem(atPath: binaryDirectory().appendingPathComponent("lprojctl").path, toPath: tool)
        chmod(tool, 0o755)
        let listed = try asNobody(tool, ["list", "--json", "--socket", daemon.socket])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stdout.contains("/Open"), listed.stdout)
        XCTAssertFalse(listed.stdout.contains("/Secret"), listed.stdout)
        let lookup = try asNobody(tool, ["get", "s", "--bundle", secret, "--language", "fr", "--live", "--socket", daemon.socket])
        XCTAssertEqual(lookup.status, 1)
        XCTAssertTrue(lookup.stderr.contains("cannot read \(secret)"), lookup.stderr)
        XCTAssertEqual(daemon.stop(), 0)
    }

    private func asNobody(_ tool: String, _ arguments: [String], groups: [String] = ["--clear-groups"]) throws
        -> (status: Int32, stderr: String, stdout: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid", "65534", "--regid", "65534"] + groups + [tool] + arguments
        let err = Pipe(), out = Pipe()
        process.standardError = err
        process.standardOutput = out
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stderr, as: UTF8.self), String(decoding: stdout, as: UTF8.self))
    }
}
