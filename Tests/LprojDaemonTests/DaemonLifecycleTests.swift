import Foundation
import LprojDaemon
import LprojClient
import LprojProcessTesting
import LprojProtocol
import LprojTables
import XCTest

/// The daemon under faults: overflow, kill -9 and restart, stuck clients,
/// hostile requests, signals, sockets left behind, bad configuration.
final class DaemonLifecycleTests: XCTestCase {
    /// A debug log written inside a root (the daemon's standard error is a
    /// file in the tree it watches) does not feed itself: a write of it is
    /// not a table, so nothing is logged for it.
    func testADebugLogInsideTheRootDoesNotFeedItself() throws {
        let daemon = try DaemonProcess(config: "", passesRoot: false)
        try daemon.rewriteConfig("[Watch]\nRoot=\(daemon.directory)\n[Log]\nLevel=debug\n")
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"v\";\n")
        try daemon.start()
        let connection = try daemon.subscriber()
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"w\";\n")
        _ = try connection.awaitEvent(TableChanged.name)
        _ = try connection.send(Sync())
        let settled = daemon.log.split(separator: "\n").count
        _ = try connection.send(Sync())
        _ = try connection.send(Sync())
        XCTAssertLessThan(daemon.log.split(separator: "\n").count - settled, 10, "the log grows by itself: \(daemon.log.suffix(2000))")
        XCTAssertEqual(daemon.stop(), 0)
    }

    func testOverflowRescansAndTellsSubscribersToResync() throws {
        let daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"before\";\n")
        try daemon.start()
        let connection = try daemon.connect()
        var mirror = Mirror(snapshot: try XCTUnwrap(connection.send(Subscribe(name: "all", snapshot: true)).tables))
        try daemon.shell("mkdir junk")
        _ = try connection.send(Sync())   // now junk/ is watched
        // Stopped, the daemon cannot read its queue: 20,000 new files overflow it.
        daemon.signal(SIGSTOP)
        try daemon.shell("cd junk && seq 1 20000 | xargs touch")
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"after\";\n\"b\" = \"new\";\n")
        try daemon.write("App/fr.lproj/Localizable.strings", "\"a\" = \"apres\";\n")
        daemon.signal(SIGCONT)
        let resync = try connection.awaitEvent(Resync.name, timeout: .seconds(120)) { _ in true }.decode(Resync.self)
        XCTAssertEqual(resync.reason, .overflow)
        // After a resync the subscriber takes a snapshot; it equals the disk.
        mirror = Mirror(snapshot: try connection.send(Snapshot(), timeout: .seconds(60)).tables)
        XCTAssertEqual(mirror, try Mirror(disk: [daemon.root + "/App"]))
        XCTAssertEqual(mirror.tables[Mirror.key(daemon.root + "/App", "en", "Localizable")]?["a"]?.text, "after")
        let status = try connection.send(Status())
        XCTAssertGreaterThanOrEqual(status.counters["overflows"] ?? 0, 1)
        // The limit that bit is named, in the log and in status.
        XCTAssertTrue(status.warnings?.contains { $0.contains("inotify queue overflowed") && $0.contains("fs.inotify.max_queued_events") } == true,
                      "\(status.warnings ?? [])")
        XCTAssertTrue(daemon.log.contains("fs.inotify.max_queued_events"), daemon.log)
        XCTAssertEqual(daemon.stop(), 0)
    }

    func testKilledAndRestartedDaemonAnswersAnOldClockWithAFreshSnapshot() throws {
        let daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"one\";\n")
        try daemon.start()
        var connection = try daemon.connect()
        _ = try connection.send(Subscribe(name: "s"))
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"two\";\n")
        let seen = try connection.awaitEvent(TableChanged.name).decode(TableChanged.self)
        daemon.killHard()
        // Changed while no daemon runs: the old value must not survive.
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"three\";\n")
        try daemon.start()
        connection = try daemon.connect()
        let reply = try connection.send(Subscribe(name: "s", since: seen.clock))
        XCTAssertTrue(reply.fresh, "a clock of another instance cannot be replayed")
        XCTAssertNotEqual(reply.clock.instance, seen.clock.instance)
        let tables = try XCTUnwrap(reply.tables, "a fresh reply to `since` carries the snapshot")
        XCTAssertEqual(tables.first { $0.language == "en" }?.entries["a"]?.text, "three")
        XCTAssertEqual(daemon.stop(), 0)
    }

    func testSinceWithinTheHistoryReplaysWhatWasMissed() throws {
        let daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"one\";\n")
        try daemon.start()
        let first = try daemon.connect()
        let clock = try first.send(Subscribe(name: "s")).clock
        let other = try daemon.connect()
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"two\";\n")
        _ = try other.send(Sync())
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"three\";\n")
        _ = try other.send(Sync())
        let reply = try other.send(Subscribe(name: "again", since: clock))
        XCTAssertFalse(reply.fresh)
        XCTAssertNil(reply.tables)
        let one = try other.awaitEvent(TableChanged.name).decode(TableChanged.self)
        let two = try other.awaitEvent(TableChanged.name).decode(TableChanged.self)
        XCTAssertEqual([one.changed["a"]?.text, two.changed["a"]?.text], ["two", "three"])
        XCTAssertEqual(two.clock, reply.clock)
        XCTAssertEqual(daemon.stop(), 0)
    }

    func testAStuckSubscriberNeverDelaysALiveOneAndIsToldToResync() throws {
        let config = try writeConfig("[Limits]\nClientQueueBytes=8K\n")
        let daemon = try DaemonProcess(extraArguments: ["--config", config])
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"0\";\n")
        try daemon.start()
        let stuck = try daemon.connect()
        _ = try stuck.send(Subscribe(name: "stuck"))
        let live = try daemon.connect()
        _ = try live.send(Subscribe(name: "live"))
        // Far more than the socket's kernel buffer and the 8 KiB queue hold.
        let padding = String(repeating: "x", count: 20_000)
        for round in 1...60 {
            try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"\(round)\";\n\"pad\" = \"\(padding)\(round)\";\n")
            let event = try live.awaitEvent(TableChanged.name).decode(TableChanged.self)
            XCTAssertEqual(event.changed["a"]?.text, "\(round)")
        }
        let status = try live.send(Status())
        let queued = status.clients.first { $0.subscriptions == ["stuck"] }?.queuedBytes ?? -1
        XCTAssertLessThanOrEqual(queued, 8192 + 25_000, "a stuck client's queue stays bounded (its limit and one event)")
        XCTAssertGreaterThan(status.counters["events-dropped"] ?? 0, 0)
        // When it reads again, what it missed is replaced by a resync.
        let resync = try stuck.awaitEvent(Resync.name, timeout: .seconds(30)).decode(Resync.self)
        XCTAssertEqual(resync.reason, .slowConsumer)
        XCTAssertEqual(daemon.stop(), 0)
    }

    func testHostileRequestsGetErrorRepliesAndTheConnectionSurvives() throws {
        let config = try writeConfig("[Limits]\nMaxRequestBytes=4K\n")
        let daemon = try DaemonProcess(extraArguments: ["--config", config])
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"x\";\n")
        try FileManager.default.createDirectory(atPath: daemon.directory + "/secret/fr.lproj", withIntermediateDirectories: true)
        try daemon.shell("ln -s '\(daemon.directory)/secret' escape")
        try daemon.start()
        let connection = try daemon.connect()
        func errorReply(_ line: String) throws -> [String: Any] {
            try connection.write(Array((line + "\n").utf8))
            let reply = try connection.nextReplyLine()
            return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any])
        }
        func code(_ object: [String: Any]) -> String? { (object["error"] as? [String: Any])?["code"] as? String }
        func field(_ object: [String: Any]) -> String? { (object["error"] as? [String: Any])?["field"] as? String }
        XCTAssertEqual(code(try errorReply("{not json")), "malformed")
        XCTAssertEqual(code(try errorReply("[1,2]")), "malformed")
        XCTAssertEqual(code(try errorReply(#"{"id":1,"op":"frobnicate"}"#)), "unknown-op")
        let missing = try errorReply(#"{"id":2,"op":"lookup","bundle":"/x"}"#)
        XCTAssertEqual(code(missing), "missing-field")
        XCTAssertEqual(field(missing), "key")
        let wrongType = try errorReply(#"{"id":3,"op":"subscribe","name":"s","languages":["en",7]}"#)
        XCTAssertEqual(code(wrongType), "invalid-field")
        XCTAssertEqual(field(wrongType), "languages[1]")
        XCTAssertEqual(code(try errorReply(#"{"id":4,"op":"snapshot","bundle":"\#(daemon.root)/escape"}"#)), "outside-roots")
        XCTAssertEqual(code(try errorReply(#"{"id":5,"op":"snapshot","bundle":"\#(daemon.root)/App/../.."}"#)), "outside-roots")
        XCTAssertEqual(code(try errorReply(#"{"id":6,"op":"snapshot","bundle":"\#(daemon.root)/nowhere/../../x"}"#)), "outside-roots")
        XCTAssertEqual(code(try errorReply(#"{"id":7,"op":"hello","client":"t","protocol":99}"#)), "unsupported-protocol")
        XCTAssertEqual(code(try errorReply(#"{"id":8,"op":"select-language","app":"../etc","language":"fr"}"#)), "invalid-field")
        XCTAssertEqual(code(try errorReply(#"{"id":9,"op":"select-language","app":"a","language":"not a tag!"}"#)), "invalid-field")
        let long = #"{"id":10,"op":"status","pad":""# + String(repeating: "a", count: 10_000) + #""}"#
        XCTAssertEqual(code(try errorReply(long)), "line-too-long")
        // The same connection still works.
        let lookup = try connection.send(Lookup(bundle: daemon.root + "/App", key: "a", languages: ["en"]))
        XCTAssertEqual(lookup.text, "x")
        XCTAssertEqual(daemon.stop(), 0)
    }

    func testClientsBeyondTheLimitAreToldTheDaemonIsBusy() throws {
        let config = try writeConfig("[Limits]\nMaxClients=2\nReservedClients=0\n")
        let daemon = try DaemonProcess(extraArguments: ["--config", config])
        try daemon.start()
        let first = try daemon.connect(), second = try daemon.connect()
        _ = try first.send(Status())
        _ = try second.send(Status())
        let third = try daemon.connect()
        XCTAssertThrowsError(try third.send(Status())) { error in
            guard case DaemonConnection.Failure.refused(let refusal) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(refusal.code, .busy)
        }
        // The others are unharmed.
        XCTAssertEqual(try first.send(Status()).clients.count, 2)
        withExtendedLifetime(second) {}
        XCTAssertEqual(daemon.stop(), 0)
    }

    func testSelectedLanguageIsPushedToTheAppAndPersisted() throws {
        let daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"x\";\n")
        try daemon.start()
        let app = try daemon.connect()
        _ = try app.send(Hello(client: "demo", app: "com.example.demo"))
        _ = try app.send(Subscribe(name: "ui", bundle: daemon.root + "/App"))
        let otherApp = try daemon.connect()
        _ = try otherApp.send(Hello(client: "other", app: "com.example.other"))
        _ = try otherApp.send(Subscribe(name: "ui"))
        let tool = try daemon.connect()
        let reply = try tool.send(SelectLanguage(app: "com.example.demo", language: "zh-Hant"))
        XCTAssertEqual(reply.language, "zh-Hant")
        let event = try app.awaitEvent(LanguageSelected.name).decode(LanguageSelected.self)
        XCTAssertEqual(event.language, "zh-Hant")
        XCTAssertEqual(event.clock, reply.clock)
        _ = try otherApp.send(Sync())
        XCTAssertThrowsError(try otherApp.nextEvent(timeout: .milliseconds(1)), "another app hears nothing")
        XCTAssertEqual(try String(contentsOfFile: daemon.state + "/languages/com.example.demo", encoding: .utf8), "zh-Hant\n")
        XCTAssertEqual(daemon.stop(), 0)
        try daemon.start()
        let again = try daemon.connect()
        XCTAssertEqual(try again.send(Hello(client: "demo", app: "com.example.demo")).language, "zh-Hant", "persisted across restarts")
        _ = try again.send(SelectLanguage(app: "com.example.demo", language: "system"))
        XCTAssertNil(try again.send(Hello(client: "demo", app: "com.example.demo")).language)
        XCTAssertFalse(FileManager.default.fileExists(atPath: daemon.state + "/languages/com.example.demo"))
        XCTAssertEqual(daemon.stop(), 0)
    }

    func testSigtermRemovesTheSocketAndAStaleSocketIsReplacedButALiveOneIsNot() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        // A second daemon on the same socket refuses to steal it.
        let second = try runDaemon(["--foreground", "--root", daemon.root, "--socket", daemon.socket, "--state", daemon.state])
        XCTAssertEqual(second.status, 1)
        XCTAssertTrue(second.stderr.contains("another lprojd is already listening on \(daemon.socket)"), second.stderr)
        XCTAssertEqual(daemon.stop(), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: daemon.socket), "SIGTERM removes the socket")
        // kill -9 leaves the socket behind; the next start replaces it.
        try daemon.start()
        daemon.killHard()
        XCTAssertTrue(FileManager.default.fileExists(atPath: daemon.socket))
        try daemon.start()
        _ = try daemon.connect().send(Status())
        XCTAssertEqual(daemon.stop(), 0)
    }

    func testCheckConfigPrintsTheEffectiveConfigurationOrNamesTheBadKey() throws {
        let root = NSTemporaryDirectory() + "/lprojd-root-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        scratch.append(root)
        let good = try writeConfig("[Watch]\nRoot=\(root)\nExclude=.git *.bak\n\n[Limits]\nMaxClients=10\nClientQueueBytes=2M\n")
        let result = try runDaemon(["--check-config", "--config", good, "--socket", "/tmp/x.sock", "--state", root + "/state"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("Root=\(root)\nExclude=.git\nExclude=*.bak"), result.stdout)
        XCTAssertTrue(result.stdout.contains("MaxClients=10"))
        XCTAssertTrue(result.stdout.contains("ClientQueueBytes=2097152"))
        XCTAssertTrue(result.stdout.contains("Path=/tmp/x.sock"), "flags override the file")
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/lprojd.conf").path
        // (Its Root= is an example path: checked with a root that exists.)
        let shippedResult = try runDaemon(["--check-config", "--config", shipped, "--root", root, "--socket", "/tmp/x.sock", "--state", root])
        XCTAssertEqual(shippedResult.status, 0, "config/lprojd.conf must stay valid: \(shippedResult.stderr)")
        XCTAssertTrue(shippedResult.stdout.contains("Exclude=node_modules\n"), shippedResult.stdout)
        let bad = try writeConfig("[Watch]\nRoot=/srv/a\n\n[Limits]\nClientQueueBytes=lots\n")
        let failed = try runDaemon(["--check-config", "--config", bad])
        XCTAssertEqual(failed.status, 1)
        XCTAssertEqual(failed.stderr, "lprojd: \(bad):5: [Limits] ClientQueueBytes: must be from 4K to 1G (a number of bytes, or with K, M "
                       + "or G: 512K, 16M), not 'lots'\n")
        let unknown = try writeConfig("[Watch]\nRoot=/srv/a\nRoots=/srv/b\n")
        XCTAssertEqual(try runDaemon(["--check-config", "--config", unknown]).stderr, "lprojd: \(unknown):3: [Watch] Roots: unknown key\n")
        let garbage = try writeConfig("[Watch]\nRoot=/srv/a\nthis is not ini\n")
        XCTAssertTrue(try runDaemon(["--check-config", "--config", garbage]).stderr.contains("\(garbage):3: not an INI line"))
        // Poll= per root, by bytes (Café in NFC and in NFD are two roots), and a Poll= root that is no root is refused.
        let nfc = root + "/Caf\u{E9}", nfd = root + "/Cafe\u{301}"
        for twin in [nfc, nfd] { try FileManager.default.createDirectory(atPath: twin, withIntermediateDirectories: true) }
        let twins = try writeConfig("[Watch]\nRoot=\(nfc)\nRoot=\(nfd)\nPoll=on \(nfc)\nPoll=off \(nfd)\n")
        let polled = try runDaemon(["--check-config", "--config", twins, "--socket", "/tmp/x.sock", "--state", root + "/state"])
        XCTAssertEqual(polled.status, 0, polled.stderr)
        XCTAssertTrue(polled.stdout.contains("Poll=auto\nPoll=on \(nfc)\nPoll=off \(nfd)\n"), polled.stdout)
        let stray = try writeConfig("[Watch]\nRoot=\(nfc)\nPoll=on /srv/elsewhere\n")
        let strayResult = try runDaemon(["--check-config", "--config", stray, "--socket", "/tmp/x.sock", "--state", root + "/state"])
        XCTAssertEqual(strayResult.status, 1)
        XCTAssertTrue(strayResult.stderr.contains("[Watch] Poll: /srv/elsewhere is not a root"), strayResult.stderr)
        // What start-up would refuse, --check-config refuses too, naming the key.
        let missing = try writeConfig("[Watch]\nRoot=\(root)/missing\n[State]\nDirectory=\(good)/state\n")
        let refused = try runDaemon(["--check-config", "--config", missing, "--socket", good + "/lprojd.sock"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("[Watch] Root: \(root)/missing: No such file or directory"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("[State] Directory: \(good)/state: \(good) is not a directory"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("[Socket] Path: \(good)/lprojd.sock: \(good) is not a directory"), refused.stderr)
        let noRoot = try runDaemon(["--foreground", "--socket", "/tmp/lpd-none.sock"])
        XCTAssertEqual(noRoot.status, 1)
        XCTAssertTrue(noRoot.stderr.contains("no root to watch"), noRoot.stderr)
        XCTAssertEqual(try runDaemon(["--bogus"]).status, 2)
    }

    // MARK: helpers

    private var scratch: [String] = []

    override func tearDown() {
        for path in scratch { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Every number key, given a value past its range, one that overflows 64 bits or one that is no number: one line naming
    /// the file, the line and the key, exit 1, never a crash (a duration of 9223372036854776s once killed the daemon).
    func testEveryNumberOutOfRangeIsOneMessageWithItsLine() throws {
        let root = NSTemporaryDirectory() + "/lprojd-root-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        scratch.append(root)
        let sections = ["RemovalGrace": "Watch", "QuietPeriod": "Watch", "PollInterval": "Watch", "MaxApps": "State"]
        for (key, range) in ValueRange.keys {
            let section = sections[key] ?? "Limits"
            let unit = switch range.unit { case .milliseconds: "s"; case .bytes: "G"; case .count: "" }
            for value in ["9223372036854776\(unit)", "99999999999999999999999\(unit)", "-1\(unit)", "1e3", " ", "0x10",
                          "\(range.maximum + 1)\(range.unit == .milliseconds ? "ms" : "")"] {
                let config = try writeConfig("[Watch]\nRoot=\(root)\n\n[\(section)]\n\(key)=\(value)\n")
                let result = try runDaemon(["--check-config", "--config", config, "--socket", "/tmp/x.sock", "--state", root + "/state"])
                XCTAssertEqual(result.status, 1, "\(key)=\(value): \(result.stderr)")
                let lines = result.stderr.split(separator: "\n")
                XCTAssertEqual(lines.count, 1, "\(key)=\(value): \(result.stderr)")
                XCTAssertTrue(result.stderr.hasPrefix("lprojd: \(config):5: [\(section)] \(key): must be \(range.description)"),
                              "\(key)=\(value): \(result.stderr)")
            }
            // Both ends are taken.
            for bound in [range.minimum, range.maximum] {
                let value = range.unit == .milliseconds ? "\(bound)ms" : "\(bound)"
                let config = try writeConfig("[Watch]\nRoot=\(root)\n\n[\(section)]\n\(key)=\(value)\n")
                let result = try runDaemon(["--check-config", "--config", config, "--socket", "/tmp/x.sock", "--state", root + "/state"])
                XCTAssertEqual(result.status, 0, "\(key)=\(value): \(result.stderr)")
            }
        }
    }

    /// MaxClients= that the open-file limit cannot hold is warned of (the daemon still starts).
    func testCheckConfigWarnsOfMaxClientsAboveTheOpenFileLimit() throws {
        let root = NSTemporaryDirectory() + "/lprojd-root-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        scratch.append(root)
        let config = try writeConfig("[Watch]\nRoot=\(root)\n\n[Limits]\nMaxClients=1000\n")
        let result = try runProgram("/bin/sh", ["-c", "ulimit -n 64 && exec \(binaryDirectory().path)/lprojd --check-config --config \(config) "
                                                + "--socket /tmp/x.sock --state \(root)/state"], separateErrors: true)
        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertTrue(result.errors.contains("warning: \(config): [Limits] MaxClients: 1000 clients (+4 reserved) and 1024 SharedImages need about 2156 file descriptors, "
                                             + "but this process may open 64 (RLIMIT_NOFILE"), result.errors)
        let fine = try runProgram("/bin/sh", ["-c", "ulimit -n 4096 && exec \(binaryDirectory().path)/lprojd --check-config --config \(config) "
                                              + "--socket /tmp/x.sock --state \(root)/state"], separateErrors: true)
        XCTAssertEqual(fine.errors, "")
    }

    private func writeConfig(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "/lprojd-test-\(UUID().uuidString).conf"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        scratch.append(path)
        return path
    }

    private func runDaemon(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = binaryDirectory().appendingPathComponent("lprojd")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "NOTIFY_SOCKET")
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile(), stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }
}

/// Socket activation, as systemd does it (`systemd-socket-activate` passes
/// the listening socket the way lprojd.socket does).
final class SocketActivationTests: XCTestCase {
    func testTheDaemonServesOnTheSocketSystemdPassesAndLeavesItThere() throws {
        let daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"x\";\n")
        let process = try daemon.startSocketActivated(["--foreground", "--root", daemon.root, "--state", daemon.state])
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        let status = try daemon.connect().send(Status(), timeout: .seconds(30))
        XCTAssertEqual(status.roots, [URL(fileURLWithPath: daemon.root).resolvingSymlinksInPath().path])
        XCTAssertEqual(status.tables, 1)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: daemon.socket), "a socket systemd made is systemd's to remove")
    }
}

/// "Idle means idle": no timers, no polling.
final class IdleTests: XCTestCase {
    func testAnIdleDaemonNeverWakes() throws {
        let daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"x\";\n")
        try daemon.start()
        let connection = try daemon.connect()
        _ = try connection.send(Subscribe(name: "s"))
        _ = try connection.send(Sync())
        func switches() throws -> Int {
            let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/task")
            return try tasks.reduce(0) { total, task in
                let status = try String(contentsOfFile: "/proc/\(daemon.pid)/task/\(task)/status", encoding: .utf8)
                return total + status.split(separator: "\n").filter { $0.contains("ctxt_switches") }
                    .compactMap { Int($0.split(separator: "\t").last ?? "") }.reduce(0, +)
            }
        }
        // Measuring that the daemon does nothing takes time by definition: a
        // second for its threads to finish what the sync set off and block,
        // then a window of two in which nothing may happen.
        Thread.sleep(forTimeInterval: 1)
        let before = try switches()
        Thread.sleep(forTimeInterval: 2)
        XCTAssertEqual(try switches(), before, "an idle daemon (with a subscriber) woke up")
        XCTAssertEqual(daemon.stop(), 0)
    }
}
