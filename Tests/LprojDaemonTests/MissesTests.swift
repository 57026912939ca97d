import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import LprojTables
import LprojTestSupport
import XCTest
@testable import LprojDaemon

/// Misses from running apps: reported by LiveBundles, kept by the daemon
/// within its bound, listed by `lprojctl misses`, gone when the key is added.
final class MissesTests: XCTestCase {
    // MARK: - The core, in this process

    func testReportsAreKeptPerAppBundleLanguageAndKeyAndResolvedByTheTable() throws {
        let core = try CoreHarness(populate: { root in
            try FileManager.default.createDirectory(atPath: root + "/App/fr.lproj", withIntermediateDirectories: true)
            try Data("\"a\" = \"A\";\n".utf8).write(to: URL(fileURLWithPath: root + "/App/fr.lproj/Localizable.strings"))
        })
        let app = try core.connect()
        _ = try app.send(Hello(client: "tests", app: "com.example.shop"))
        let tool = try core.connect()
        _ = try tool.send(Hello(client: "tool"))
        _ = try tool.send(Subscribe(name: "misses", misses: true))
        let bundle = core.path("App")
        let report = ReportMisses(bundle: bundle, misses: [
            MissReport(table: "Localizable", key: "checkout", language: "fr", languages: ["fr", "en"], answer: .key, count: 3),
            MissReport(table: "Localizable", key: "cart", language: "fr", languages: ["fr", "en"], answer: .default, count: 1),
            // Already in the table the daemon serves: the report came from an older state, not a miss.
            MissReport(table: "Localizable", key: "a", language: "fr", languages: ["fr"], answer: .key, count: 1),
        ])
        XCTAssertEqual(try app.send(report).recording, true)
        XCTAssertEqual(try app.send(ReportMisses(bundle: bundle, misses: [report.misses[0]])).recording, true)
        let listed = try tool.send(Misses(bundle: bundle))
        XCTAssertEqual(listed.misses.map(\.key), ["checkout", "cart"], "most met first")
        XCTAssertEqual(listed.misses.first?.count, 6)
        XCTAssertEqual(listed.misses.first?.app, "com.example.shop")
        XCTAssertEqual(listed.misses.first?.languages, ["fr", "en"])
        XCTAssertEqual(try tool.send(Misses(language: "de")).misses, [])
        XCTAssertEqual(try tool.send(Misses(app: "com.example.shop", limit: 1)).misses.map(\.key), ["checkout"])
        let first = try tool.nextEvent()
        XCTAssertEqual(first.name, MissesChanged.name)
        XCTAssertEqual(try first.decode(MissesChanged.self).misses.map(\.key).sorted(), ["cart", "checkout"])
        _ = try tool.nextEvent()

        // The key is added: it leaves the list, and listeners hear so.
        try Data("\"a\" = \"A\";\n\"checkout\" = \"Payer\";\n".utf8).write(to: URL(fileURLWithPath: bundle + "/fr.lproj/Localizable.strings"))
        _ = try tool.send(Sync())
        // The sync's reply came after the events of the change it waited for.
        var resolved: [String] = []
        while let event = try? tool.nextEvent() {
            if event.name == MissesChanged.name { resolved += try event.decode(MissesChanged.self).resolved.map(\.key) }
        }
        XCTAssertEqual(resolved, ["checkout"])
        XCTAssertEqual(try tool.send(Misses()).misses.map(\.key), ["cart"])
    }

    func testBadReportsNameTheField() throws {
        let core = try CoreHarness(populate: { root in try FileManager.default.createDirectory(atPath: root + "/App/en.lproj", withIntermediateDirectories: true) })
        let connection = try core.connect()
        let long = String(repeating: "k", count: MissBook.maximumKeyBytes + 1)
        for (report, field) in [
            (ReportMisses(bundle: core.path("App"), misses: [MissReport(table: "", key: "k", language: "fr", languages: [], answer: .key, count: 1)]),
             "misses[0].table"),
            (ReportMisses(bundle: core.path("App"), misses: [MissReport(table: "T", key: long, language: "fr", languages: [], answer: .key, count: 1)]),
             "misses[0].key"),
            (ReportMisses(bundle: "/etc", misses: []), "bundle"),
        ] {
            XCTAssertThrowsError(try connection.send(report)) { error in
                guard case DaemonConnection.Failure.refused(let refusal) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(refusal.field, field)
            }
        }
    }

