import Foundation
import LprojProcessTesting
import XCTest

/// Another local user posing as the daemon: binding the socket a client
/// will look for first (the fallback in /tmp, or a path named to it). The
/// client must refuse to talk to it, and the real user's daemon must say
/// why it cannot start rather than share a directory with the impostor.
final class ImpostorTests: XCTestCase {
    private let victim: UInt32 = 4242
    private let impostor: UInt32 = 65534

    func testAClientRefusesASocketAndADaemonOfAnotherUser() throws {
        try requirement(getuid() == 0, "playing two other users needs root (setpriv)")
        var template = Array("/tmp/lpimp-XXXXXX".utf8CString)
        let directory = String(cString: mkdtemp(&template)!)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        chmod(directory, 0o1777)
        let socket = directory + "/lprojd.sock"
        // The impostor listens, and would answer anything.
        let listening = Process()
        listening.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        listening.arguments = ["--reuid", "\(impostor)", "--regid", "\(impostor)", "--clear-groups", "/usr/bin/python3", "-c",
                               "import os, socket, sys\nos.umask(0)\ns = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8); print('up', flush=True)\n"
                                + "while True:\n c, _ = s.accept(); c.sendall(b'{\"id\":1,\"ok\":true,\"server\":\"impostor\"}\\n')\n", socket]
        let ready = Pipe()
        listening.standardOutput = ready
        try listening.run()
        defer { listening.terminate(); listening.waitUntilExit() }
        XCTAssertTrue(String(decoding: ready.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("up"))
        let status = try run(["--reuid", "\(victim)", "--regid", "\(victim)", "--clear-groups",
                              binaryDirectory().appendingPathComponent("lprojctl").path, "status", "--socket", socket])
        XCTAssertEqual(status.code, 3, status.output)
        XCTAssertTrue(status.output.contains("the socket belongs to user \(impostor), not to you, root or lprojd: not trusted"), status.output)
        XCTAssertFalse(status.output.contains("impostor"), "nothing the impostor said was shown")
    }

    func testTheFallbackDirectoryMadeByAnotherUserStopsTheDaemonWithTheReason() throws {
        try requirement(getuid() == 0, "playing two other users needs root (setpriv)")
        let fallback = "/tmp/lprojd-\(victim)"
        try? FileManager.default.removeItem(atPath: fallback)
        defer { try? FileManager.default.removeItem(atPath: fallback) }
        var template = Array("/tmp/lpimp-XXXXXX".utf8CString)
        let root = String(cString: mkdtemp(&template)!)
        defer { try? FileManager.default.removeItem(atPath: root) }
        chmod(root, 0o755)
        chown(root, victim, victim)
        // Made by the impostor first.
        XCTAssertEqual(mkdir(fallback, 0o777), 0)
        chown(fallback, impostor, impostor)
        let lprojd = binaryDirectory().appendingPathComponent("lprojd").path
        let refused = try run(["--reuid", "\(victim)", "--regid", "\(victim)", "--clear-groups", "/usr/bin/env", "-u", "XDG_RUNTIME_DIR",
                               "-u", "LPROJD_SOCKET", "HOME=\(root)", lprojd, "--root", root, "--foreground", "--state", root + "/state"])
        XCTAssertNotEqual(refused.code, 0)
        XCTAssertTrue(refused.output.contains("\(fallback) belongs to user \(impostor), not to you"), refused.output)
        // Its own, made by the daemon: private, and it serves.
        try FileManager.default.removeItem(atPath: fallback)
        let check = try run(["--reuid", "\(victim)", "--regid", "\(victim)", "--clear-groups", "/usr/bin/env", "-u", "XDG_RUNTIME_DIR",
                             "-u", "LPROJD_SOCKET", "HOME=\(root)", lprojd, "--check-config", "--root", root, "--state", root + "/state"])
        XCTAssertEqual(check.code, 0, check.output)
        XCTAssertTrue(check.output.contains("Path=\(fallback)/lprojd.sock"), check.output)
    }

    /// Runs setpriv with `arguments`; its exit code and its output and errors together.
    private func run(_ arguments: [String]) throws -> (code: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
