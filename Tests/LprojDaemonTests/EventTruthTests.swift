import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import LprojTables
import XCTest

/// What subscribers are told is what the files hold, in the cases that
/// once told them otherwise: the real daemon, real inotify.
final class EventTruthTests: XCTestCase {
    private var daemon: DaemonProcess!

    override func tearDown() {
        if let daemon { XCTAssertEqual(daemon.stop(), 0, daemon.log) }
        daemon = nil
    }

    /// (Files as pairs: two names equal only under normalization would be one dictionary key.)
    private func start(config: String? = nil, _ files: KeyValuePairs<String, String>) throws -> DaemonConnection {
        daemon = try DaemonProcess(config: config)
        for (path, text) in files { try daemon.write(path, text) }
        try daemon.start()
        let connection = try daemon.connect()
        _ = try connection.send(Hello(client: "tests"))
        return connection
    }

    /// Every event up to a `sync` reply.
    private func events(until connection: DaemonConnection) throws -> [DaemonConnection.ReceivedEvent] {
        _ = try connection.send(Sync(), timeout: .seconds(60))
        var events: [DaemonConnection.ReceivedEvent] = []
        while let event = try? connection.nextEvent(timeout: .milliseconds(1)) { events.append(event) }
        return events
    }

    /// `Café` typed on Linux (NFC) beside `Café` copied from a Mac (NFD):
    /// two directories, two bundles; each subscriber and each LiveBundle sees only its own.
    func testTwinBundlesThatDifferOnlyInNormalizationAreKeptApart() throws {
        let (composed, decomposed) = ("Caf\u{E9}", "Cafe\u{301}")
        let connection = try start([composed + "/en.lproj/Localizable.strings": "\"k\" = \"composed\";\n",
                                    decomposed + "/en.lproj/Localizable.strings": "\"k\" = \"decomposed\";\n"])
        let composedPath = daemon.path(composed), decomposedPath = daemon.path(decomposed)
        let other = try daemon.connect()
        _ = try connection.send(Subscribe(name: "nfc", bundle: composedPath))
        _ = try other.send(Subscribe(name: "nfd", bundle: decomposedPath))
        var options = LiveBundle.Options()
        options.socketPath = daemon.socket
        options.environment = ["LANG": "en_US.UTF-8", "HOME": daemon.directory]
        let liveComposed = try LiveBundle(path: composedPath, options: options)
        let liveDecomposed = try LiveBundle(path: decomposedPath, options: options)
        XCTAssertEqual(liveComposed.localizedString(forKey: "k", value: nil, table: nil), "composed")
        XCTAssertEqual(liveDecomposed.localizedString(forKey: "k", value: nil, table: nil), "decomposed")
        try awaitState(of: liveComposed) { liveComposed.isConnected }
        try awaitState(of: liveDecomposed) { liveDecomposed.isConnected }

        try daemon.write(composed + "/en.lproj/Localizable.strings", "\"k\" = \"composed 2\";\n")
        try daemon.write(decomposed + "/en.lproj/Localizable.strings", "\"k\" = \"decomposed 2\";\n")
        let seenComposed = try events(until: connection).filter { $0.name == TableChanged.name }.map { try $0.decode(TableChanged.self) }
        let seenDecomposed = try events(until: other).filter { $0.name == TableChanged.name }.map { try $0.decode(TableChanged.self) }
        XCTAssertEqual(seenComposed.map { Array($0.bundle.utf8) }, [Array(composedPath.utf8)])
        XCTAssertEqual(seenComposed.map { $0.changed["k"]?.text }, ["composed 2"])
        XCTAssertEqual(seenDecomposed.map { Array($0.bundle.utf8) }, [Array(decomposedPath.utf8)])
        XCTAssertEqual(seenDecomposed.map { $0.changed["k"]?.text }, ["decomposed 2"])
        try awaitState(of: liveComposed) { liveComposed.localizedString(forKey: "k", value: nil, table: nil) == "composed 2" }
        try awaitState(of: liveDecomposed) { liveDecomposed.localizedString(forKey: "k", value: nil, table: nil) == "decomposed 2" }

        let snapshot = try connection.send(Snapshot(bundle: decomposedPath))
        XCTAssertEqual(snapshot.tables.map { Array($0.bundle.utf8) }, [Array(decomposedPath.utf8)])
        XCTAssertEqual(snapshot.tables.first?.entries["k"]?.text, "decomposed 2")
        XCTAssertEqual(try connection.send(List()).bundles.count, 2)
    }