    func testAMillionDistinctMissesStayWithinTheBound() throws {
        let book = MissBook(capacity: 10_000)
        var generator = SplitMix64(seed: 7)
        for batch in 0..<100 {
            let misses = (0..<10_000).map { index in
                MissReport(table: "Localizable", key: "k\(batch)-\(index)-\(generator.next())", language: "fr", languages: ["fr"], answer: .key, count: 1)
            }
            _ = book.report(user: 1000, app: "flood", bundle: "/b", misses: misses, dropped: 0, at: Date()) { _, _, _ in false }
        }
        XCTAssertEqual(book.count, 10_000)
        XCTAssertEqual(book.dropped, 990_000)
        book.setCapacity(10)
        XCTAssertEqual(book.count, 10)
        let off = MissBook(capacity: 0)
        _ = off.report(user: 1000, app: nil, bundle: "/b", misses: [MissReport(table: "T", key: "k", language: nil, languages: [], answer: .key, count: 2)],
                       dropped: 0, at: Date()) { _, _, _ in false }
        XCTAssertEqual(off.count, 0)
    }

    // MARK: - Attacks, in this process

    func testCountsNearTwoToTheSixtyFourSaturateInsteadOfTrapping() throws {
        let book = MissBook(capacity: 10)
        let huge = Int.max
        let miss = MissReport(table: "T", key: "k", language: "fr", languages: ["fr"], answer: .key, count: huge)
        for _ in 0..<3 {
            _ = book.report(user: 1000, app: nil, bundle: "/b", misses: [miss, miss], dropped: huge, at: Date()) { _, _, _ in false }
        }
        XCTAssertEqual(book.dropped, UInt64.max)
        XCTAssertEqual(book.records(readBy: nil, bundle: nil, language: nil, app: nil).first?.count, UInt64.max)
        // Misses=0: every count goes to dropped, which saturates too.
        let off = MissBook(capacity: 0)
        for _ in 0..<3 {
            _ = off.report(user: 1000, app: nil, bundle: "/b", misses: [miss, miss], dropped: huge, at: Date()) { _, _, _ in false }
        }
        XCTAssertEqual(off.dropped, UInt64.max)
    }

    func testCountsBelowOneAndNegativeDroppedAreRefusedByField() throws {
        let core = try CoreHarness(populate: { root in try FileManager.default.createDirectory(atPath: root + "/App/en.lproj", withIntermediateDirectories: true) })
        let connection = try core.connect(uid: 1000)
        let bundle = core.path("App")
        let zero = MissReport(table: "T", key: "k", language: "fr", languages: [], answer: .key, count: 0)
        XCTAssertEqual(refusalOf(ReportMisses(bundle: bundle, misses: [zero]), on: connection)?.field, "misses[0].count")
        XCTAssertEqual(refusalOf(ReportMisses(bundle: bundle, misses: [], dropped: -1), on: connection)?.field, "dropped")
        // The largest numbers JSON carries for them are taken, and the core goes on.
        let line = "{\"id\":9,\"op\":\"report-misses\",\"bundle\":\"\(bundle)\",\"dropped\":9223372036854775807,"
            + "\"misses\":[{\"table\":\"T\",\"key\":\"k\",\"language\":\"fr\",\"languages\":[],\"answer\":\"key\",\"count\":9223372036854775807}]}\n"
        for _ in 0..<3 { connection.write(Array(line.utf8)) }
        let listed = try connection.send(Misses())
        XCTAssertEqual(listed.dropped, UInt64.max)
        XCTAssertEqual(listed.misses.first?.count, UInt64.max)
    }

