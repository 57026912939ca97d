import Foundation
@testable import LprojClient
import LprojProtocol
import LprojTables
import XCTest

/// LiveBundle with no daemon: the files on disk, the environment, a local choice.
final class LiveBundleOfflineTests: XCTestCase {
    private var directory: String!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "/livebundle-\(UUID().uuidString)"
        try write("Resources/en.lproj/Localizable.strings", "\"home_title\" = \"Home\";\n\"welcome\" = \"Welcome, %@!\";\n\"only_en\" = \"English only\";\n")
        try write("Resources/zh-Hant.lproj/Localizable.strings", "\"home_title\" = \"首頁\";\n\"welcome\" = \"歡迎，%@！\";\n")
        try write("Resources/ar.lproj/Localizable.strings", "\"home_title\" = \"الرئيسية\";\n")
        try write("Resources/en.lproj/Localizable.stringsdict", """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>item_count</key><dict>
              <key>NSStringLocalizedFormatKey</key><string>%#@items@</string>
              <key>items</key><dict>
                <key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>
                <key>NSStringFormatValueTypeKey</key><string>ld</string>
                <key>one</key><string>%ld item</string>
                <key>other</key><string>%ld items</string>
              </dict></dict></dict></plist>
            """)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func testFollowsTheEnvironmentAndResolvesAsAppleDoes() throws {
        let bundle = try make(environment: ["LANG": "zh_HK.UTF-8"])
        XCTAssertEqual(bundle.language, "zh-Hant", "zh-HK finds zh-Hant")
        XCTAssertNil(bundle.selectedLanguage)
        XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "首頁")
        XCTAssertEqual(bundle.localizedString(format: "welcome", "Ada"), "歡迎，Ada！")
        // Apple's rule: zh-Hant has the table, so a key missing there is missing (no per-key fallback by default).
        XCTAssertEqual(bundle.localizedString(forKey: "only_en", value: "fallback", table: nil), "fallback")
        XCTAssertEqual(bundle.localizedString(forKey: "nope", value: "", table: nil), "nope", "never an empty string")
        let nope = try XCTUnwrap(bundle.misses.first { $0.key.key == "nope" })
        XCTAssertEqual(nope.value, 1)
        XCTAssertEqual(nope.key.language, "zh-Hant")
        XCTAssertEqual(nope.key.answer, .key)
        XCTAssertEqual(nope.key.languages.first, "zh-Hant")
        XCTAssertEqual(bundle.misses.first { $0.key.key == "only_en" }?.key.answer, .default)
        XCTAssertEqual(NSLocalizedString("home_title", bundle: bundle.foundationBundle, comment: ""), "首頁")
        XCTAssertEqual(bundle.layoutDirection, .leftToRight)
    }

    func testPluralsFormattingAndTheActiveLocale() throws {
        let bundle = try make(environment: ["LANG": "en_US.UTF-8"])
        XCTAssertEqual(bundle.localizedString(format: "item_count", 1), "1 item")
        XCTAssertEqual(bundle.localizedString(format: "item_count", 1000), "1,000 items")
        XCTAssertEqual(bundle.string(from: 1234.5), "1,234.5")
        try bundle.setLanguage("ar")
        XCTAssertEqual(bundle.layoutDirection, .rightToLeft)
        XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "الرئيسية")
        XCTAssertEqual(bundle.string(from: Date(timeIntervalSince1970: 0), dateStyle: .long, timeZone: TimeZone(identifier: "UTC")!),
                       DateFormatterCheck.long(Date(timeIntervalSince1970: 0), locale: Locale(identifier: "ar")))
    }

    func testSetLanguageIsPersistedLocallyAndSystemClearsIt() throws {
        let environment = ["LANG": "en_US.UTF-8"]
        let bundle = try make(environment: environment)
        let recorder = ChangeRecorder()
        let token = bundle.observe { recorder.append($0) }
        try bundle.setLanguage("zh-Hant")
        XCTAssertEqual(bundle.language, "zh-Hant")
        XCTAssertEqual(try String(contentsOfFile: directory + "/config/lprojd/com.example.test.language", encoding: .utf8), "zh-Hant\n")
        XCTAssertEqual(try make(environment: environment).language, "zh-Hant", "a new process starts in the chosen language")
        try bundle.setLanguage("system")
        XCTAssertEqual(bundle.language, "en")
        XCTAssertEqual(try make(environment: environment).language, "en")
        XCTAssertThrowsError(try bundle.setLanguage("not a tag"))
        XCTAssertEqual(recorder.changes.map(\.newLanguage), ["zh-Hant", "en"], "one change per swap")
        XCTAssertEqual(recorder.changes.first?.oldLanguage, "en")
        token.cancel()
    }

    func testEachSwapIsPostedOnNotificationCenterAndTheAsyncSequence() async throws {
        let bundle = try make(environment: ["LANG": "en_US.UTF-8"])
        let posted = ChangeRecorder()
        let observer = NotificationCenter.default.addObserver(forName: LiveBundle.didChangeNotification, object: nil, queue: nil) { note in
            if (note.object as? LiveBundle) === bundle, let change = note.userInfo?["change"] as? LiveBundle.Change { posted.append(change) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        var iterator = bundle.changes.makeAsyncIterator()
        try bundle.setLanguage("zh-Hant")
        let streamed = await iterator.next()
        XCTAssertEqual(streamed?.newLanguage, "zh-Hant")
        XCTAssertEqual(posted.changes.map(\.newLanguage), ["zh-Hant"])
        XCTAssertEqual(posted.changes.first?.oldLanguage, "en")
    }

    func testReadersNeverSeeATornStateAcrossAThousandSwaps() throws {
        let bundle = try make(environment: ["LANG": "en_US.UTF-8"])
        let done = ManagedAtomicFlag()
        let torn = ManagedAtomicFlag()
        let readers = (0..<8).map { _ in
            Thread {
                while !done.isSet {
                    let snapshot = bundle.core.snapshot
                    let a = snapshot.entry(forKey: "a", table: "Localizable")?.text
                    let b = snapshot.entry(forKey: "b", table: "Localizable")?.text
                    if a != b { torn.set() }
                    // The public API: one lookup is one snapshot.
                    _ = bundle.localizedString(forKey: "a", value: nil, table: nil)
                }
            }
        }
        readers.forEach { $0.start() }
        let recorder = ChangeRecorder()
        let token = bundle.observe { recorder.append($0) }
        for round in 1...1000 {
            let value = "v\(round)"
            bundle.core.replaceTables(["en": ["Localizable": Table(strings: ["a": value, "b": value])]])
        }
        done.set()
        XCTAssertFalse(torn.isSet, "a reader saw a and b from different swaps")
        XCTAssertEqual(recorder.changes.count, 1000)
        XCTAssertEqual(bundle.localizedString(forKey: "a", value: nil, table: nil), "v1000")
        token.cancel()
    }

    /// A language the daemon announces is selected and persisted, unless a
    /// selection made in this process is still on its way (then it is newer
    /// than the announcement, which changes nothing and writes nothing).
    func testAnAnnouncementDoesNotUndoASelectionStillOnItsWay() throws {
        let bundle = try make(environment: ["LANG": "en_US.UTF-8"])
        let recorder = ChangeRecorder()
        let token = bundle.observe { recorder.append($0) }
        defer { token.cancel() }
        try bundle.setLanguage("zh-Hant")
        XCTAssertEqual(recorder.changes.count, 1)

        bundle.core.selectAnnounced("ar") { true }
        XCTAssertEqual(bundle.language, "zh-Hant", "superseded: not applied")
        XCTAssertEqual(bundle.core.choice.load(), "zh-Hant", "superseded: not persisted")
        XCTAssertEqual(recorder.changes.count, 1)

        bundle.core.selectAnnounced("ar") { false }
        XCTAssertEqual(bundle.language, "ar")
        XCTAssertEqual(bundle.core.choice.load(), "ar")
        XCTAssertEqual(recorder.changes.count, 2)
    }

    // MARK: helpers

    private func make(environment: [String: String]) throws -> LiveBundle {
        var options = LiveBundle.Options()
        options.connects = false
        options.recordsMisses = true
        options.environment = environment.merging(["XDG_CONFIG_HOME": directory + "/config"]) { $1 }
        return try LiveBundle(path: directory + "/Resources", app: "com.example.test", options: options)
    }

    private func write(_ relative: String, _ text: String) throws {
        let url = URL(fileURLWithPath: directory + "/" + relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }
}

/// Changes as an observer saw them, from any thread.
final class ChangeRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [LiveBundle.Change] = []
    var changes: [LiveBundle.Change] { lock.withLock { recorded } }
    func append(_ change: LiveBundle.Change) { lock.withLock { recorded.append(change) } }
}

/// A flag threads can set and read.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

enum DateFormatterCheck {
    static func long(_ date: Date, locale: Locale) -> String {
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.dateStyle = .long
        formatter.timeStyle = .none
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
