import Foundation
import LprojClient
import LprojFormats
import LprojPaths
import LprojProtocol
import LprojTables
import LprojWatch
import XCTest
@testable import LprojDaemon

/// The daemon's core driven in this process (`CoreHarness`): every request,
/// a sync that waits for a removal's grace, an overflow, a reload, a root
/// swapped through its link — the policies, without a socket or a process.
final class DaemonCoreTests: XCTestCase {
    private func harness(_ configure: (inout Configuration) -> Void = { _ in }) throws -> CoreHarness {
        try CoreHarness(configure) { root in
            for (relative, text) in ["App/en.lproj/Localizable.strings": "\"a\" = \"A\";\n\"b\" = \"B\";\n",
                                     "App/de.lproj/Localizable.strings": "\"a\" = \"Ä\";\n"] {
                let path = root + "/" + relative
                try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            }
        }
    }

    private func write(_ harness: CoreHarness, _ relative: String, _ text: String) throws {
        let path = harness.path(relative)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    func testEveryRequest() throws {
        let core = try harness()
        let connection = try core.connect()
        let hello = try connection.send(Hello(client: "tests", app: "com.example.app"))
        XCTAssertEqual(hello.server, DaemonCore.server)
        XCTAssertNil(hello.language)
        let subscribed = try connection.send(Subscribe(name: "all", snapshot: true))
        XCTAssertTrue(subscribed.fresh)
        XCTAssertEqual(subscribed.tables?.map(\.language).sorted(), ["de", "en"])
        XCTAssertEqual(try connection.send(Snapshot(bundle: core.path("App"), languages: ["de"])).tables.map(\.language), ["de"])
        XCTAssertThrowsError(try connection.send(Snapshot(bundle: core.path("Nothing")))) { error in
            guard case DaemonConnection.Failure.refused(let refusal) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(refusal.code, .notFound)
        }
        let list = try connection.send(List())
        XCTAssertEqual(list.bundles.map(\.path), [core.path("App")])
        let lookup = try connection.send(Lookup(bundle: core.path("App"), key: "a", languages: ["de-AT"]))
        XCTAssertEqual(lookup.text, "Ä")
        XCTAssertEqual(lookup.chain, ["de", "en"])
        XCTAssertEqual(try connection.send(Lookup(bundle: core.path("App"), key: "b", languages: ["de"])).source, "key",
                       "as CFBundle: a key missing from the chosen table is not looked for in the development one")
        let selected = try connection.send(SelectLanguage(app: "com.example.app", language: "de"))
        XCTAssertEqual(selected.language, "de")
        let event = try connection.nextEvent()
        XCTAssertEqual(event.name, LanguageSelected.name)
        XCTAssertEqual(try core.connect().send(Hello(client: "again", app: "com.example.app")).language, "de")
        let status = try connection.send(Status())
        XCTAssertEqual(status.clients.count, 2)
        XCTAssertEqual(status.tables, 2)
        XCTAssertGreaterThan(status.watches, 0)
        _ = try connection.send(Sync())
        _ = try connection.send(Unsubscribe(name: "all"))
        XCTAssertThrowsError(try connection.send(Unsubscribe(name: "all")))
        // Lines that are no request get an error reply naming why; the session stays.
        connection.write(Array("{\"id\":9,\"op\":\"frobnicate\"}\nnot json\n".utf8))
        let replies = connection.takeLines().compactMap { line -> ProtocolError? in
            if case .reply(let reply)? = Wire.Incoming(line: line) { reply.error } else { nil }
        }
        XCTAssertEqual(replies.map(\.code), [.unknownOperation, .malformed])
        XCTAssertEqual(try connection.send(Status()).clients.count, 2)
    }

    func testASyncWaitsForTheRemovalGraceAndAnswersWithTheStateItLeaves() throws {
        let core = try harness { $0.watch.removalGrace = .seconds(5) }
        let connection = try core.connect()
        _ = try connection.send(Subscribe(name: "all"))
        try FileManager.default.removeItem(atPath: core.path("App/de.lproj"))
        let before = core.now
        _ = try connection.send(Sync())
        XCTAssertGreaterThanOrEqual(core.now - before, .seconds(5), "answered after the grace (on the harness's clock)")
        var names: [String] = []
        while let event = try? connection.nextEvent() { names.append(event.name) }
        XCTAssertEqual(names, [TableChanged.name, LocalizationRemoved.name])
        XCTAssertEqual(core.core.tables.served.count, 1)
    }

    /// A read that an event queued meanwhile overtook waits for that
    /// event's read, or the quiet period: when the event turns out to change
    /// nothing for the file (in the binary's model run: a link's move that
    /// the batch before had already followed), the file is still read.
    func testAReadOvertakenByAnEventThatChangesNothingIsStillMade() throws {
        let core = try harness { $0.watch.quietPeriod = .seconds(3) }
        let connection = try core.connect()
        _ = try connection.send(Subscribe(name: "all"))
        try write(core, "App/en.lproj/Localizable.strings", "\"a\" = \"A2\";\n\"b\" = \"B\";\n")
        // The save's events, taken out as if handled already: by now they change nothing.
        while core.feed.tree.readBatch(waiting: false) != nil {}
        // A read of the file, overtaken by an event of its directory queued meanwhile.
        var reader = TableFileReader(limits: core.core.configuration.limits.tableLimits)
        let tables = core.core.tables
        let loaded = TableReading.load([core.path("App/en.lproj/Localizable.strings")], with: &reader, exclusions: tables.exclusions,
                                       links: tables.links, keys: tables.keyShelf)
        let address = TableAddress(bundle: core.path("App"), localization: "en", table: "Localizable")
        let before = core.now
        core.core.apply(loaded, queued: [ExactName(core.path("App/en.lproj"))], at: before)
        XCTAssertEqual(tables.served[address]?["a"]?.text, "A", "set aside, not applied")
        _ = try connection.send(Sync())
        XCTAssertGreaterThanOrEqual(core.now - before, .seconds(3), "read once quiet (on the harness's clock)")
        XCTAssertEqual(tables.served[address]?["a"]?.text, "A2")
        let event = try connection.nextEvent()
        XCTAssertEqual(event.name, TableChanged.name)
        XCTAssertEqual(try event.decode(TableChanged.self).changed["a"]?.text, "A2")
    }

    func testAnOverflowRescansAndTellsEveryoneToResync() throws {
        let core = try harness()
        let connection = try core.connect()
        _ = try connection.send(Subscribe(name: "all"))
        // A change whose event is lost, then the overflow that says events were lost.
        try write(core, "App/fr.lproj/Localizable.strings", "\"a\" = \"À\";\n")
        _ = try connection.send(Sync())
        while (try? connection.nextEvent()) != nil {}
        try write(core, "App/en.lproj/Localizable.strings", "\"a\" = \"A2\";\n")
        core.feed.handle(WatchBatch(events: [.overflow], overflowed: true), core: core.core, at: core.now)
        var names: [String] = []
        while let event = try? connection.nextEvent() { names.append(event.name) }
        XCTAssertTrue(names.contains(TableChanged.name), "\(names)")
        XCTAssertEqual(names.last, Resync.name)
        XCTAssertEqual(core.core.counters["overflows"], 1)
        XCTAssertTrue(core.core.kernelLimits.warnings["queue"]?.contains("fs.inotify.max_queued_events") == true)
        let lookup = try connection.send(Lookup(bundle: core.path("App"), key: "a", languages: ["en"]))
        XCTAssertEqual(lookup.text, "A2")
    }

    func testAReloadAddsAndDropsRootsAndLimits() throws {
        let core = try harness()
        let connection = try core.connect()
        _ = try connection.send(Subscribe(name: "all"))
        let second = core.directory + "/second"
        try FileManager.default.createDirectory(atPath: second + "/Other/ja.lproj", withIntermediateDirectories: true)
        try Data("\"k\" = \"ケ\";\n".utf8).write(to: URL(fileURLWithPath: second + "/Other/ja.lproj/Localizable.strings"))
        core.reload { $0.watch.roots.append(second); $0.limits.maximumFilterNames = 2 }
        _ = try connection.send(Sync())
        var added: [String] = []
        while let event = try? connection.nextEvent() {
            if event.name == BundleAdded.name { added.append(try event.decode(BundleAdded.self).bundle) }
        }
        XCTAssertEqual(added, [second + "/Other"])
        XCTAssertThrowsError(try connection.send(Snapshot(languages: ["a", "b", "c"]))) { error in
            guard case DaemonConnection.Failure.refused(let refusal) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(refusal.code, .limit)
        }
        core.reload { $0.watch.roots = [core.root] }
        _ = try connection.send(Sync())
        XCTAssertEqual(try connection.send(List()).bundles.map(\.path), [core.path("App")])
    }

    func testARootReachedThroughALinkFollowsItsSwap() throws {
        let core = try harness()
        let releases = core.directory + "/releases"
        for (number, text) in [(1, "\"t\" = \"One\";\n"), (2, "\"t\" = \"Two\";\n")] {
            try FileManager.default.createDirectory(atPath: "\(releases)/\(number)/App/en.lproj", withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: "\(releases)/\(number)/App/en.lproj/Localizable.strings"))
        }
        XCTAssertEqual(symlink("releases/1", core.directory + "/current"), 0)
        core.reload { $0.watch.roots = [core.directory + "/current"] }
        let connection = try core.connect()
        _ = try connection.send(Subscribe(name: "all"))
        XCTAssertEqual(try connection.send(Lookup(bundle: core.directory + "/current/App", key: "t", languages: ["en"])).text, "One")
        XCTAssertEqual(symlink("releases/2", core.directory + "/current.tmp"), 0)
        XCTAssertEqual(rename(core.directory + "/current.tmp", core.directory + "/current"), 0)
        _ = try connection.send(Sync())
        var changes: [TableChanged] = []
        while let event = try? connection.nextEvent() {
            if event.name == TableChanged.name { changes.append(try event.decode(TableChanged.self)) }
        }
        XCTAssertEqual(changes.count, 1, "one change for the table: \(changes)")
        XCTAssertEqual(changes.first?.changed["t"]?.text, "Two")
        XCTAssertEqual(changes.first?.bundle, core.directory + "/current/App")
    }

    func testAdmissionRefusesPastThePerUserCap() throws {
        let core = try harness { $0.limits.maximumClientsPerUser = 2 }
        _ = try core.connect(uid: 4321)
        _ = try core.connect(uid: 4321)
        XCTAssertThrowsError(try core.connect(uid: 4321)) { error in
            guard case DaemonConnection.Failure.refused(let refusal) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(refusal.code, .busy)
        }
        XCTAssertNoThrow(try core.connect(uid: 4322))
        XCTAssertEqual(core.core.counters["connections-refused"], 1)
    }
}
