import Foundation
import LprojFormats
import LprojPaths
import LprojProtocol
import LprojTables
import LprojWatch
import XCTest
@testable import LprojDaemon

/// The daemon's core in one process, no descriptors: these loads, events
/// and requests in, these changes and lines out.
final class PublisherTests: XCTestCase {
    private func publisher(historyBytes: Int = 1 << 20, queueLimit: Int = 1 << 20) -> Publisher {
        Publisher(instance: "abc", historyLength: 100, historyBytes: historyBytes, queueLimit: queueLimit)
    }

    private func lines(_ session: Session) -> [[String: Any]] {
        var bytes: [UInt8] = []
        session.write { buffer in
            bytes = Array(buffer)
            return buffer.count
        }
        return bytes.split(separator: 0x0A).map { (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any] ?? [:] }
    }

    private func changed(_ bundle: String, _ localization: String, _ key: String, _ value: String) -> ServedTables.Change {
        .tableChanged(TableAddress(bundle: bundle, localization: localization, table: "Localizable"),
                      TableDiff(from: Table(), to: Table(strings: [key: value])), deleted: false)
    }

    func testEventsGoToTheSubscriptionsTheyMatchByBytes() {
        let publisher = publisher()
        let (composed, decomposed) = ("/r/Caf\u{E9}", "/r/Cafe\u{301}")
        let first = publisher.openSession(), second = publisher.openSession(), everything = publisher.openSession()
        first.subscriptions["a"] = Subscription(name: "a", bundle: composed, localizations: nil, tables: nil)
        second.subscriptions["b"] = Subscription(name: "b", bundle: decomposed, localizations: ["fr"], tables: nil)
        everything.subscriptions["all"] = Subscription(name: "all", bundle: nil, localizations: nil, tables: nil)
        publisher.publish([changed(composed, "fr", "k", "one"), changed(decomposed, "fr", "k", "two"), changed(decomposed, "en", "k", "x")])
        XCTAssertEqual(publisher.takeTouched(), [first.id, second.id, everything.id])
        XCTAssertEqual(lines(first).map { $0["added"] as? [String: String] }, [["k": "one"]])
        XCTAssertEqual(lines(second).map { $0["added"] as? [String: String] }, [["k": "two"]])
        XCTAssertEqual(lines(everything).compactMap { $0["clock"] as? String }, ["abc:1", "abc:2", "abc:3"])
        XCTAssertEqual(publisher.clock, Clock(instance: "abc", sequence: 3))
    }

    func testAClosedSessionHearsNothingMoreAndTheOthersStillDo() {
        let publisher = publisher()
        let sessions = (0..<7).map { _ in publisher.openSession() }
        for session in sessions { session.subscriptions["s"] = Subscription(name: "s", bundle: nil, localizations: nil, tables: nil) }
        for index in [0, 3, 6] { publisher.closeSession(sessions[index]) }
        for (index, session) in sessions.enumerated() {
            XCTAssert(publisher.session(id: session.id) === ([0, 3, 6].contains(index) ? nil : session), "session \(index) by its id")
        }
        XCTAssertNil(publisher.session(id: 99))
        publisher.publish([changed("/r/B", "en", "k", "v")])
        let open = [1, 2, 4, 5].map { sessions[$0] }
        XCTAssertEqual(publisher.takeTouched(), Set(open.map(\.id)))
        for index in [0, 3, 6] { XCTAssertEqual(lines(sessions[index]).count, 0, "closed session \(index)") }
        for session in open { XCTAssertEqual(lines(session).compactMap { $0["event"] as? String }, ["table-changed"]) }
        // Opened after the others closed: heard, once.
        let late = publisher.openSession()
        late.subscriptions["s"] = Subscription(name: "s", bundle: nil, localizations: nil, tables: nil)
        publisher.publish([changed("/r/B", "en", "k", "w")])
        XCTAssertEqual(publisher.takeTouched(), Set((open + [late]).map(\.id)))
        XCTAssertEqual(lines(late).count, 1)
    }

    func testASessionPastItsBoundDropsEventsAndIsToldToResyncOnceDrained() {
        let publisher = publisher(queueLimit: 4096)
        let slow = publisher.openSession(), live = publisher.openSession()
        for session in [slow, live] { session.subscriptions["s"] = Subscription(name: "s", bundle: nil, localizations: nil, tables: nil) }
        let big = String(repeating: "x", count: 1000)
        for index in 0..<20 {
            publisher.publish([changed("/r/B", "en", "k\(index)", big)])
            _ = lines(live)   // the live one reads everything as it comes
        }
        XCTAssertGreaterThan(publisher.counters["events-dropped"] ?? 0, 0)
        XCTAssertTrue(publisher.settleLagging(slow).isEmpty, "not owed while its queue is still full")
        let kept = lines(slow)
        XCTAssertLessThan(kept.count, 20)
        XCTAssertEqual(publisher.settleLagging(slow).map(\.name), ["s"])
        XCTAssertEqual(lines(slow).map { $0["event"] as? String }, ["resync"])
        XCTAssertEqual(lines(slow).count, 0)
    }

