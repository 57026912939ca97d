import Foundation
import LprojClient
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
            _ = book.report(app: "flood", bundle: "/b", misses: misses, dropped: 0, at: Date()) { _, _, _ in false }
        }
        XCTAssertEqual(book.count, 10_000)
        XCTAssertEqual(book.dropped, 990_000)
        book.setCapacity(10)
        XCTAssertEqual(book.count, 10)
        let off = MissBook(capacity: 0)
        _ = off.report(app: nil, bundle: "/b", misses: [MissReport(table: "T", key: "k", language: nil, languages: [], answer: .key, count: 2)],
                       dropped: 0, at: Date()) { _, _, _ in false }
        XCTAssertEqual(off.count, 0)
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
