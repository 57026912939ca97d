import Foundation
@testable import LprojBundles
import LprojTables
import XCTest

/// A bundle's Info.plist is read for its development region and usage
/// descriptions, under the same bounds as a table: a binary one that is a
/// reference bomb is refused, not handed to Foundation (which would
/// materialise 2⁴⁰ objects).
final class BundleInfoPlistTests: XCTestCase {
    func testTheDevelopmentRegionIsReadAndABombIsNot() throws {
        let directory = NSTemporaryDirectory() + "info-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for language in ["en", "de"] {
            try FileManager.default.createDirectory(atPath: directory + "/\(language).lproj", withIntermediateDirectories: true)
            try Data("\"k\" = \"v\";\n".utf8).write(to: URL(fileURLWithPath: directory + "/\(language).lproj/Localizable.strings"))
        }
        let info = try PropertyListSerialization.data(fromPropertyList: ["CFBundleDevelopmentRegion": "de"], format: .binary, options: 0)
        try info.write(to: URL(fileURLWithPath: directory + "/Info.plist"))
        XCTAssertEqual(DevelopmentLocalization.of(try LocalizedBundle.load(path: directory)), "de")

        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path + "/Fixtures/hostile"
        for version in Array("01".utf8) {
            var bomb = try Data(contentsOf: URL(fileURLWithPath: fixtures + "/reference-bomb.strings"))
            bomb[bomb.startIndex + 7] = version
            try bomb.write(to: URL(fileURLWithPath: directory + "/Info.plist"))
            XCTAssertEqual(DevelopmentLocalization.of(try LocalizedBundle.load(path: directory)), "en", "bplist0\(Character(Unicode.Scalar(version)))")
        }
    }

    /// A legacy `English.lproj` is the development `en` of an old bundle.
    func testALegacyEnglishIsTheDevelopmentLocalization() {
        XCTAssertEqual(DevelopmentLocalization.choose(region: nil, among: ["Japanese", "English"]), "English")
        XCTAssertEqual(DevelopmentLocalization.choose(region: nil, among: ["en", "English"]), "en")
        let bundle = LocalizedBundle(path: "/b", tables: ["Japanese": ["Localizable": Table(strings: ["a": "エー"])],
                                                         "English": ["Localizable": Table(strings: ["a": "A", "b": "B"])]])
        let found = BundleLookup(key: "b", table: nil, in: bundle, preferences: ["ja"], developmentFallback: true)
        XCTAssertEqual(found.searchList, ["Japanese", "English"])
        XCTAssertEqual(found.resolution.text, "B", "--fallback from Japanese.lproj reaches English.lproj")
    }
}