    func testTheHistoryIsBoundedInBytesAndAnOlderSinceIsFresh() {
        let publisher = publisher(historyBytes: 10_000)
        let value = String(repeating: "v", count: 900)
        for index in 0..<100 { publisher.publish([changed("/r/B", "en", "k\(index)", value)]) }
        XCTAssertLessThanOrEqual(publisher.history.bytes, 10_000)
        XCTAssertGreaterThan(publisher.history.count, 5)
        XCTAssertNil(publisher.missed(since: Clock(instance: "abc", sequence: 1)), "evicted: the subscriber starts afresh")
        let recent = publisher.missed(since: Clock(instance: "abc", sequence: 98))
        XCTAssertEqual(recent?.map(\.sequence), [99, 100])
        XCTAssertEqual(publisher.missed(since: Clock(instance: "abc", sequence: 100))?.count, 0)
        XCTAssertNil(publisher.missed(since: Clock(instance: "other", sequence: 99)))
        // An event larger than the whole bound is not kept, and nothing before it can be replayed.
        publisher.publish([changed("/r/B", "en", "huge", String(repeating: "h", count: 20_000))])
        XCTAssertNil(publisher.missed(since: Clock(instance: "abc", sequence: 99)))
        XCTAssertEqual(publisher.missed(since: Clock(instance: "abc", sequence: 101))?.count, 0)
    }

    func testEveryEventLineStartsWithItsSubscription() throws {
        let event = TableChanged(clock: Clock(instance: "a", sequence: 1), bundle: "/b", language: "en", table: "T",
                                 diff: TableDiff(from: Table(), to: Table(strings: ["k": "v"])))
        for line in [try Wire.event(event, subscription: "zz"), try { () throws -> [UInt8] in
            var output: [UInt8] = []
            Wire.appendAddressed(try Wire.eventBody(event), prefix: Wire.eventPrefix(subscription: "zz"), to: &output)
            return output
        }()] {
            XCTAssertTrue(line.starts(with: Array("{\"sub\":\"zz\",".utf8)), String(decoding: line, as: UTF8.self))
            guard case .event(let received)? = Wire.Incoming(line: line) else { return XCTFail("not read as an event") }
            XCTAssertEqual(received.name, "table-changed")
            XCTAssertEqual(received.subscription, "zz")
        }
    }
}

final class PendingChangesTests: XCTestCase {
    private let start = ContinuousClock.now
    private func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    func testAVanishedFileWaitsForItsGraceAndAWriteMeanwhileIsOneChange() {
        var pending = PendingChanges(rules: .init(grace: .milliseconds(250), quiet: .milliseconds(100)))
        let known: Set<String> = ["/b/en.lproj/L.strings"]
        func take(_ events: [FileEvent], _ now: Int) -> [String] {
            pending.take(events, at: at(now), isKnown: known.contains, knownFiles: { directory in known.filter { $0.hasPrefix(directory + "/") } })
        }
        XCTAssertEqual(take([.removed("/b/en.lproj/L.strings")], 0), [], "kept served")
        XCTAssertEqual(pending.nextDeadline, at(250))
        XCTAssertEqual(pending.takeDue(at: at(100)), [])
        XCTAssertEqual(take([.written("/b/en.lproj/L.strings")], 30), ["/b/en.lproj/L.strings"], "the new file is read at once")
        XCTAssertTrue(pending.isEmpty, "and nothing waits any more")
        // Without a write, the grace ends in a read (which finds it gone).
        _ = take([.directoryGone("/b/en.lproj")], 300)
        XCTAssertFalse(pending.isSettled(through: pending.lastTicket))
        XCTAssertEqual(pending.takeDue(at: at(549)), [])
        XCTAssertEqual(pending.takeDue(at: at(550)), ["/b/en.lproj/L.strings"])
        XCTAssertTrue(pending.isSettled(through: pending.lastTicket))
        // An unknown file that goes is nothing to wait for.
        XCTAssertEqual(take([.removed("/b/en.lproj/Other.strings")], 600), [])
        XCTAssertTrue(pending.isEmpty)
    }

