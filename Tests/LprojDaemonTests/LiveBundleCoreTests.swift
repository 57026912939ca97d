import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import XCTest

/// A `LiveBundle` driven in this process against the daemon's core
/// (`CoreServer`: real inotify, the core's own decisions, socket pairs
/// through `DaemonTransport`): live saves, views, selections. What only the
/// binaries prove (a daemon killed and restarted, `lproj-demo` under tmux,
/// `lprojctl select`) stays in LiveBundleTests.
final class LiveBundleCoreTests: XCTestCase {
    private var server: CoreServer!
    private var config: String { server.directory + "/config" }

    override func setUpWithError() throws {
        server = try CoreServer(populate: { root in
            for (path, text) in [("App/en.lproj/Localizable.strings", "\"home_title\" = \"Home\";\n\"item\" = \"Item\";\n"),
                                 ("App/en.lproj/InfoPlist.strings", "\"marker\" = \"0\";\n"),
                                 ("App/zh-Hant.lproj/Localizable.strings", "\"home_title\" = \"首頁\";\n")] {
                try FileManager.default.createDirectory(atPath: root + "/" + (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(text.utf8).write(to: URL(fileURLWithPath: root + "/" + path))
            }
        })
    }

    override func tearDown() {
        server?.stop()
        server = nil
    }

    func testASavedTableChangesTheValueWithExactlyOneChange() throws {
        let bundle = try make()
        try awaitState(of: bundle) { bundle.isConnected }
        let recorder = Recorder()
        let token = bundle.observe { recorder.append($0) }
        try server.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Start\";\n\"item\" = \"Item\";\n")
        try awaitState(of: bundle) { bundle.localizedString(forKey: "home_title", value: nil, table: nil) == "Start" }
        // A later change on the same connection: anything owed for the first has arrived before it.
        try server.write("App/en.lproj/InfoPlist.strings", "\"marker\" = \"1\";\n")
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
        try server.write("App/Base.lproj/Main.storyboard", "base")
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
        try server.write("App/zh-Hant.lproj/Localizable.strings", "\"home_title\" = \"主頁\";\n")
        try server.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Start\";\n\"item\" = \"Item\";\n")
        try awaitState(of: bundle) { bundle.localizedString(forKey: "home_title", value: nil, table: nil) == "Start" }
        try awaitState(of: bundle) { bundle.localization(acceptLanguage: "zh-TW, en;q=0.5").localizedString(forKey: "home_title", value: nil, table: nil) == "主頁" }
        XCTAssertEqual(before.localizedString(forKey: "home_title", value: nil, table: nil), "Home", "the old view is as it was")
        XCTAssertEqual(request.localizedString(forKey: "home_title", value: nil, table: nil), "首頁")
        XCTAssertEqual(bundle.current.localizedString(forKey: "home_title", value: nil, table: nil), "Start")
    }
    func testSetLanguageGoesThroughTheDaemonToEveryProcessOfTheApp() throws {
        let first = try make(), second = try make()
        try awaitState(of: first) { first.isConnected }
        try awaitState(of: second) { second.isConnected }
        try first.setLanguage("zh-Hant")
        XCTAssertEqual(first.language, "zh-Hant")
        try awaitState(of: second) { second.language == "zh-Hant" }
        XCTAssertEqual(second.localizedString(forKey: "home_title", value: nil, table: nil), "首頁")
        let hello = try server.connect().send(Hello(client: "t", app: "com.example.live"))
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
        try server.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Start\";\n\"item\" = \"Item\";\n")
        try awaitState(of: bundle) { bundle.localizedString(forKey: "home_title", value: nil, table: nil) == "Šţáŕţ" }
        try bundle.setLanguage("ar-XB")
        XCTAssertEqual(bundle.current.layoutDirection, .rightToLeft)
        XCTAssertEqual(bundle.localizedString(forKey: "item", value: nil, table: nil), "\u{202E}Item\u{202C}")
        let before = recorder.changes.count
        try bundle.setLanguage("en")
        XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Start")
        XCTAssertEqual(recorder.changes.count, before + 1, "one change to switch back: \(recorder.changes)")
        // The daemon's lookup knows them too (lprojctl get --live --language en-XE).
        let reply = try server.connect().send(Lookup(bundle: server.path("App"), key: "home_title", languages: ["en-XE"]))
        XCTAssertEqual(reply.text, "[# Start #]")
    }
    /// Quick `setLanguage` calls from one process reach the daemon in call
    /// order, and no echo of an older choice replaces the newest one.
    func testQuickSelectionsArriveInCallOrderAndTheNewestStays() throws {
        let bundle = try make()
        try awaitState(of: bundle) { bundle.isConnected }
        let tool = try server.connect()
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
        try server.write("App/en.lproj/InfoPlist.strings", "\"marker\" = \"after\";\n")
        try awaitState(of: bundle) { recorder.changes.contains { $0.changedKeys["InfoPlist"] != nil } }
        XCTAssertEqual(bundle.selectedLanguage, "ja")
        XCTAssertFalse(recorder.changes[afterLastCall...].contains { $0.languageChanged }, "an older echo changed the language")
        XCTAssertEqual(try server.connect().send(Hello(client: "t", app: "com.example.live")).language, "ja")
        token.cancel()
    }
    /// The daemon owns the selection: a choice left in the local file is
    /// served only until the daemon answers with its own.
    func testTheDaemonsSelectionWinsOverTheLocalFile() throws {
        let tool = try server.connect()
        _ = try tool.send(SelectLanguage(app: "com.example.live", language: "zh-Hant"))
        try FileManager.default.createDirectory(atPath: config + "/lprojd", withIntermediateDirectories: true)
        try Data("ja\n".utf8).write(to: URL(fileURLWithPath: config + "/lprojd/com.example.live.language"))
        let bundle = try make()
        try awaitState(of: bundle) { bundle.isConnected && bundle.selectedLanguage == "zh-Hant" }
        XCTAssertEqual(bundle.language, "zh-Hant")
        XCTAssertEqual(try String(contentsOfFile: config + "/lprojd/com.example.live.language", encoding: .utf8), "zh-Hant\n",
                       "the local file follows the daemon, for the next start without one")
    }

    // MARK: helpers

    private func make() throws -> LiveBundle {
        var options = LiveBundle.Options()
        options.transport = server.transport
        options.environment = ["LANG": "en_US.UTF-8", "XDG_CONFIG_HOME": config]
        return try LiveBundle(path: server.root + "/App", app: "com.example.live", options: options)
    }
}

private final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [LiveBundle.Change] = []
    var changes: [LiveBundle.Change] { lock.withLock { recorded } }
    func append(_ change: LiveBundle.Change) { lock.withLock { recorded.append(change) } }
}
