import Foundation
import LprojProcessTesting
import LprojProtocol
import XCTest

/// `lprojctl status`, `list`, `tail`, `get --live` and `select` against a real daemon.
final class LiveCommandTests: XCTestCase {
    private var daemon: DaemonProcess!

    override func setUpWithError() throws {
        daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Home\";\n\"welcome\" = \"Welcome, %@!\";\n")
        try daemon.write("App/zh-Hant.lproj/Localizable.strings", "\"home_title\" = \"首頁\";\n")
        try daemon.start()
    }

    override func tearDown() {
        if let daemon { XCTAssertEqual(daemon.stop(), 0) }
        daemon = nil
    }

    func testStatusAndList() throws {
        let status = try lprojctl(["status", "--socket", daemon.socket])
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.hasPrefix("lprojd 0.2.0 (pid \(daemon.pid)), instance "), status.stdout)
        XCTAssertTrue(status.stdout.contains("1 bundle, 2 tables"), status.stdout)
        let json = try lprojctl(["status", "--json", "--socket", daemon.socket])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["tables"] as? Int, 2)
        try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Home\"\n")
        _ = try daemon.connect().send(Sync())
        let list = try lprojctl(["list", "--socket", daemon.socket])
        // (zh-Hant lacks one of en's keys: the cross-language checks count it. A broken save serves the last good
        // tables: no new generation.)
        var lines = list.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines.count, 5, list.stdout)
        let generation = lines.remove(at: 1)
        XCTAssertTrue(generation.hasPrefix("  generation 1 ("), generation)
        XCTAssertTrue(generation.hasSuffix("): 0 processes following"), generation)
        XCTAssertEqual(lines.joined(separator: "\n"), """
            \(daemon.root)/App  (checks: 0 errors, 1 warning)
              en       Localizable (2, invalid: 1 error)
              zh-Hant  Localizable (1)

            """)
    }

    func testGetLiveAndSelect() throws {
        let get = try lprojctl(["get", "home_title", "--live", "--bundle", daemon.root + "/App", "--language", "zh-HK", "--socket", daemon.socket])
        XCTAssertEqual(get.status, 0, get.stderr)
        XCTAssertEqual(get.stdout, "首頁\n  chain: zh-Hant → en\n  zh-Hant/Localizable: found\n  from: table zh-Hant\n")
        let welcome = try lprojctl(["get", "welcome", "--live", "--bundle", daemon.root + "/App", "--language", "en", "--arg", "Ada",
                                    "--socket", daemon.socket])
        XCTAssertEqual(welcome.stdout.split(separator: "\n").first, "Welcome, Ada!")
        let missing = try lprojctl(["get", "nope", "--live", "--bundle", daemon.root + "/App", "--socket", daemon.socket])
        XCTAssertEqual(missing.status, 1)
        let outside = try lprojctl(["get", "k", "--live", "--bundle", "/etc", "--socket", daemon.socket])
        XCTAssertEqual(outside.status, 1)
        XCTAssertTrue(outside.stderr.contains("outside every watched root"), outside.stderr)

        let select = try lprojctl(["select", "--app", "com.example.demo", "zh-Hant", "--socket", daemon.socket])
        XCTAssertEqual(select.status, 0, select.stderr)
        XCTAssertEqual(select.stdout, "com.example.demo: zh-Hant\n")
        XCTAssertEqual(try lprojctl(["select", "--app", "com.example.demo", "not a tag", "--socket", daemon.socket]).status, 2)
        let nobody = try lprojctl(["status", "--socket", daemon.directory + "/none.sock"])
        XCTAssertEqual(nobody.status, 3)
        XCTAssertTrue(nobody.stderr.contains("cannot reach lprojd at \(daemon.directory)/none.sock: no daemon is running there"), nobody.stderr)
    }

    func testTailShowsDiffsWithOldValuesAndDiagnosticsWithPositions() throws {
        let tail = try TailProcess(["tail", "--count", "3", "--socket", daemon.socket])
        try tail.awaitReady()
        try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Start\";\n\"new\" = \"N\";\n")
        _ = try daemon.connect().send(Sync())
        try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Start\"\n")
        _ = try daemon.connect().send(Sync())
        _ = try lprojctl(["select", "--app", "com.example.demo", "ja", "--socket", daemon.socket])
        let output = try tail.finish()
        XCTAssertEqual(output.status, 0)
        let lines = output.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("  ~ home_title: \"Home\" → \"Start\""), output.stdout)
        XCTAssertTrue(lines.contains("  + new: \"N\""), output.stdout)
        XCTAssertTrue(lines.contains("  - welcome: \"Welcome, %@!\""), output.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  \(daemon.root)/App/en.lproj/Localizable.strings:1:23: error:") }, output.stdout)
        XCTAssertTrue(lines.contains { $0.hasSuffix("language-selected com.example.demo → ja") }, output.stdout)
    }

    // MARK: helpers

    private func lprojctl(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let tail = try TailProcess(arguments)
        return try tail.finish()
    }
}

/// An lprojctl process whose output is read with deadlines.
private final class TailProcess {
    let process = Process()
    private let out = Pipe(), err = Pipe()
    private var stderrText = ""

    init(_ arguments: [String]) throws {
        process.executableURL = binaryDirectory().appendingPathComponent("lprojctl")
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Waits until tail says it follows (its subscription is in place).
    func awaitReady(timeout: Duration = .seconds(30)) throws {
        let deadline = ContinuousClock.now + timeout
        let descriptor = err.fileHandleForReading.fileDescriptor
        while !stderrText.contains("tail: following") {
            guard ContinuousClock.now < deadline else { throw DaemonTestError("tail did not start: \(stderrText)") }
            var poll = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&poll, 1, 100) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { throw DaemonTestError("tail exited: \(stderrText)") }
            stderrText += String(decoding: buffer.prefix(count), as: UTF8.self)
        }
    }

    /// Waits for the exit (killing it after the deadline) and returns what it printed.
    func finish(timeout: Duration = .seconds(30)) throws -> (status: Int32, stdout: String, stderr: String) {
        let deadline = ContinuousClock.now + timeout
        var stdout = Data()
        let descriptor = out.fileHandleForReading.fileDescriptor
        while true {
            var poll = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if ContinuousClock.now >= deadline {
                process.terminate()
                break
            }
            guard Glibc.poll(&poll, 1, 100) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = read(descriptor, &buffer, buffer.count)
            if count <= 0 { break }
            stdout.append(contentsOf: buffer.prefix(count))
        }
        process.waitUntilExit()
        stderrText += String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), stderrText)
    }
}