    func testAListedFileIsReadWhenCompleteOrQuiet() {
        var pending = PendingChanges(rules: .init(grace: .milliseconds(250), quiet: .milliseconds(100)))
        func take(_ events: [FileEvent], _ now: Int) -> [String] {
            pending.take(events, at: at(now), isKnown: { _ in false }, knownFiles: { _ in [] })
        }
        XCTAssertEqual(take([.directoryAppeared("/b/fr.lproj"), .listed("/b/fr.lproj/A.strings"), .listed("/b/fr.lproj/B.strings")], 0), [])
        XCTAssertEqual(take([.written("/b/fr.lproj/A.strings")], 10), ["/b/fr.lproj/A.strings"], "closed after writing: complete")
        XCTAssertEqual(take([.modified("/b/fr.lproj/B.strings")], 90), [], "still being written")
        XCTAssertEqual(pending.takeDue(at: at(150)), [])
        XCTAssertEqual(pending.takeDue(at: at(190)), ["/b/fr.lproj/B.strings"], "quiet for 100 ms")
        // Written for ever: read at the latest 20 quiet periods after it was listed.
        _ = take([.listed("/b/fr.lproj/C.strings")], 1000)
        for step in 1...40 { _ = take([.modified("/b/fr.lproj/C.strings")], 1000 + step * 50) }
        XCTAssertEqual(pending.nextDeadline, at(3000))
        // A listed file whose directory goes is not read.
        _ = take([.listed("/b/de.lproj/D.strings"), .directoryGone("/b/de.lproj")], 3001)
        XCTAssertEqual(pending.takeDue(at: at(10_000)), ["/b/fr.lproj/C.strings"])
    }
}

final class CatalogChangeTests: XCTestCase {
    /// `mv de.lproj fr.lproj` of a bundle's only localization, in one batch:
    /// the bundle never goes, the new localization comes first.
    func testRenamingTheOnlyLocalizationNeverRemovesTheBundle() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("rename-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/App/de.lproj", withIntermediateDirectories: true)
        try Data("\"a\" = \"1\";\n".utf8).write(to: URL(fileURLWithPath: root + "/App/de.lproj/L.strings"))
        let tables = ServedTables(exclusions: Exclusions(patterns: [], roots: [root]))
        XCTAssertEqual(describe(refresh(tables, [root + "/App/de.lproj/L.strings"])),
                       ["bundle-added App", "localization-added App de", "table-changed App de L +1"])
        try FileManager.default.moveItem(atPath: root + "/App/de.lproj", toPath: root + "/App/fr.lproj")
        XCTAssertEqual(describe(refresh(tables, [root + "/App/de.lproj/L.strings", root + "/App/fr.lproj/L.strings"])),
                       ["localization-added App fr", "table-changed App de L deleted", "table-changed App fr L +1",
                        "localization-removed App de"])
        XCTAssertEqual(tables.bundles, [root + "/App"])
        try FileManager.default.removeItem(atPath: root + "/App/fr.lproj")
        XCTAssertEqual(describe(refresh(tables, [root + "/App/fr.lproj/L.strings"])),
                       ["table-changed App fr L deleted", "localization-removed App fr", "bundle-removed App"])
    }

    /// The localizations of a table with the same keys in the same order
    /// are served over one set of keys, and keep the right values and
    /// diffs as keys change; a table name keeps a few sets (a new key
    /// reaches its localizations one by one), and a table matching none
    /// when all are in use is served whole.
    func testLocalizationsOfATableShareTheirKeys() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("share-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let tables = ServedTables(exclusions: Exclusions(patterns: [], roots: [root]))
        func path(_ language: String) -> String { root + "/App/\(language).lproj/L.strings" }
        func write(_ language: String, keys: [String]) throws {
            try FileManager.default.createDirectory(atPath: root + "/App/\(language).lproj", withIntermediateDirectories: true)
            try Data(keys.map { "\"\($0)\" = \"\($0) in \(language)\";\n" }.joined().utf8).write(to: URL(fileURLWithPath: path(language)))
        }
        func expect(_ language: String, keys: [String], shared: Bool, line: UInt = #line) throws {
            let table = try XCTUnwrap(tables.served[TableAddress(bundle: root + "/App", localization: language, table: "L")], language, line: line)
            XCTAssertEqual(table.keys, keys, language, line: line)
            for key in keys { XCTAssertEqual(table[key]?.text, "\(key) in \(language)", language, line: line) }
            XCTAssertEqual(table.sharesKeys, shared, language, line: line)
        }
        let first = ["a", "b", "c"], second = ["a", "b", "c", "d"]
        for language in ["en", "fr", "de"] { try write(language, keys: first) }
        _ = refresh(tables, ["en", "fr", "de"].map(path))
        for language in ["en", "fr", "de"] { try expect(language, keys: first, shared: true) }

        // A key added to each localization in turn: the first to have it gives the new set, the others join it.
        for (number, language) in ["fr", "de", "en"].enumerated() {
            try write(language, keys: second)
            XCTAssertEqual(describe(refresh(tables, [path(language)])), ["table-changed App \(language) L +1"])
            try expect(language, keys: second, shared: true)
            for other in ["fr", "de", "en"].dropFirst(number + 1) { try expect(other, keys: first, shared: true) }
        }

        // Four sets in use at once (the first one, no longer read, made room): a fifth localization with other keys is served whole.
        for (language, keys) in [("es", ["x"]), ("it", ["x", "y"]), ("ja", ["x", "y", "z"])] {
            try write(language, keys: keys)
            _ = refresh(tables, [path(language)])
            try expect(language, keys: keys, shared: true)
        }
        try write("ko", keys: ["w"])
        _ = refresh(tables, [path("ko")])
        try expect("ko", keys: ["w"], shared: false)
        for language in ["en", "fr", "de"] { try expect(language, keys: second, shared: true) }
    }

    /// Reads `paths` as the shell does and hands the result to `tables`.
    private func refresh(_ tables: ServedTables, _ paths: [String]) -> [ServedTables.Change] {
        var reader = TableFileReader()
        return tables.apply(TableReading.load(paths, with: &reader, exclusions: tables.exclusions, links: tables.links, keys: tables.keyShelf))
    }

    private func describe(_ changes: [ServedTables.Change]) -> [String] {
        func short(_ path: String) -> String { String(path.split(separator: "/").last ?? "") }
        return changes.map { change in
            switch change {
            case .bundleAdded(let bundle): "bundle-added \(short(bundle))"
            case .bundleRemoved(let bundle): "bundle-removed \(short(bundle))"
            case .localizationAdded(let bundle, let localization): "localization-added \(short(bundle)) \(localization)"
            case .localizationRemoved(let bundle, let localization): "localization-removed \(short(bundle)) \(localization)"
            case .tableChanged(let address, let diff, let deleted):
                "table-changed \(short(address.bundle)) \(address.localization) \(address.table) " + (deleted ? "deleted" : "+\(diff.added.count)")
            case .tableInvalid(let file, _, _, _, _, _): "table-invalid \(short(file))"
            }
        }
    }
}