    func testEachUserReadsItsOwnMissesAndAFloodLeavesOthersTheirShare() throws {
        let core = try CoreHarness({ $0.limits.maximumMisses = 100 }, populate: { root in
            try FileManager.default.createDirectory(atPath: root + "/App/en.lproj", withIntermediateDirectories: true)
        })
        let bundle = core.path("App")
        func misses(_ prefix: String, _ count: Int) -> [MissReport] {
            (0..<count).map { MissReport(table: "T", key: "\(prefix)\($0)", language: "fr", languages: ["fr"], answer: .key, count: 1) }
        }
        let flooder = try core.connect(uid: 1001)
        // It says it is the victim's app: the record is still its own user's.
        _ = try flooder.send(Hello(client: "x", app: "com.example.victim"))
        let victim = try core.connect(uid: 1002)
        _ = try victim.send(Hello(client: "y", app: "com.example.victim"))
        let victimListens = try core.connect(uid: 1002)
        _ = try victimListens.send(Subscribe(name: "m", misses: true))
        let rootListens = try core.connect(uid: 0)
        _ = try rootListens.send(Subscribe(name: "m", misses: true))
        _ = try flooder.send(ReportMisses(bundle: bundle, misses: misses("flood", 500)))
        XCTAssertEqual(core.core.misses.count, 100, "the flood fills the book")
        _ = try victim.send(ReportMisses(bundle: bundle, misses: misses("real", 10)))
        XCTAssertEqual(core.core.misses.count(of: 1002), 10, "the victim's real misses are kept: its share is 50")
        XCTAssertEqual(core.core.misses.count(of: 1001), 90)
        // More of the flood cannot take the victim's places back: it holds more than its share.
        _ = try flooder.send(ReportMisses(bundle: bundle, misses: misses("again", 50)))
        XCTAssertEqual(core.core.misses.count(of: 1002), 10)

        XCTAssertEqual(Set(try victim.send(Misses()).misses.map(\.key)), Set((0..<10).map { "real\($0)" }))
        XCTAssertEqual(try victim.send(Misses()).misses.compactMap(\.user), Array(repeating: 1002, count: 10))
        XCTAssertTrue(try flooder.send(Misses(app: "com.example.victim")).misses.allSatisfy { $0.user == 1001 })
        XCTAssertEqual(try rootListens.send(Misses()).misses.count, 100, "root reads every user's")
        // Events: the victim's listener hears only the victim's records; root hears both.
        var heard: [UInt32] = []
        while let event = try? victimListens.nextEvent() {
            heard += try event.decode(MissesChanged.self).misses.compactMap(\.user)
        }
        XCTAssertEqual(Set(heard), [1002])
        var rootHeard = Set<UInt32>()
        while let event = try? rootListens.nextEvent() {
            rootHeard.formUnion(try event.decode(MissesChanged.self).misses.compactMap(\.user))
        }
        XCTAssertEqual(rootHeard, [1001, 1002])
    }

    func testAMissesReplyFitsTheConnectionsQueueAndCountsWhatItLeftOut() throws {
        let core = try CoreHarness({ $0.limits.clientQueueBytes = 256 << 10 }, populate: { root in
            try FileManager.default.createDirectory(atPath: root + "/App/en.lproj", withIntermediateDirectories: true)
        })
        let bundle = core.path("App")
        let reporter = try core.connect(uid: 1001)
        for batch in 0..<10 {
            // Keys of 4 KB made of control characters: each takes six bytes escaped.
            let misses = (0..<20).map { index in
                MissReport(table: "T", key: "\(batch)-\(index)" + String(repeating: "\u{1}", count: 4000), language: "fr",
                           languages: Array(repeating: "fr", count: 16), answer: .key, count: 1)
            }
            _ = try reporter.send(ReportMisses(bundle: bundle, misses: misses))
        }
        let reader = try core.connect(uid: 1001)
        let reply = try reader.send(Misses())
        XCTAssertGreaterThan(reply.misses.count, 0)
        XCTAssertEqual(reply.misses.count + (reply.more ?? 0), 200)
        let line = try Wire.reply(reply, to: .number(1))
        XCTAssertLessThanOrEqual(line.count, 128 << 10, "at most half the queue")
        XCTAssertEqual(try reader.send(Misses(limit: 3)).more, 197)
    }

    func testAReplyLargerThanTheQueueIsRefusedAndASubscriptionItCarriedIsNotMade() throws {
        let core = try CoreHarness({ $0.limits.clientQueueBytes = 16 << 10 }, populate: { root in
            try FileManager.default.createDirectory(atPath: root + "/App/en.lproj", withIntermediateDirectories: true)
            let entries = (0..<2000).map { "\"key\($0)\" = \"value \($0)\";" }.joined(separator: "\n")
            try Data(entries.utf8).write(to: URL(fileURLWithPath: root + "/App/en.lproj/Localizable.strings"))
        })
        let connection = try core.connect(uid: 1001)
        let refusal = refusalOf(Snapshot(), on: connection)
        XCTAssertEqual(refusal?.code, .limit)
        XCTAssertTrue(refusal?.message.contains("ClientQueueBytes") == true, "\(String(describing: refusal))")
        XCTAssertEqual(refusalOf(Subscribe(name: "s", snapshot: true), on: connection)?.code, .limit)
        XCTAssertNil(connection.session.subscriptions["s"])
        XCTAssertNotNil(try? connection.send(Subscribe(name: "s")), "the name is free: nothing was made")
    }

