import CLinux
import Foundation
@testable import LprojClient
import LprojProcessTesting
import LprojProtocol
import LprojTables
import XCTest

/// Tables shared across a service's processes: LiveBundle maps the images
/// lprojd makes (read-only, sealed) instead of parsing, reads only the
/// localizations its views need, keeps answering from an image while the
/// daemon moves on, and falls back to the files when an image is refused.
final class SharedTablesTests: XCTestCase {
    private var daemon: DaemonProcess!
    private var config: String { daemon.directory + "/config" }

    override func setUpWithError() throws {
        daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Home\";\n\"item\" = \"Item\";\n")
        try daemon.write("App/en.lproj/Localizable.stringsdict", Self.pluralRule)
        try daemon.write("App/fr.lproj/Localizable.strings", "\"home_title\" = \"Accueil\";\n")
        try daemon.write("App/de.lproj/Localizable.strings", "\"home_title\" = \"Start\";\n")
        try daemon.write("App/ja.lproj/Localizable.strings", "\"home_title\" = \"ホーム\";\n")
        try daemon.start()
    }

    override func tearDown() {
        if let daemon { XCTAssertEqual(daemon.stop(), 0) }
        daemon = nil
    }

    func testABundleMapsTheDaemonsImagesOfOnlyTheLocalizationsItsViewsNeed() throws {
        let bundle = try make(language: "fr")
        defer { bundle.close() }
        XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Accueil")
        XCTAssertEqual(bundle.localizations, ["de", "en", "fr", "ja"])
        // The first views read the files; connected, the bundle reads them again from the daemon's images.
        try awaitState(of: bundle) { bundle.isConnected }
        let tables = bundle.core.snapshot.tables
        XCTAssertEqual(tables["fr"]?.loaded?["Localizable"]?.isMapped, true, "read from the daemon's image, not parsed")
        XCTAssertNotNil(tables["en"]?.loaded, "the development localization ends the search list")
        XCTAssertNil(tables["de"]?.loaded, "a localization no view needs is not read")
        XCTAssertNil(tables["ja"]?.loaded)
        // A view that needs one reads it then, from its image too.
        XCTAssertEqual(bundle.localization(acceptLanguage: "de").localizedString(forKey: "home_title", value: nil, table: nil), "Start")
        XCTAssertEqual(bundle.core.snapshot.tables["de"]?.loaded?["Localizable"]?.isMapped, true)
        XCTAssertNil(bundle.core.snapshot.tables["ja"]?.loaded)
        // A rule from an image's JSON part formats as one parsed here does.
        XCTAssertEqual(bundle.localization(preferences: ["en"]).localizedString(format: "files", 1), "1 file")
        XCTAssertEqual(bundle.localization(preferences: ["en"]).localizedString(format: "files", 3), "3 files")
    }

    func testProcessesShareOneImagePerTable() throws {
        let bundles = try (0..<3).map { _ in try make(language: "fr") }
        defer { bundles.forEach { $0.close() } }
        for bundle in bundles { try awaitState(of: bundle) { bundle.isConnected } }
        for bundle in bundles { XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Accueil") }
        // fr and en (.strings and .stringsdict make one Localizable) once each, however many bundles asked.
        let counters = try daemon.connect().send(Status()).counters
        XCTAssertEqual(counters["images-made"], 2, "\(counters)")
        // One request per bundle, when it connects, for the whole chain its first views read from the files.
        XCTAssertEqual(counters["images-requests"], 3, "\(counters)")
    }

    func testASaveSwapsInANewImageAndAViewKeepsTheOldOneEvenWhenTheDaemonIsGone() throws {
        let bundle = try make(language: "fr")
        defer { bundle.close() }
        try awaitState(of: bundle) { bundle.isConnected }
        let before = bundle.current
        let recorder = ChangeLog()
        let token = bundle.observe { recorder.append($0) }
        defer { token.cancel() }
        let requestsBefore = try daemon.connect().send(Status()).counters["images-requests"]
        try daemon.write("App/fr.lproj/Localizable.strings", "\"home_title\" = \"Maison\";\n\"item\" = \"Article\";\n")
        try awaitState(of: bundle) { bundle.localizedString(forKey: "home_title", value: nil, table: nil) == "Maison" }
        XCTAssertEqual(bundle.localizedString(forKey: "item", value: nil, table: nil), "Article")
        XCTAssertEqual(recorder.changes.last?.changedKeys["Localizable"], ["home_title", "item"])
        XCTAssertEqual(bundle.core.snapshot.tables["fr"]?.loaded?["Localizable"]?.isMapped, true, "the new image came with the event")
        XCTAssertEqual(try daemon.connect().send(Status()).counters["images-requests"], requestsBefore, "and was not asked for")
        // The event is applied at once; the new image replaces the patched table after it, silently. A later save on the
        // same connection is applied after that.
        try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Home\";\n\"item\" = \"Thing\";\n")
        try awaitState(of: bundle) { recorder.changes.contains { $0.changedKeys["Localizable"] == ["item"] } }
        XCTAssertEqual(bundle.core.snapshot.tables["fr"]?.loaded?["Localizable"]?.isMapped, true, "the new image, mapped")
        XCTAssertEqual(recorder.changes.count, 2, "one change a save: the image's swap is silent")
        XCTAssertEqual(before.localizedString(forKey: "home_title", value: nil, table: nil), "Accueil", "the old view reads the old image")
        daemon.killHard()
        try awaitState(of: bundle) { !bundle.isConnected }
        // The daemon's descriptors are gone with it: the mappings are the processes' own.
        XCTAssertEqual(before.localizedString(forKey: "home_title", value: nil, table: nil), "Accueil")
        XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Maison")
        try daemon.start()
    }

    func testWithImagesOffOrSharingOffTheFilesAreParsed() throws {
        var options = LiveBundle.Options()
        options.socketPath = daemon.socket
        options.environment = ["LANG": "fr_FR.UTF-8", "XDG_CONFIG_HOME": config, "LPROJD_SHARED_TABLES": "off"]
        let unshared = try LiveBundle(path: daemon.root + "/App", options: options)
        defer { unshared.close() }
        XCTAssertEqual(unshared.localizedString(forKey: "home_title", value: nil, table: nil), "Accueil")
        XCTAssertEqual(unshared.core.snapshot.tables["fr"]?.loaded?["Localizable"]?.isMapped, false)

        // A daemon with images off: a reload turns them off.
        XCTAssertEqual(daemon.stop(), 0)
        daemon = try DaemonProcess(config: "[Limits]\nSharedImages=4\n")
        let root = daemon.root
        try daemon.write("App/fr.lproj/Localizable.strings", "\"home_title\" = \"Accueil\";\n")
        try daemon.start()
        XCTAssertEqual(try daemon.connect().images(Images(bundle: root + "/App")).tables.count, 1)
        try daemon.rewriteConfig("[Limits]\nSharedImages=0\n")
        daemon.signal(SIGHUP)
        let tool = try daemon.connect()
        try awaitCondition { (try? tool.send(Images(bundle: root + "/App"))) == nil }
        XCTAssertThrowsError(try tool.images(Images(bundle: daemon.root + "/App"))) { error in
            XCTAssertTrue("\(error)".contains("SharedImages=0"), "\(error)")
        }
        let bundle = try make(language: "fr")
        defer { bundle.close() }
        XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Accueil")
        XCTAssertEqual(bundle.core.snapshot.tables["fr"]?.loaded?["Localizable"]?.isMapped, false)
    }

    func testImagesRequestsAreCheckedLikeEveryOther() throws {
        let tool = try daemon.connect()
        let reply = try tool.images(Images(bundle: daemon.root + "/App", languages: ["fr", "en"]))
        XCTAssertEqual(reply.tables.map { "\($0.image.language)/\($0.image.table)" }, ["en/Localizable", "fr/Localizable"])
        XCTAssertEqual(try reply.tables[1].table.get()["home_title"]?.text, "Accueil")
        XCTAssertEqual(reply.tables[0].image.entries, 3)
        XCTAssertEqual(try tool.images(Images(bundle: daemon.root + "/App", languages: ["xx"])).tables.count, 0)
        XCTAssertThrowsError(try tool.images(Images(bundle: "/nowhere"))) { XCTAssertTrue("\($0)".contains("outside"), "\($0)") }
        XCTAssertThrowsError(try tool.images(Images(bundle: daemon.root + "/Missing"))) { XCTAssertTrue("\($0)".contains("no bundle"), "\($0)") }
        let many = (0..<(Images.maximumCount + 1)).map { "T\($0)" }
        for name in many { try daemon.write("Big/en.lproj/\(name).strings", "\"k\" = \"v\";\n") }
        try awaitCondition { (try? tool.send(Snapshot(bundle: self.daemon.root + "/Big")))?.tables.count == many.count }
        XCTAssertThrowsError(try tool.images(Images(bundle: daemon.root + "/Big"))) { XCTAssertTrue("\($0)".contains("at most 200"), "\($0)") }
        XCTAssertEqual(try tool.images(Images(bundle: daemon.root + "/Big", tables: ["T1", "T2"])).tables.count, 2)
    }

    /// At most `SharedImages=` images are kept: past it the one asked for least recently goes, a client that mapped it
    /// keeps reading it, and the next client to ask gets a new one.
    func testTheShelfKeepsAtMostItsBoundAndMappedImagesOutliveIt() throws {
        XCTAssertEqual(daemon.stop(), 0)
        daemon = try DaemonProcess(config: "[Limits]\nSharedImages=1\n")
        try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Home\";\n")
        try daemon.write("App/fr.lproj/Localizable.strings", "\"home_title\" = \"Accueil\";\n")
        try daemon.start()
        let tool = try daemon.connect()
        let both = try tool.images(Images(bundle: daemon.root + "/App")).tables.map { try $0.table.get() }
        XCTAssertEqual(both.map { $0["home_title"]?.text }, ["Home", "Accueil"], "two at once, past the bound, are both sent")
        _ = try tool.images(Images(bundle: daemon.root + "/App", languages: ["fr"]))
        var counters = try tool.send(Status()).counters
        XCTAssertEqual(counters["images-made"], 2, "fr was kept (asked for last): \(counters)")
        _ = try tool.images(Images(bundle: daemon.root + "/App", languages: ["en"]))
        counters = try tool.send(Status()).counters
        XCTAssertEqual(counters["images-made"], 3, "en was dropped, so it is made again: \(counters)")
        // The first mappings are the client's own: still read after the daemon closed its descriptors for them.
        XCTAssertEqual(both.map { $0["home_title"]?.text }, ["Home", "Accueil"])
        let pid = try tool.send(Status()).pid
        /// The daemon's descriptors of memory files (its images).
        func images() throws -> Int {
            try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").filter {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)"))?.hasPrefix("/memfd:") == true
            }.count
        }
        for language in ["fr", "en", "fr", "en"] {
            _ = try tool.images(Images(bundle: daemon.root + "/App", languages: [language]))
            // The shelf is trimmed once the reply is written: a later reply on the same connection comes after that.
            _ = try tool.send(Status())
            XCTAssertEqual(try images(), 1, "the daemon holds one image's descriptor, however often images are made")
        }
    }

    // MARK: - Hostile images

    /// Whatever a peer sends as an image — damaged, cut short, of a later
    /// version, in a file still writable, or missing — the bundle reads the
    /// files instead and answers the same.
    func testRefusedImagesFallBackToTheFiles() throws {
        let good = TableImage.encode(Table(strings: ["home_title": "Forged"]))
        var flipped = good
        flipped[good.count - 3] ^= 0x20
        var future = good
        future[8] = UInt8(TableImage.version + 1)
        let cases: [(String, ImageServer.Answer)] = [
            ("a flipped byte", .sealed([flipped])),
            ("a truncated image", .sealed([Array(good.prefix(good.count - 8))])),
            ("an image of a later version", .sealed([future])),
            ("an unsealed file", .unsealed(good)),
            ("fewer descriptors than images", .sealed([])),
        ]
        // The same peer with a good image: it is mapped (so each refusal above is the image's doing).
        let control = try ImageServer(directory: daemon.directory, answer: .sealed([good]))
        var controlOptions = LiveBundle.Options()
        controlOptions.socketPath = control.path
        controlOptions.environment = ["LANG": "fr_FR.UTF-8", "XDG_CONFIG_HOME": config]
        let mapped = try LiveBundle(path: daemon.root + "/App", options: controlOptions)
        try awaitState(of: mapped) { mapped.isConnected }
        XCTAssertEqual(mapped.localizedString(forKey: "home_title", value: nil, table: nil), "Forged")
        XCTAssertEqual(mapped.core.snapshot.tables["fr"]?.loaded?["Localizable"]?.isMapped, true)
        mapped.close()
        control.stop()
        for (name, answer) in cases {
            let server = try ImageServer(directory: daemon.directory, answer: answer)
            var options = LiveBundle.Options()
            options.socketPath = server.path
            options.environment = ["LANG": "fr_FR.UTF-8", "XDG_CONFIG_HOME": config]
            let bundle = try LiveBundle(path: daemon.root + "/App", options: options)
            try awaitState(of: bundle) { bundle.isConnected }
            XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Accueil", name)
            XCTAssertEqual(bundle.core.snapshot.tables["fr"]?.loaded?["Localizable"]?.isMapped, false, name)
            XCTAssertGreaterThan(server.requests, 0, "\(name): the image was asked for")
            bundle.close()
            server.stop()
        }
    }

    /// An image that comes with a `table-changed` event is refused as one
    /// from a reply is (damaged, cut short, of a later version, writable);
    /// the bundle then asks for the table's image, as it does when none
    /// came. A good one is mapped without asking.
    func testARefusedImageWithAnEventIsAskedForAgain() throws {
        let good = TableImage.encode(Table(strings: ["home_title": "Forged"]))
        let again = TableImage.encode(Table(strings: ["home_title": "Asked again"]))
        let evented = TableImage.encode(Table(strings: ["home_title": "Evented"]))
        var flipped = evented
        flipped[evented.count - 3] ^= 0x20
        var future = evented
        future[8] = UInt8(TableImage.version + 1)
        let cases: [(String, ImageServer.Answer, expected: String, requests: Int)] = [
            ("a good image", .sealed([evented]), "Evented", 1),
            ("a flipped byte", .sealed([flipped]), "Asked again", 2),
            ("a truncated image", .sealed([Array(evented.prefix(evented.count - 8))]), "Asked again", 2),
            ("an image of a later version", .sealed([future]), "Asked again", 2),
            ("an unsealed file", .unsealed(evented), "Asked again", 2),
        ]
        for (name, eventImage, expected, requests) in cases {
            let server = try ImageServer(directory: daemon.directory, answer: .sealed([good]), eventImage: eventImage,
                                         laterAnswer: .sealed([again]))
            var options = LiveBundle.Options()
            options.socketPath = server.path
            options.environment = ["LANG": "fr_FR.UTF-8", "XDG_CONFIG_HOME": config]
            let bundle = try LiveBundle(path: daemon.root + "/App", options: options)
            // The first view reads the files, the connection maps the reply's image; the event then replaces it (its
            // image, else the one asked for again).
            XCTAssertEqual(bundle.current.localizedString(forKey: "home_title", value: nil, table: nil).isEmpty, false, name)
            try awaitState(of: bundle) { bundle.localizedString(forKey: "home_title", value: nil, table: nil) == expected }
            XCTAssertEqual(bundle.core.snapshot.tables["fr"]?.loaded?["Localizable"]?.isMapped, true, name)
            XCTAssertEqual(server.requests, requests, name)
            bundle.close()
            server.stop()
        }
    }

    /// A daemon that does not answer costs one wait (`SharingState.timeout`), not one a view: it is left alone for a while.
    func testADaemonThatDoesNotAnswerIsWaitedForOnce() throws {
        let server = try ImageServer(directory: daemon.directory, answer: .silent)
        defer { server.stop() }
        var options = LiveBundle.Options()
        options.socketPath = server.path
        options.environment = ["LANG": "fr_FR.UTF-8", "XDG_CONFIG_HOME": config]
        let bundle = try LiveBundle(path: daemon.root + "/App", options: options)
        defer { bundle.close() }
        // The first views never wait on the daemon: they read the files.
        XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Accueil")
        XCTAssertEqual(bundle.core.snapshot.tables["fr"]?.loaded?["Localizable"]?.isMapped, false)
        // The connection asks for the images of what they read; no answer comes.
        try awaitState(of: bundle) { server.requests == 1 }
        XCTAssertEqual(bundle.localization(acceptLanguage: "de").localizedString(forKey: "home_title", value: nil, table: nil), "Start")
        XCTAssertEqual(bundle.localization(acceptLanguage: "ja").localizedString(forKey: "home_title", value: nil, table: nil), "ホーム")
        try awaitState(of: bundle) { bundle.isConnected }
        XCTAssertEqual(bundle.localization(acceptLanguage: "ja").localizedString(forKey: "home_title", value: nil, table: nil), "ホーム")
        XCTAssertEqual(server.requests, 1, "asked once; the views after it read the files at once")
        XCTAssertEqual(bundle.core.snapshot.tables["de"]?.loaded?["Localizable"]?.isMapped, false)
    }

    // MARK: - Helpers

    private static let pluralRule = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>files</key><dict>
        <key>NSStringLocalizedFormatKey</key><string>%#@n@</string>
        <key>n</key><dict><key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>
        <key>NSStringFormatValueTypeKey</key><string>d</string>
        <key>one</key><string>%d file</string><key>other</key><string>%d files</string></dict>
        </dict></dict></plist>
        """

    private func make(language: String) throws -> LiveBundle {
        var options = LiveBundle.Options()
        options.socketPath = daemon.socket
        options.environment = ["LANG": "\(language).UTF-8", "LANGUAGE": language, "XDG_CONFIG_HOME": config]
        return try LiveBundle(path: daemon.root + "/App", options: options)
    }

    private func awaitCondition(_ condition: () -> Bool) throws {
        // The daemon answers requests in order: each try is a round trip, never a sleep.
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw DaemonTestError("condition not reached") }
            _ = try daemon.connect().send(Sync(), timeout: .seconds(5))
        }
    }
}

private final class ChangeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [LiveBundle.Change] = []
    var changes: [LiveBundle.Change] { lock.withLock { recorded } }
    func append(_ change: LiveBundle.Change) { lock.withLock { recorded.append(change) } }
}

/// A peer on a Unix socket that answers `images` as the test says (one
/// `en`/`fr` Localizable image listed, with what `answer` gives as its
/// descriptors), hello and subscribe as lprojd does, and refuses every
/// other request.
private final class ImageServer: @unchecked Sendable {
    enum Answer {
        /// These images in sealed memory files, one descriptor each.
        case sealed([[UInt8]])
        /// This image in a plain file (writable by its owner).
        case unsealed([UInt8])
        /// No answer at all (a daemon that hangs).
        case silent
    }

    let path: String
    private let listener: Int32
    private let answer: Answer
    /// When set, the peer answers hello and subscribe as lprojd does and then
    /// sends one `table-changed` event of fr's table with these images attached.
    private let eventImage: Answer?
    /// What `images` requests after the first are answered with (default: `answer`).
    private let laterAnswer: Answer?
    private let lock = NSLock()
    private var served = 0
    private var stopped = false
    var requests: Int { lock.withLock { served } }

    init(directory: String, answer: Answer, eventImage: Answer? = nil, laterAnswer: Answer? = nil) throws {
        path = directory + "/fake-\(UInt32.random(in: 0...UInt32.max)).sock"
        self.answer = answer
        self.eventImage = eventImage
        self.laterAnswer = laterAnswer
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard listener >= 0, bound == 0, listen(listener, 16) == 0 else {
            throw DaemonTestError("cannot listen at \(path) (socket \(listener), bind \(bound)): \(String(cString: strerror(errno)))")
        }
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    func stop() {
        lock.withLock { stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 { if lock.withLock({ stopped }) { close(listener); return } else { continue } }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var framer = LineFramer(maximumLineLength: 1 << 20)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            for case .line(let line) in framer.append(buffer.prefix(count)) {
                guard case .success(let header) = Wire.header(of: line) else { return }
                if header.op == Hello.op || header.op == Subscribe.op {
                    let fresh = header.op == Subscribe.op && (try? Wire.decode(Subscribe.self, from: Array(line), id: header.id).get())?.since == nil
                    answerAsTheDaemon(header.op, id: header.id, on: connection, fresh: fresh, eventImage: eventImage)
                    continue
                }
                guard header.op == Images.op else {
                    _ = Wire.failure(ProtocolError(.unknownOperation, "a test peer"), to: header.id).withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    continue
                }
                let number = lock.withLock { served += 1; return served }
                let answer = number > 1 ? laterAnswer ?? self.answer : self.answer
                if case .silent = answer { continue }
                let reply = Images.Reply(clock: Clock(instance: "test", sequence: 1),
                                         images: [ImageSummary(language: "fr", table: "Localizable", entries: 1)])
                guard let line = try? Wire.reply(reply, to: header.id) else { return }
                let descriptors = self.descriptors(of: answer)
                _ = line.withUnsafeBytes { lproj_send_with_descriptors(connection, $0.baseAddress, $0.count, descriptors, Int32(descriptors.count)) }
                descriptors.forEach { close($0) }
            }
        }
    }

    /// Hello and subscribe answered (`fresh` as lprojd answers a subscription
    /// without a clock); after subscribe, with an `eventImage`, one
    /// `table-changed` event with its descriptors.
    private func answerAsTheDaemon(_ op: String, id: RequestID, on connection: Int32, fresh: Bool, eventImage: Answer?) {
        let clock = Clock(instance: "test", sequence: 1)
        let line = op == Hello.op
            ? try? Wire.reply(Hello.Reply(instance: "test", clock: clock, server: "test peer"), to: id)
            : try? Wire.reply(Subscribe.Reply(clock: clock, fresh: fresh), to: id)
        guard let line else { return }
        _ = line.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard op == Subscribe.op, let eventImage else { return }
        var event = TableChanged(clock: Clock(instance: "test", sequence: 2), bundle: "App", language: "fr", table: "Localizable",
                                 diff: TableDiff(from: Table(strings: ["home_title": "Forged"]), to: Table(strings: ["home_title": "Evented"])))
        event.image = true
        guard let body = try? Wire.eventBody(event) else { return }
        var eventLine: [UInt8] = []
        Wire.appendAddressed(body, prefix: Wire.eventPrefix(subscription: "live"), to: &eventLine)
        let descriptors = self.descriptors(of: eventImage)
        _ = eventLine.withUnsafeBytes { lproj_send_with_descriptors(connection, $0.baseAddress, $0.count, descriptors, Int32(descriptors.count)) }
        descriptors.forEach { close($0) }
    }

    private func descriptors(of answer: Answer) -> [Int32] {
        switch answer {
        case .sealed(let images):
            return images.map { image in image.withUnsafeBytes { lproj_sealed_memory_file("test", $0.baseAddress, $0.count) } }
        case .silent:
            return []
        case .unsealed(let image):
            let file = path + ".image"
            guard FileManager.default.createFile(atPath: file, contents: Data(image)) else { return [] }
            return [open(file, O_RDONLY)]
        }
    }
}