/// The tables's file records, kept by directory: read back by whole
/// paths, counted, found under a directory by components (not by a
/// string prefix), and gone with their last file's record.
final class FileRecordsTests: XCTestCase {
    func testRecordsByDirectoryReadBackByPath() {
        var records = FileRecords()
        let record = ServedTables.FileRecord(lastGood: .table(Table(strings: ["a": "1"])), diagnostics: [])
        let paths = ["/r/App/en.lproj/L.strings", "/r/App/en.lproj/M.strings", "/r/App/fr.lproj/L.strings",
                     "/r/Appendix/en.lproj/L.strings", "/r/App/Base.lproj/Long table name.strings", "name.strings"]
        for path in paths {
            records.update(ExactName(path), placeholder: .placeholder) { $0 = record }
        }
        // Again: changed where it is, not counted twice.
        records.update(ExactName(paths[0]), placeholder: .placeholder) { $0.diagnostics = [] }
        XCTAssertEqual(records.count, paths.count)
        for path in paths { XCTAssertEqual(records[ExactName(path)]?.lastGood, record.lastGood, path) }
        XCTAssertNil(records[ExactName("/r/App/en.lproj/N.strings")])
        XCTAssertNil(records[ExactName("/r/App/en.lproj")])
        XCTAssertEqual(Set(records.keys.map(\.string)), Set(paths))
        XCTAssertEqual(Set(records.map(\.key.string)), Set(paths))
        XCTAssertEqual(Set(records.paths(under: "/r/App")), Set(paths.filter { $0.hasPrefix("/r/App/") }))
        XCTAssertEqual(records.paths(under: "/r/App/en.lproj/L.strings"), [])
        XCTAssertEqual(records.paths(under: "/r/App/fr.lproj"), ["/r/App/fr.lproj/L.strings"])
        XCTAssertNotNil(records.removeValue(forKey: ExactName("/r/App/fr.lproj/L.strings")))
        XCTAssertNil(records.removeValue(forKey: ExactName("/r/App/fr.lproj/L.strings")))
        XCTAssertEqual(records.count, paths.count - 1)
        XCTAssertEqual(records.paths(under: "/r/App/fr.lproj"), [])
        // Names that differ only in normalization are two files.
        records.update(ExactName("/r/Caf\u{E9}/en.lproj/L.strings"), placeholder: .placeholder) { $0 = record }
        XCTAssertNil(records[ExactName("/r/Cafe\u{301}/en.lproj/L.strings")])
    }
}
