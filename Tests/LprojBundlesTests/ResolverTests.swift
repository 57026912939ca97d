import Foundation
@testable import LprojLanguages
@testable import LprojBundles
import LprojTables
import XCTest

final class ResolverTests: XCTestCase {
    let tables: [String: [String: Table]] = [
        "en": ["Localizable": Table(strings: ["home": "Home", "only_en": "English only"]), "InfoPlist": Table(strings: ["name": "Demo"])],
        "zh-Hant": ["Localizable": Table(strings: ["home": "首頁"])],
        "Base": ["Main": Table(strings: ["button": "Button"])],
    ]

    func resolve(_ key: String, table: String? = nil, default value: String? = nil, chain: [String] = ["zh-Hant"], fallback: Bool = false) -> Resolution {
        let list = Resolver.searchList(chain: chain, development: "en", hasBase: true)
        return Resolver.resolve(key: key, table: table, defaultValue: value, searchList: list, development: "en",
                                developmentFallback: fallback) { self.tables[$1]?[$0] }
    }

    func testSearchListPutsBaseBeforeDevelopment() {
        XCTAssertEqual(Resolver.searchList(chain: ["zh-Hant", "en"], development: "en", hasBase: true), ["zh-Hant", "Base", "en"])
        XCTAssertEqual(Resolver.searchList(chain: ["fr"], development: nil, hasBase: false), ["fr"])
    }

    func testFoundInTheChosenTable() {
        let found = resolve("home")
        XCTAssertEqual(found.text, "首頁")
        XCTAssertEqual(found.source, .table(localization: "zh-Hant"))
        XCTAssertEqual(found.steps, [.init(localization: "zh-Hant", table: "Localizable", found: true)])
        XCTAssertFalse(found.isMiss)
    }

    func testTheFirstLocalizationWithTheTableAnswersAlone() {
        // zh-Hant has Localizable but not the key: Apple does not look further.
        let missing = resolve("only_en")
        XCTAssertEqual(missing.text, "only_en")
        XCTAssertEqual(missing.source, .key)
        XCTAssertTrue(missing.isMiss)
        // ...unless per-key fallback is on.
        let fallback = resolve("only_en", fallback: true)
        XCTAssertEqual(fallback.text, "English only")
        XCTAssertEqual(fallback.source, .developmentFallback(localization: "en"))
    }

    func testTablesFallThroughBaseAndDevelopment() {
        XCTAssertEqual(resolve("name", table: "InfoPlist").source, .table(localization: "en"))
        XCTAssertEqual(resolve("button", table: "Main").source, .table(localization: "Base"))
    }

    func testMissingKeyGivesDefaultOrKeyNeverEmpty() {
        XCTAssertEqual(resolve("nope", default: "Fallback").text, "Fallback")
        XCTAssertEqual(resolve("nope", default: "").text, "nope")
        XCTAssertEqual(resolve("nope", table: "NoSuchTable").text, "nope")
        XCTAssertEqual(resolve("", default: nil).text, "")
    }

    func testNilOrEmptyTableMeansLocalizable() {
        XCTAssertEqual(resolve("home", table: "").table, "Localizable")
        XCTAssertEqual(resolve("home", table: nil).table, "Localizable")
    }

    func testExampleBundleFromDisk() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/Demo/Resources").path
        let bundle = try LocalizedBundle.load(path: path)
        XCTAssertEqual(bundle.localizations, ["ar", "en", "ja", "zh-Hans", "zh-Hant"])
        XCTAssertEqual(bundle.diagnostics, [])
        // .stringsdict laid over .strings: the plural rule wins over the plain fallback.
        let entry = try XCTUnwrap(bundle.table("Localizable", localization: "en")?["item_count"])
        XCTAssertNil(entry.text)
        XCTAssertEqual(StringFormatter(language: "en").string(for: entry, arguments: [1]), "1 item")
        XCTAssertEqual(bundle.table("InfoPlist", localization: "zh-Hant")?["CFBundleDisplayName"]?.text, "示範")
    }

    func testBrokenFilesAreSkippedWithDiagnostics() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lproj-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("en.lproj"), withIntermediateDirectories: true)
        try Data("\"a\" = \"b\"".utf8).write(to: directory.appendingPathComponent("en.lproj/Broken.strings"))
        try Data("\"a\" = \"b\";".utf8).write(to: directory.appendingPathComponent("en.lproj/Good.strings"))
        try Data(#"{"sourceLanguage":"en","version":"1.0","strings":{"k":{"localizations":{"fr":{"stringUnit":{"state":"translated","value":"v"}}}}}}"#.utf8)
            .write(to: directory.appendingPathComponent("Catalog.xcstrings"))
        let bundle = try LocalizedBundle.load(path: directory.path)
        XCTAssertEqual(bundle.localizations, ["en", "fr"])
        XCTAssertNil(bundle.table("Broken", localization: "en"))
        XCTAssertEqual(bundle.table("Good", localization: "en")?["a"]?.text, "b")
        XCTAssertEqual(bundle.table("Catalog", localization: "fr")?["k"]?.text, "v")
        XCTAssertEqual(bundle.diagnostics.filter { $0.severity == .error }.count, 1)
        XCTAssertThrowsError(try LocalizedBundle.load(path: directory.appendingPathComponent("missing").path))
    }
}