    func testOneUsersConnectionsTogetherStopAtUserQueueBytes() throws {
        let core = try CoreHarness({ $0.limits.clientQueueBytes = 64 << 10; $0.limits.userQueueBytes = 256 << 10 }, populate: { root in
            try FileManager.default.createDirectory(atPath: root + "/App/en.lproj", withIntermediateDirectories: true)
        })
        // Each connection subscribes up to half its own queue; together they reach the user's bound.
        var refused: ProtocolError?
        var connections: [CoreConnection] = []
        outer: for _ in 0..<64 {
            let connection = try core.connect(uid: 1001)
            connections.append(connection)
            for index in 0..<64 {
                let names = (0..<40).map { "table-\(index)-\($0)-" + String(repeating: "t", count: 100) }
                if let problem = refusalOf(Subscribe(name: "s\(index)", tables: names), on: connection) {
                    if problem.message.contains("UserQueueBytes") { refused = problem; break outer }
                    break
                }
            }
        }
        XCTAssertNotNil(refused, "the user's bound refused a subscription")
        let share = try XCTUnwrap(connections.first?.session.share)
        XCTAssertLessThanOrEqual(share.bytes, 256 << 10)
        XCTAssertTrue(connections.allSatisfy { $0.session.share === share })
        // Another user, and root, are not held to it.
        XCTAssertNotNil(try? core.connect(uid: 1002).send(Subscribe(name: "s", tables: ["x"])))
        XCTAssertNil(try core.connect(uid: 0).session.share)
        // The connections gone, their bytes go with them.
        for connection in connections { core.core.close(connection.session) }
        XCTAssertEqual(share.bytes, 0)
    }

    // MARK: - The built daemon

    func testAConsumersMissesShowInLprojctlAndVanishWhenTheKeyIsAdded() throws {
        let daemon = try DaemonProcess()
        defer { XCTAssertEqual(daemon.stop(), 0, daemon.log) }
        try daemon.write("App/en.lproj/Localizable.strings", "\"home\" = \"Home\";\n\"cart\" = \"Cart\";\n")
        try daemon.write("App/fr.lproj/Localizable.strings", "\"home\" = \"Accueil\";\n")
        try daemon.start()
        let listener = try daemon.subscriber("misses")
        _ = try listener.send(Subscribe(name: "only-misses", misses: true))
        var options = LiveBundle.Options()
        options.socketPath = daemon.socket
        options.developmentFallback = true
        options.environment = ["LANG": "fr_FR.UTF-8", "XDG_CONFIG_HOME": daemon.directory + "/config"]
        let bundle = try LiveBundle(path: daemon.root + "/App", app: "com.example.shop", options: options)
        XCTAssertEqual(bundle.localizedString(forKey: "cart", value: nil, table: nil), "Cart")
        XCTAssertEqual(bundle.localizedString(forKey: "checkout", value: "Pay", table: nil), "Pay")
        XCTAssertEqual(bundle.localizedString(forKey: "checkout", value: "Pay", table: nil), "Pay")
        let reported = try listener.awaitEvent(MissesChanged.name, timeout: .seconds(30)) { _ in true }
        var keys = Set(try reported.decode(MissesChanged.self).misses.map(\.key))
        while keys != ["cart", "checkout"] {
            keys.formUnion(try listener.awaitEvent(MissesChanged.name, timeout: .seconds(30)).decode(MissesChanged.self).misses.map(\.key))
        }
        let listed = try runLprojctl(["misses", "--bundle", daemon.root + "/App", "--socket", daemon.socket])
        XCTAssertEqual(listed.status, 0)
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, daemon.root + "/App")
        XCTAssertTrue(lines[1].hasPrefix("  2  fr  Localizable  \"checkout\"  → default      com.example.shop  "), listed.stdout)
        XCTAssertTrue(lines[2].hasPrefix("  1  fr  Localizable  \"cart\"      → development  com.example.shop  "), listed.stdout)