    /// An editor that moves the old file away and writes the new one 30 ms
    /// later publishes one change: never `deleted`, never a localization removed.
    func testRenameThenWriteIsOneChange() throws {
        let connection = try start(["App/de.lproj/Localizable.strings": "\"k\" = \"alt\";\n\"keep\" = \"x\";\n"])
        _ = try connection.send(Subscribe(name: "all"))
        try daemon.shell("""
            mv App/de.lproj/Localizable.strings App/de.lproj/Localizable.strings.orig && sleep 0.03 \
            && printf '"k" = "neu";\\n"keep" = "x";\\n' > App/de.lproj/Localizable.strings && rm App/de.lproj/Localizable.strings.orig
            """)
        let seen = try events(until: connection)
        XCTAssertEqual(seen.map(\.name), [TableChanged.name], "\(seen.map { String(decoding: $0.line, as: UTF8.self) })")
        let change = try XCTUnwrap(seen.first).decode(TableChanged.self)
        XCTAssertNil(change.deleted)
        XCTAssertEqual(change.changed["k"]?.text, "neu")
        XCTAssertTrue(change.removed.isEmpty && change.added.isEmpty)
        // A file that stays gone is dropped once the grace is over.
        try daemon.shell("rm App/de.lproj/Localizable.strings")
        XCTAssertEqual(try events(until: connection).map(\.name), [TableChanged.name, LocalizationRemoved.name, BundleRemoved.name])
    }

    /// `mv de.lproj fr.lproj` of a bundle's only localization: the bundle is
    /// never removed, and tables added to it later are served.
    func testRenamingTheOnlyLocalizationKeepsTheBundle() throws {
        let connection = try start(["App/de.lproj/Localizable.strings": "\"a\" = \"1\";\n"])
        _ = try connection.send(Subscribe(name: "all"))
        try daemon.shell("mv App/de.lproj App/fr.lproj")
        let seen = try events(until: connection)
        XCTAssertFalse(seen.contains { $0.name == BundleRemoved.name || $0.name == BundleAdded.name },
                       "\(seen.map { String(decoding: $0.line, as: UTF8.self) })")
        XCTAssertEqual(Set(seen.map(\.name)), [TableChanged.name, LocalizationAdded.name, LocalizationRemoved.name])
        try daemon.write("App/fr.lproj/Other.strings", "\"b\" = \"2\";\n")
        try daemon.write("App/ja.lproj/Localizable.strings", "\"c\" = \"3\";\n")
        _ = try events(until: connection)
        let served = try connection.send(Snapshot()).tables.map { "\($0.language)/\($0.table)" }
        XCTAssertEqual(served.sorted(), ["fr/Localizable", "fr/Other", "ja/Localizable"])
        XCTAssertEqual(try connection.send(List()).bundles.map(\.path), [daemon.path("App")])
    }

    /// `cp -r` of a 300-bundle tree: every table is published once, whole.
    func testCopyingATreePublishesEachTableOnceAndWhole() throws {
        let connection = try start(["Seed/en.lproj/Localizable.strings": "\"s\" = \"s\";\n"])
        _ = try connection.send(Subscribe(name: "all"))
        let source = daemon.directory + "/source"
        var expected: [String: Int] = [:]
        // 600 tables of 120 keys: their events fit in the subscriber's queue (8 MB) unread.
        let body = (0..<120).map { "\"key_\($0)\" = \"a value long enough to take a while to copy \($0)\";" }.joined(separator: "\n") + "\n"
        for bundle in 0..<300 {
            for language in ["en", "de"] {
                let directory = "\(source)/B\(bundle)/\(language).lproj"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try Data(body.utf8).write(to: URL(fileURLWithPath: directory + "/Localizable.strings"))
                expected["\(daemon.path("Tree"))/B\(bundle)|\(language)"] = 120
            }
        }
        try daemon.shell("cp -r '\(source)' Tree")
        var published: [String: [Int]] = [:]
        for event in try events(until: connection) {
            XCTAssertFalse(event.name == TableInvalid.name || event.name == Resync.name, String(decoding: event.line, as: UTF8.self))
            guard event.name == TableChanged.name else { continue }
            let change = try event.decode(TableChanged.self)
            published["\(change.bundle)|\(change.language)", default: []].append(change.added.count + change.changed.count)
        }
        XCTAssertEqual(published.count, expected.count)
        let wrong = published.filter { $0.value != [120] }
        XCTAssertTrue(wrong.isEmpty, "tables published more than once or not whole: \(wrong.prefix(5))")
    }

