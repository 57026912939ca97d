import Foundation
@testable import LprojBundles
import LprojProcessTesting
import LprojProtocol
import LprojTables
import LprojTestSupport
import XCTest

/// The daemon runs `lprojctl check`'s rules on every change: a subscriber
/// that asks for diagnostics gets each bundle's set whenever it changes
/// (the current one first), `list` counts them, and a subscriber that did
/// not ask never hears of them.
final class DiagnosticsEventTests: XCTestCase {
    func testASaveThatBreaksAFormatIsReportedAndItsFixClearsIt() throws {
        let daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"greeting\" = \"Hello %@\";\n\"count\" = \"%d items\";\n")
        try daemon.write("App/de.lproj/Localizable.strings", "\"greeting\" = \"Hallo %@\";\n\"count\" = \"%d Dinge\";\n")
        try daemon.write("Other/en.lproj/Localizable.strings", "\"k\" = \"v\";\n")
        try daemon.write("Other/fr.lproj/Localizable.strings", "\"extra\" = \"en trop\";\n")
        try daemon.start()
        let connection = try daemon.subscriber("checks", diagnostics: true)
        let plain = try daemon.connect()
        _ = try plain.send(Hello(client: "plain"))
        _ = try plain.send(Subscribe(name: "tables"))
        // The current set of each bundle that has problems, right after the reply.
        let current = try connection.awaitEvent(Diagnostics.name).decode(Diagnostics.self)
        XCTAssertEqual(current.bundle, daemon.path("Other"))
        XCTAssertEqual(Set(current.diagnostics.map(\.message)), [#""k" is not translated into fr: the key itself shows"#,
                                                                 #""extra" is in fr but not in en, the development localization"#])
        let app = daemon.path("App")
        XCTAssertEqual(try connection.send(List()).bundles.first { $0.path == app }?.checks, CheckCounts(errors: 0, warnings: 0))

        try daemon.write("App/de.lproj/Localizable.strings", "\"greeting\" = \"Hallo %d\";\n\"count\" = \"%d Dinge\";\n")
        let broken = try connection.awaitEvent(Diagnostics.name).decode(Diagnostics.self)
        XCTAssertEqual(broken.bundle, app)
        XCTAssertEqual(broken.diagnostics.map(\.description), [
            daemon.path("App/de.lproj/Localizable.strings") + #":1:1: error: "greeting": reads argument 1 as an integer (%d), but en reads it as an object (%@) (a mismatched specifier reads the wrong type: a crash on Apple platforms)"#,
        ])
        XCTAssertEqual(try connection.send(List()).bundles.first { $0.path == app }?.checks, CheckCounts(errors: 1, warnings: 0))

        // An edit of the development table checks every localization against it again.
        try daemon.write("App/en.lproj/Localizable.strings", "\"greeting\" = \"Hello %d\";\n\"count\" = \"%d items\";\n\"new\" = \"New\";\n")
        let again = try connection.awaitEvent(Diagnostics.name).decode(Diagnostics.self)
        XCTAssertEqual(again.diagnostics.map(\.message), [#""new" is not translated into de: the key itself shows"#])

        // Fixed: the set is empty again, said once.
        try daemon.write("App/de.lproj/Localizable.strings", "\"greeting\" = \"Hallo %d\";\n\"count\" = \"%d Dinge\";\n\"new\" = \"Neu\";\n")
        XCTAssertEqual(try connection.awaitEvent(Diagnostics.name).decode(Diagnostics.self).diagnostics, [])
        _ = try connection.send(Sync())
        var names: [String] = []
        while let event = try? connection.nextEvent(timeout: .milliseconds(1)) { names.append(event.name) }
        XCTAssertFalse(names.contains(Diagnostics.name), "nothing more: \(names)")
        // The subscriber that did not ask saw the tables change, and no diagnostics.
        _ = try plain.send(Sync())
        var plainNames: [String] = []
        while let event = try? plain.nextEvent(timeout: .milliseconds(1)) { plainNames.append(event.name) }
        XCTAssertTrue(plainNames.contains(TableChanged.name))
        XCTAssertFalse(plainNames.contains(Diagnostics.name), "\(plainNames)")
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    /// A bundle that appears while a subscriber of diagnostics listens has
    /// its checks worked out and sent (nobody listening, they wait to be asked for).
    func testABundleThatAppearsIsCheckedForAListeningSubscriber() throws {
        let daemon = try DaemonProcess(config: "[Watch]\nQuietPeriod=20ms\n")
        try daemon.write("Old/en.lproj/Localizable.strings", "\"k\" = \"v\";\n")
        try daemon.start()
        let connection = try daemon.subscriber("checks", diagnostics: true)
        try daemon.write("New/en.lproj/Localizable.strings", "\"count\" = \"%d items\";\n")
        try daemon.write("New/de.lproj/Localizable.strings", "\"count\" = \"%@ Dinge\";\n")
        let found = try connection.awaitEvent(Diagnostics.name) { event in
            (try? event.decode(Diagnostics.self)).map { $0.bundle == daemon.path("New") && !$0.diagnostics.isEmpty } ?? false
        }.decode(Diagnostics.self)
        XCTAssertTrue(found.diagnostics.contains { $0.severity == .error && $0.message.contains("\"count\": reads argument 1 as an object") },
                      "\(found.diagnostics)")
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    /// The daemon's checks are kept a key at a time; after every step of a
    /// seeded run of saves (values with and without specifiers, empty
    /// values, keys added and dropped, tables removed, in the development
    /// localization and others) the set it last published equals a fresh
    /// check of the files on disk.
    func testIncrementalChecksEqualAFreshCheckOfTheFiles() throws {
        for seed: UInt64 in [14, 15, 16] { try checkIncrementally(seed: seed) }
    }

    private func checkIncrementally(seed: UInt64) throws {
        let daemon = try DaemonProcess(config: "[Watch]\nRemovalGrace=20ms\nQuietPeriod=20ms\n")
        let values = ["plain", "%@ here", "%d items", "%ld items", "%1$@ and %2$d", "%2$d and %1$@", "", "100% sure"]
        var random = SplitMix64(seed: seed)
        func table() -> String {
            (0..<(1 + random.next(5))).map { _ in "\"k\(random.next(7))\" = \"\(values[random.next(values.count)])\";" }.joined(separator: "\n") + "\n"
        }
        for language in ["en", "de", "fr"] { try daemon.write("App/\(language).lproj/Localizable.strings", table()) }
        try daemon.start()
        let connection = try daemon.subscriber("checks", diagnostics: true)
        let bundle = daemon.path("App")
        var published: [Diagnostic] = []
        for step in 0..<60 {
            let language = ["en", "de", "fr"][random.next(3)]
            let relative = "App/\(language).lproj/\(random.next(4) == 0 ? "Other" : "Localizable").strings"
            let action: String
            if random.next(6) == 0, FileManager.default.fileExists(atPath: daemon.path(relative)) {
                action = "rm \(relative)"
                try FileManager.default.removeItem(atPath: daemon.path(relative))
            } else {
                action = "write \(relative)"
                try daemon.write(relative, table())
            }
            _ = try connection.send(Sync())
            while let event = try? connection.nextEvent(timeout: .milliseconds(1)) {
                if event.name == Diagnostics.name { published = try event.decode(Diagnostics.self).diagnostics }
            }
            let fresh = BundleCheck(bundle: try LocalizedBundle.load(path: bundle)).diagnostics()
            XCTAssertEqual(Set(published.map(\.description)), Set(fresh.map(\.description)), "seed \(seed), step \(step): \(action)")
            if Set(published.map(\.description)) != Set(fresh.map(\.description)) { break }
        }
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }
}