        // A translator adds the key: it leaves the list.
        let set = try runLprojctl(["set", "checkout", "Payer", "--bundle", daemon.root + "/App", "--language", "fr"])
        XCTAssertEqual(set.status, 0, set.stderr)
        let resolved = try listener.awaitEvent(MissesChanged.name, timeout: .seconds(30)) { event in
            ((try? event.decode(MissesChanged.self))?.resolved.map(\.key) ?? []) == ["checkout"]
        }
        XCTAssertEqual(resolved.subscription, "only-misses")
        let json = try runLprojctl(["misses", "--json", "--socket", daemon.socket])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((object["misses"] as? [[String: Any]])?.compactMap { $0["key"] as? String }, ["cart"])
        XCTAssertEqual(object["capacity"] as? Int, 10_000)
        // Coverage counts what apps missed, per localization and table.
        let coverage = try runLprojctl(["coverage", daemon.root + "/App", "--json", "--socket", daemon.socket])
        let tables = try XCTUnwrap(((JSONSerialization.jsonObject(with: Data(coverage.stdout.utf8)) as? [String: Any])?["bundles"]
            as? [[String: Any]])?.first?["tables"] as? [[String: Any]])
        let french = try XCTUnwrap(tables.first { $0["language"] as? String == "fr" })
        XCTAssertEqual(french["missedAtRuntime"] as? Int, 1)
        XCTAssertEqual(french["missing"] as? Int, 1, "cart")
    }

    func testAFloodOfDistinctMissesCannotGrowTheDaemonPastItsBound() throws {
        let daemon = try DaemonProcess(config: "[Limits]\nMisses=1000\n")
        defer { XCTAssertEqual(daemon.stop(), 0, daemon.log) }
        try daemon.write("App/en.lproj/Localizable.strings", "\"home\" = \"Home\";\n")
        try daemon.start()
        let connection = try daemon.connect()
        _ = try connection.send(Hello(client: "flood", app: "com.example.flood"))
        let before = try daemon.residentBytes()
        for batch in 0..<100 {
            let misses = (0..<1_000).map { index in
                MissReport(table: "Localizable", key: "flood-\(batch)-\(index)-" + String(repeating: "x", count: 200), language: "en",
                           languages: ["en"], answer: .key, count: 1)
            }
            _ = try connection.send(ReportMisses(bundle: daemon.root + "/App", misses: misses))
        }
        let reply = try connection.send(Misses())
        XCTAssertEqual(reply.misses.count, 1_000)
        XCTAssertEqual(reply.dropped, 99_000)
        let grown = try daemon.residentBytes() - before
        // 100,000 distinct keys of 200+ bytes came in; 1,000 are kept.
        XCTAssertLessThan(grown, 32 << 20, "the daemon grew \(grown >> 20) MiB")
    }

    func testReportsWithCountsOfTwoToTheSixtyThreeLeaveTheDaemonServing() throws {
        let daemon = try DaemonProcess(config: "[Limits]\nMisses=0\n")
        try daemon.write("App/en.lproj/Localizable.strings", "\"home\" = \"Home\";\n")
        try daemon.start()
        // What an attacker writes by hand: three reports whose counters would pass 2^64 (trapped: SIGILL, before).
        let script = """
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
        big = 9223372036854775807
        miss = {"table": "Localizable", "key": "k", "language": "en", "languages": [], "answer": "key", "count": big}
        for i in range(3):
            s.sendall((json.dumps({"id": i, "op": "report-misses", "bundle": sys.argv[2], "dropped": big, "misses": [miss, miss]}) + "\\n").encode())
        data = b""
        while data.count(b"\\n") < 3:
            chunk = s.recv(65536)
            if not chunk: sys.exit(1)
            data += chunk
        """
        try daemon.shell("python3 -c '\(script)' \(daemon.socket) \(daemon.root)/App")
        let reply = try daemon.connect().send(Misses())
        XCTAssertEqual(reply.dropped, UInt64.max)
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    private func runLprojctl(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = binaryDirectory().appendingPathComponent("lprojctl")
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }
}

/// The error a request got on a core's session, or nil when it was answered.
func refusalOf<R: Request>(_ request: R, on connection: CoreConnection, file: StaticString = #filePath, line: UInt = #line) -> ProtocolError? {
    do {
        _ = try connection.send(request)
        return nil
    } catch {
        guard case DaemonConnection.Failure.refused(let refusal) = error else {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
        return refusal
    }
}