    /// 2,000 saves of a 1,000-key table as fast as they can be written, in
    /// place and atomically in turn, each changing one key: no event ever
    /// removes or adds keys, none says a never-broken file is invalid, and
    /// the end state is the last save.
    func testRapidSavesNeverPublishAHalfWrittenTable() throws {
        func table(_ marker: Int) -> [UInt8] {
            Array(((0..<1000).map { "\"key_\($0)\" = \"value \($0)\";" } + ["\"marker\" = \"\(marker)\";"]).joined(separator: "\n").utf8) + [0x0A]
        }
        let connection = try start(["App/en.lproj/Localizable.strings": String(decoding: table(0), as: UTF8.self)])
        _ = try connection.send(Subscribe(name: "all"))
        let path = daemon.path("App/en.lproj/Localizable.strings"), temporary = daemon.path("App/en.lproj/.Localizable.strings.tmp")
        let saves = (1...2000).map(table)
        for (index, bytes) in saves.enumerated() {
            let target = index % 2 == 0 ? path : temporary
            let descriptor = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            XCTAssertGreaterThanOrEqual(descriptor, 0)
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
            if target == temporary { XCTAssertEqual(rename(temporary, path), 0) }
        }
        var markers: [Int] = []
        var connectionEvents = 0
        // The client's queue may overflow into a resync; read as we go.
        _ = try connection.sendRequest(Sync())
        readLoop: while true {
            guard let message = try connection.nextMessage(timeout: .seconds(60)) else { continue }
            switch message {
            case .reply: break readLoop
            case .event(let event):
                connectionEvents += 1
                XCTAssertNotEqual(event.name, TableInvalid.name, String(decoding: event.line, as: UTF8.self))
                guard event.name == TableChanged.name else { continue }
                let change = try event.decode(TableChanged.self)
                XCTAssertTrue(change.added.isEmpty && change.removed.isEmpty && change.deleted == nil,
                              "a half-written save was published: +\(change.added.count) -\(change.removed.count)")
                if let marker = change.changed["marker"]?.text.flatMap(Int.init) { markers.append(marker) }
            }
        }
        XCTAssertEqual(markers.last, 2000, "the last save is what is served")
        XCTAssertEqual(markers, markers.sorted(), "saves are published in the order they were made")
        XCTAssertEqual(try connection.send(Snapshot()).tables.first?.entries["marker"]?.text, "2000")
    }

    /// The history is bounded in bytes: saves that rewrite every value of a
    /// 5,000-key table keep at most `HistoryBytes`, and a clock from before
    /// what it kept is answered fresh.
    func testTheHistoryIsBoundedInBytes() throws {
        func table(_ round: Int) -> String {
            (0..<5000).map { "\"key_\($0)\" = \"round \(round) value \($0)\";" }.joined(separator: "\n") + "\n"
        }
        let connection = try start(config: "[Limits]\nHistoryBytes=2M\n", ["App/en.lproj/Localizable.strings": table(0)])
        let first = try connection.send(Hello(client: "tests")).clock
        let before = try daemon.residentBytes()
        for round in 1...200 {
            try daemon.write("App/en.lproj/Localizable.strings", table(round))
            // Each save published on its own (saves faster than the daemon reads are folded into one).
            _ = try connection.send(Sync(), timeout: .seconds(60))
        }
        _ = try connection.send(Sync(), timeout: .seconds(60))
        let counters = try connection.send(Status()).counters
        XCTAssertLessThanOrEqual(counters["history-bytes"] ?? .max, 2 << 20)
        XCTAssertGreaterThan(counters["history-events"] ?? 0, 0)
        XCTAssertGreaterThanOrEqual(counters["events"] ?? 0, 150, "most saves were published on their own")
        XCTAssertTrue(try connection.send(Subscribe(name: "late", since: first)).fresh, "older than the history: fresh (\(counters))")
        // 200 events of ~190 KB each were published: kept, they would be ~38 MB.
        XCTAssertLessThan(try daemon.residentBytes() - before, 24 << 20, "the daemon grew as if it kept every event")
    }

    func testSnapshotOfABundleThatDoesNotExistIsNotFound() throws {
        let connection = try start(["App/en.lproj/Localizable.strings": "\"a\" = \"1\";\n"])
        XCTAssertThrowsError(try connection.send(Snapshot(bundle: daemon.path("Nope")))) { error in
            guard case DaemonConnection.Failure.refused(let refusal) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(refusal.code, .notFound)
            XCTAssertEqual(refusal.field, "bundle")
        }
        XCTAssertEqual(try connection.send(Snapshot(bundle: daemon.path("App"))).tables.count, 1)
    }
}

