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

    func testASavedTableChangesTheValueWithExactlyOneChange() throws {
        let bundle = try make()
        try awaitState(of: bundle) { bundle.isConnected }
        let recorder = Recorder()
        let token = bundle.observe { recorder.append($0) }
        try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Start\";\n\"item\" = \"Item\";\n")
        try awaitState(of: bundle) { bundle.localizedString(forKey: "home_title", value: nil, table: nil) == "Start" }
        // A later change on the same connection: anything owed for the first has arrived before it.
        try daemon.write("App/en.lproj/InfoPlist.strings", "\"marker\" = \"1\";\n")
        try awaitState(of: bundle) { recorder.changes.contains { $0.changedKeys["InfoPlist"] != nil } }
        let forLocalizable = recorder.changes.filter { $0.changedKeys["Localizable"] != nil }
        XCTAssertEqual(forLocalizable.count, 1, "exactly one change for one save")
        XCTAssertEqual(forLocalizable.first?.changedKeys["Localizable"], ["home_title"])
        token.cancel()
    }

    /// A view taken before a live save keeps its text (a request that
    /// started before the save finishes on the old text); the next view has the new.
    /// A `Base.lproj` with resources and no table is searched for resources
    /// (the daemon lists localizations by their tables, so Base is not among them).
    func testABaseWithOnlyResourcesServesThem() throws {
        try daemon.write("App/Base.lproj/Main.storyboard", "base")
        let bundle = try make()
        try awaitState(of: bundle) { bundle.isConnected }
        XCTAssertFalse(bundle.current.searchList.contains("Base"))
        let url = try XCTUnwrap(bundle.url(forResource: "Main", withExtension: "storyboard"))
        XCTAssertEqual(try String(contentsOf: url, encoding: .utf8), "base")
        XCTAssertEqual(bundle.localization(acceptLanguage: "zh-TW").url(forResource: "Main", withExtension: "storyboard"), url)
    }

    func testAViewTakenBeforeASaveKeepsItsText() throws {
        let bundle = try make()
        try awaitState(of: bundle) { bundle.isConnected }
        let before = bundle.current
        let request = bundle.localization(acceptLanguage: "zh-TW, en;q=0.5")
        XCTAssertEqual(request.localizedString(forKey: "home_title", value: nil, table: nil), "首頁")
        try daemon.write("App/zh-Hant.lproj/Localizable.strings", "\"home_title\" = \"主頁\";\n")
        try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Start\";\n\"item\" = \"Item\";\n")
        try awaitState(of: bundle) { bundle.localizedString(forKey: "home_title", value: nil, table: nil) == "Start" }
        try awaitState(of: bundle) { bundle.localization(acceptLanguage: "zh-TW, en;q=0.5").localizedString(forKey: "home_title", value: nil, table: nil) == "主頁" }
        XCTAssertEqual(before.localizedString(forKey: "home_title", value: nil, table: nil), "Home", "the old view is as it was")
        XCTAssertEqual(request.localizedString(forKey: "home_title", value: nil, table: nil), "首頁")
        XCTAssertEqual(bundle.current.localizedString(forKey: "home_title", value: nil, table: nil), "Start")
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

    func testSetLanguageGoesThroughTheDaemonToEveryProcessOfTheApp() throws {
        let first = try make(), second = try make()
        try awaitState(of: first) { first.isConnected }
        try awaitState(of: second) { second.isConnected }
        try first.setLanguage("zh-Hant")
        XCTAssertEqual(first.language, "zh-Hant")
        try awaitState(of: second) { second.language == "zh-Hant" }
        XCTAssertEqual(second.localizedString(forKey: "home_title", value: nil, table: nil), "首頁")
        let hello = try daemon.connect().send(Hello(client: "t", app: "com.example.live"))
        XCTAssertEqual(hello.language, "zh-Hant", "the daemon persisted it")
    }

    /// A pseudolanguage is selected like any language: switching to it and
    /// back is one change each; an edit of the development table changes it live.
    func testAPseudolanguageIsSelectableAndFollowsTheDevelopmentTable() throws {
        let bundle = try make()
        try awaitState(of: bundle) { bundle.isConnected }
        let recorder = Recorder()
        let token = bundle.observe { recorder.append($0) }
        defer { token.cancel() }
        try bundle.setLanguage("en-XA")
        XCTAssertEqual(bundle.language, "en-XA")
        XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Ĥöɱé")
        XCTAssertEqual(recorder.changes.count, 1, "one change to switch")
        try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Start\";\n\"item\" = \"Item\";\n")
        try awaitState(of: bundle) { bundle.localizedString(forKey: "home_title", value: nil, table: nil) == "Šţáŕţ" }
        try bundle.setLanguage("ar-XB")
        XCTAssertEqual(bundle.current.layoutDirection, .rightToLeft)
        XCTAssertEqual(bundle.localizedString(forKey: "item", value: nil, table: nil), "\u{202E}Item\u{202C}")
        let before = recorder.changes.count
        try bundle.setLanguage("en")
        XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Start")
        XCTAssertEqual(recorder.changes.count, before + 1, "one change to switch back: \(recorder.changes)")
        // The daemon's lookup knows them too (lprojctl get --live --language en-XE).
        let reply = try daemon.connect().send(Lookup(bundle: daemon.path("App"), key: "home_title", languages: ["en-XE"]))
        XCTAssertEqual(reply.text, "[# Start #]")
    }

    /// Quick `setLanguage` calls from one process reach the daemon in call
    /// order, and no echo of an older choice replaces the newest one.
    func testQuickSelectionsArriveInCallOrderAndTheNewestStays() throws {
        let bundle = try make()
        try awaitState(of: bundle) { bundle.isConnected }
        let tool = try daemon.connect()
        _ = try tool.send(Hello(client: "tests"))
        _ = try tool.send(Subscribe(name: "selections"))
        let choices = (0..<40).map { ["zh-Hant", "en", "ja", "fr", "system"][$0 % 5] } + ["ja"]
        let recorder = Recorder()
        let token = bundle.observe { recorder.append($0) }
        for choice in choices { try bundle.setLanguage(choice) }
        let afterLastCall = recorder.changes.count
        XCTAssertEqual(bundle.selectedLanguage, "ja", "applied in this process before setLanguage returns")
        var published: [String] = []
        while published.count < choices.count {
            let event = try tool.awaitEvent(LanguageSelected.name)
            published.append(try event.decode(LanguageSelected.self).language ?? "system")
        }
        XCTAssertEqual(published, choices, "the daemon got them in call order")
        // A save the bundle sees comes after every echo on its connection.
        try daemon.write("App/en.lproj/InfoPlist.strings", "\"marker\" = \"after\";\n")
        try awaitState(of: bundle) { recorder.changes.contains { $0.changedKeys["InfoPlist"] != nil } }
        XCTAssertEqual(bundle.selectedLanguage, "ja")
        XCTAssertFalse(recorder.changes[afterLastCall...].contains { $0.languageChanged }, "an older echo changed the language")
        XCTAssertEqual(try daemon.connect().send(Hello(client: "t", app: "com.example.live")).language, "ja")
        token.cancel()
    }

    /// The daemon owns the selection: a choice left in the local file is
    /// served only until the daemon answers with its own.
    func testTheDaemonsSelectionWinsOverTheLocalFile() throws {
        let tool = try daemon.connect()
        _ = try tool.send(SelectLanguage(app: "com.example.live", language: "zh-Hant"))
        try FileManager.default.createDirectory(atPath: config + "/lprojd", withIntermediateDirectories: true)
        try Data("ja\n".utf8).write(to: URL(fileURLWithPath: config + "/lprojd/com.example.live.language"))
        let bundle = try make()
        try awaitState(of: bundle) { bundle.isConnected && bundle.selectedLanguage == "zh-Hant" }
        XCTAssertEqual(bundle.language, "zh-Hant")
        XCTAssertEqual(try String(contentsOfFile: config + "/lprojd/com.example.live.language", encoding: .utf8), "zh-Hant\n",
                       "the local file follows the daemon, for the next start without one")
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
