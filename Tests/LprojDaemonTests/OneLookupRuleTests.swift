import Foundation
@testable import LprojBundles
import LprojClient
import LprojProtocol
import LprojTables
import LprojTestSupport
import XCTest
@testable import LprojDaemon

/// One lookup rule (`SearchPlan`, then the table resolved through it): the
/// daemon's `lookup`, `lprojctl get`'s `BundleLookup` and a `LiveBundle`'s
/// views give the same answer — search list, localization, text — for
/// random preference lists over real apps' bundles from the shared corpus.
/// And a request's view records its misses as the active view does.
final class OneLookupRuleTests: XCTestCase {
    private static let bundles = ["element-hq+element-x-ios/ElementX/Resources/Localizations", "sparkle-project+Sparkle/Sparkle",
                                  "transmission+transmission/macosx"]
    private static let tags = ["en", "en-GB", "en-AU", "en-IN", "en-CA", "de", "de-AT", "de-CH", "fr", "fr-CA", "fr-CH", "es", "es-MX",
                               "es-AR", "es-CL", "pt", "pt-PT", "pt-BR", "pt-AO", "zh", "zh-TW", "zh-HK", "zh-Hans", "zh-Hant", "zh-Hant-MO",
                               "ja", "ko", "ru", "uk", "be", "pl", "nb", "no", "nn", "sv", "it", "nl", "ar", "he", "iw", "fa", "tr",
                               "xx", "en-XA", "sr-Latn", "hi", "id", "in", "ms"]

    func testTheDaemonGetAndLiveBundleAnswerAlike() throws {
        let corpus = try corpusURL()
        var copied: [String: [String]] = [:]   // bundle in the harness's root → keys
        let harness = try CoreHarness({ _ in }) { root in
            for (index, relative) in Self.bundles.enumerated() {
                let destination = root + "/B\(index)"
                try FileManager.default.copyItem(atPath: corpus.appendingPathComponent(relative).path, toPath: destination)
                let bundle = try LocalizedBundle.load(path: destination)
                let keys = Set(bundle.tables.values.flatMap { $0.values.flatMap { $0.entries.keys } })
                copied[destination] = keys.sorted().prefix(40) + ["no-such-key"]
            }
        }
        let connection = try harness.connect()
        var random = SplitMix64(seed: 0x1007)
        var compared = 0
        for (path, keys) in copied.sorted(by: { $0.key < $1.key }) {
            let bundle = try LocalizedBundle.load(path: path)
            var options = LiveBundle.Options()
            options.connects = false
            options.environment = ["LANG": "C"]
            let live = try LiveBundle(path: path, options: options)
            for _ in 0..<60 {
                let preferences = (0..<(1 + random.next(3))).map { _ in Self.tags[random.next(Self.tags.count)] }
                let view = live.localization(preferences: preferences)
                for key in (0..<4).map({ _ in keys[random.next(keys.count)] }) {
                    let table = ["Localizable", "Sparkle", "InfoPlist"][random.next(3)]
                    let offline = BundleLookup(key: key, table: table, in: bundle, preferences: preferences)
                    let daemon = try connection.send(Lookup(bundle: path, key: key, table: table, languages: preferences))
                    let context = "\(path.split(separator: "/").last!) \(preferences) \(table)/\(key)"
                    XCTAssertEqual(daemon.chain, offline.searchList, context)
                    XCTAssertEqual(view.searchList, offline.searchList, context)
                    XCTAssertEqual(daemon.text, offline.resolution.text, context)
                    XCTAssertEqual(view.localizedString(forKey: key, value: nil, table: table), offline.resolution.text, context)
                    XCTAssertEqual(daemon.localization, offline.localization, context)
                    compared += 1
                }
            }
        }
        XCTAssertEqual(compared, Self.bundles.count * 60 * 4)
    }

