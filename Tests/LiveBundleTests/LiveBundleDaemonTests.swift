import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import XCTest

/// LiveBundle and lproj-demo against the real daemon.
final class LiveBundleDaemonTests: XCTestCase {
    private var daemon: DaemonProcess!
    private var config: String { daemon.directory + "/config" }

    override func setUpWithError() throws {
        daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Home\";\n\"item\" = \"Item\";\n")
        try daemon.write("App/en.lproj/InfoPlist.strings", "\"marker\" = \"0\";\n")
        try daemon.write("App/zh-Hant.lproj/Localizable.strings", "\"home_title\" = \"首頁\";\n")
        try daemon.start()
    }

    override func tearDown() {
        if let daemon { XCTAssertEqual(daemon.stop(), 0) }
        daemon = nil
    }




    func testDaemonRestartRecoversWithNoStaleValue() throws {
        let bundle = try make()
        try awaitState(of: bundle) { bundle.isConnected }
        daemon.killHard()
        try awaitState(of: bundle) { !bundle.isConnected }
        XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Home", "the last state is still served")
        try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Changed while down\";\n")
        try daemon.start()
        try awaitState(of: bundle, timeout: .seconds(20)) {
            bundle.isConnected && bundle.localizedString(forKey: "home_title", value: nil, table: nil) == "Changed while down"
        }
        XCTAssertEqual(bundle.localizedString(forKey: "item", value: nil, table: nil), "item", "a key removed while down is gone")
    }





    func testLprojctlSelectSwitchesTwoDemoProcesses() throws {
        let demos = try (0..<2).map { _ in try DemoProcess(daemon: daemon, config: config) }
        for demo in demos { try demo.awaitScreen { $0.contains("following lprojd") } }
        let select = Process()
        select.executableURL = binaryDirectory().appendingPathComponent("lprojctl")
        select.arguments = ["select", "--app", "com.example.lproj-demo", "zh-Hant", "--socket", daemon.socket]
        select.standardOutput = FileHandle.nullDevice
        try select.run()
        select.waitUntilExit()
        XCTAssertEqual(select.terminationStatus, 0)
        for demo in demos {
            try demo.awaitScreen { $0.contains("language: zh-Hant (selected)") && $0.contains("  首頁") }
        }
    }

    func testDemoUnderTmuxRedrawsOnSavesSelectionsAndKeys() throws {
        let session = "lproj-demo-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let command = [binaryDirectory().appendingPathComponent("lproj-demo").path, "--bundle", daemon.root + "/App",
                       "--socket", daemon.socket].map { "'\($0)'" }.joined(separator: " ")
        try tmux(["new-session", "-d", "-s", session, "-x", "100", "-y", "30",
                  "env XDG_CONFIG_HOME='\(config)' LANG=en_US.UTF-8 LANGUAGE= LC_ALL= \(command)"])
        defer { _ = try? tmux(["kill-server"]) }
        // The pane's output is copied into a FIFO: a redraw is an event to wait on, then the screen is read.
        let fifo = daemon.directory + "/pane"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let output = open(fifo, O_RDONLY | O_NONBLOCK)
        defer { close(output) }
        try tmux(["pipe-pane", "-t", session, "cat > '\(fifo)'"])
        func screen() throws -> String { try tmux(["capture-pane", "-p", "-t", session]) }
        func awaitScreen(_ condition: (String) -> Bool) throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while !condition(try screen()) {
                let remaining = deadline - ContinuousClock.now
                guard remaining > .zero else { throw DaemonTestError("screen not seen:\n\(try screen())") }
                var poll = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
                if Glibc.poll(&poll, 1, Int32(remaining.components.seconds * 1000 + 1)) > 0 {
                    var buffer = [UInt8](repeating: 0, count: 65536)
                    _ = read(output, &buffer, buffer.count)
                }
            }
        }
        try awaitScreen { $0.contains("following lprojd") && $0.contains("  Home") }
        // A save redraws.
        try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Start\";\n")
        try awaitScreen { $0.contains("  Start") }
        // A key selects a language (2 = zh-Hant: the localizations are listed sorted).
        let keys = try screen()
        XCTAssertTrue(keys.contains("1 en  2 zh-Hant"), keys)
        _ = try tmux(["send-keys", "-t", session, "2"])
        try awaitScreen { $0.contains("  首頁") && $0.contains("language: zh-Hant (selected)") }
        // lprojctl select from outside redraws too.
        let select = Process()
        select.executableURL = binaryDirectory().appendingPathComponent("lprojctl")
        select.arguments = ["select", "--app", "com.example.lproj-demo", "system", "--socket", daemon.socket]
        try select.run()
        select.waitUntilExit()
        try awaitScreen { $0.contains("language: en (system)") && $0.contains("  Start") }
        _ = try tmux(["send-keys", "-t", session, "q"])
    }

    // MARK: helpers

    private func make() throws -> LiveBundle {
        var options = LiveBundle.Options()
        options.socketPath = daemon.socket
        options.environment = ["LANG": "en_US.UTF-8", "XDG_CONFIG_HOME": config]
        return try LiveBundle(path: daemon.root + "/App", app: "com.example.live", options: options)
    }

    /// Runs tmux against a server of the test's own (`-S` in the daemon's
    /// directory), its output through a file: a server that tmux starts
    /// would inherit a pipe and hold it open.
    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        let output = daemon.directory + "/tmux-output"
        let status = try runToEnd("/usr/bin/tmux", ["-S", daemon.directory + "/tmux.sock"] + arguments, output: output)
        guard status == 0 else { throw DaemonTestError("tmux \(arguments.joined(separator: " ")) failed (\(status))") }
        return try String(contentsOfFile: output, encoding: .utf8)
    }
}

private final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [LiveBundle.Change] = []
    var changes: [LiveBundle.Change] { lock.withLock { recorded } }
    func append(_ change: LiveBundle.Change) { lock.withLock { recorded.append(change) } }
}

/// `lproj-demo --plain` reading its screens as they are printed.
private final class DemoProcess {
    let process = Process()
    private let out = Pipe()
    private let input = Pipe()
    private var text = ""

    init(daemon: DaemonProcess, config: String) throws {
        process.executableURL = binaryDirectory().appendingPathComponent("lproj-demo")
        process.arguments = ["--plain", "--bundle", daemon.root + "/App", "--socket", daemon.socket]
        process.environment = ["LANG": "en_US.UTF-8", "XDG_CONFIG_HOME": config, "PATH": "/usr/bin:/bin"]
        process.standardOutput = out
        process.standardInput = input
        try process.run()
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }

    /// Waits until the last screen printed satisfies `condition`.
    func awaitScreen(timeout: Duration = .seconds(10), _ condition: (String) -> Bool) throws {
        let deadline = ContinuousClock.now + timeout
        let descriptor = out.fileHandleForReading.fileDescriptor
        while true {
            let screens = text.components(separatedBy: "---\n")
            if let last = screens.last(where: { !$0.isEmpty }), condition(last) { return }
            guard ContinuousClock.now < deadline else { throw DaemonTestError("screen not seen; last output:\n\(text.suffix(600))") }
            var poll = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&poll, 1, 100) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 8192)
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { throw DaemonTestError("lproj-demo exited; output:\n\(text)") }
            text += String(decoding: buffer.prefix(count), as: UTF8.self)
        }
    }
}