    /// The development localization has one rule (`DevelopmentLocalization`, as CFBundle's): a bundle with en, fr and de
    /// whose Info.plist names fr ends a Japanese user's lookup with fr's text in `lprojctl get`'s lookup, the daemon's and a
    /// LiveBundle's, and `check` says of a key de lacks what a de user sees (the key itself: a table was found).
    func testTheInfoPlistsDevelopmentRegionEndsEveryLookup() throws {
        let harness = try CoreHarness({ _ in }) { root in
            for (language, text) in [("en", "\"k\" = \"EN\";\n"), ("fr", "\"k\" = \"FR\";\n"), ("de", "\"other\" = \"D\";\n")] {
                try FileManager.default.createDirectory(atPath: root + "/App/\(language).lproj", withIntermediateDirectories: true)
                try Data(text.utf8).write(to: URL(fileURLWithPath: root + "/App/\(language).lproj/Localizable.strings"))
            }
            try PropertyListSerialization.data(fromPropertyList: ["CFBundleDevelopmentRegion": "fr"], format: .xml, options: 0)
                .write(to: URL(fileURLWithPath: root + "/App/Info.plist"))
        }
        let path = harness.path("App")
        let bundle = try LocalizedBundle.load(path: path)
        XCTAssertEqual(DevelopmentLocalization.of(bundle), "fr")
        let offline = BundleLookup(key: "k", table: nil, in: bundle, preferences: ["ja"])
        XCTAssertEqual(offline.resolution.text, "FR")
        XCTAssertEqual(offline.searchList, ["fr"])
        let daemon = try harness.connect().send(Lookup(bundle: path, key: "k", languages: ["ja"]))
        XCTAssertEqual(daemon.text, "FR")
        XCTAssertEqual(daemon.localization, "fr")
        var options = LiveBundle.Options()
        options.connects = false
        options.environment = ["LANG": "C"]
        let live = try LiveBundle(path: path, options: options)
        XCTAssertEqual(live.localization(preferences: ["ja"]).localizedString(forKey: "k", value: nil, table: nil), "FR")
        let hint = BundleCheck(bundle: bundle).diagnostics().first { $0.message.hasPrefix("\"k\" is not translated into de") }
        XCTAssertEqual(hint?.message, "\"k\" is not translated into de: the key itself shows", "what a de user sees, from the same lookup")

        // The region as Apple matches it; a region the bundle lacks falls to en_US's match, as CFBundle's does.
        XCTAssertEqual(DevelopmentLocalization.choose(region: "fr_FR", among: ["de", "en", "fr"]), "fr")
        XCTAssertEqual(DevelopmentLocalization.choose(region: "pt", among: ["de", "en", "fr"]), "en")
        XCTAssertEqual(DevelopmentLocalization.choose(region: "pt", among: ["de", "English"]), "English")
        XCTAssertNil(DevelopmentLocalization.choose(region: nil, among: ["de", "ja"]))
    }

    func testARequestsViewRecordsItsMisses() throws {
        let directory = NSTemporaryDirectory() + "misses-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/en.lproj", withIntermediateDirectories: true)
        try Data("\"a\" = \"A\";\n".utf8).write(to: URL(fileURLWithPath: directory + "/en.lproj/Localizable.strings"))
        var options = LiveBundle.Options()
        options.connects = false
        options.recordsMisses = true
        options.environment = ["LANG": "C"]
        let live = try LiveBundle(path: directory, options: options)
        _ = live.localization(acceptLanguage: "de-CH, en;q=0.5").localizedString(forKey: "missing", value: nil, table: nil)
        _ = live.localization(preferences: ["fr"]).localizedString(format: "other", table: "Menu", 3)
        _ = live.localizedString(forKey: "a", value: nil, table: nil)
        let misses = live.misses.map { "\($0.key.table)/\($0.key.key) \($0.key.language ?? "-") ×\($0.value)" }.sorted()
        XCTAssertEqual(misses, ["Localizable/missing en ×1", "Menu/other en ×1"])
    }

    /// One call is one lookup: a plural rule the chosen table lacks, found in the development localization (a miss all the
    /// same), is recorded once, however the call comes (the bundle's hot path, a view, Foundation's `Bundle`).
    func testOneCallRecordsOneMiss() throws {
        let directory = NSTemporaryDirectory() + "one-miss-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for language in ["en", "fr"] { try FileManager.default.createDirectory(atPath: directory + "/\(language).lproj", withIntermediateDirectories: true) }
        try Data("\"a\" = \"A\";\n".utf8).write(to: URL(fileURLWithPath: directory + "/fr.lproj/Localizable.strings"))
        let plural: [String: Any] = ["files": ["NSStringLocalizedFormatKey": "%#@n@", "n": [
            "NSStringFormatSpecTypeKey": "NSStringPluralRuleType", "NSStringFormatValueTypeKey": "d", "one": "%d file", "other": "%d files"]]]
        try PropertyListSerialization.data(fromPropertyList: plural, format: .xml, options: 0)
            .write(to: URL(fileURLWithPath: directory + "/en.lproj/Localizable.stringsdict"))
        var options = LiveBundle.Options()
        options.connects = false
        options.recordsMisses = true
        options.developmentFallback = true
        options.environment = ["LANG": "fr_FR.UTF-8"]
        let live = try LiveBundle(path: directory, options: options)
        XCTAssertEqual(live.localizedString(forKey: "files", value: nil, table: nil), "%d files")
        XCTAssertEqual(live.current.localizedString(forKey: "files", value: nil, table: nil), "%d files")
        XCTAssertEqual(live.foundationBundle.localizedString(forKey: "files", value: nil, table: nil), "%d files")
        let misses = live.misses.map { "\($0.key.table)/\($0.key.key) \($0.key.language ?? "-") ×\($0.value)" }.sorted()
        XCTAssertEqual(misses, ["Localizable/files fr ×3"], "three calls, three misses")
    }

    private func corpusURL() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["LPROJ_CORPUS"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/corpus")
    }
}
