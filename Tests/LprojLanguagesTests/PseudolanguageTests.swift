import Foundation
@testable import LprojLanguages
import LprojFormats
import LprojTables
import XCTest

/// Xcode's pseudolanguages derived from a development table: every
/// specifier of real apps' English tables survives in all four, the text
/// is changed the way each promises, and only its exact name chooses one.
final class PseudolanguageTests: XCTestCase {
    private let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/corpus").path

    func testEverySpecifierOfRealTablesSurvivesInAllFour() throws {
        let tables = [
            "element-hq+element-x-ios/ElementX/Resources/Localizations/en.lproj/Localizable.strings",
            "element-hq+element-x-ios/ElementX/Resources/Localizations/en.lproj/Localizable.stringsdict",
            "transmission+transmission@utf16-era/macosx/en.lproj/Localizable.strings",
        ]
        var checked = 0, withSpecifiers = 0
        for relative in tables {
            let file = try TableFile.read(path: corpus + "/" + relative)
            guard case .table(let table) = file.contents else { return XCTFail(relative) }
            for language in Pseudolanguage.allCases {
                let derived = language.table(table)
                XCTAssertEqual(derived.count, table.count)
                for (key, entry) in table {
                    let pseudo = try XCTUnwrap(derived[key])
                    XCTAssertEqual(FormatArguments(pseudo), FormatArguments(entry), "\(language.rawValue) \(relative) \(key)")
                    checked += 1
                    if language == .doubleLength, let original = entry.text, let doubled = pseudo.text {
                        XCTAssertGreaterThanOrEqual(doubled.count, 2 * original.count, "\(relative) \(key)")
                    }
                    if !FormatArguments(entry).isEmpty { withSpecifiers += 1 }
                }
            }
        }
        XCTAssertGreaterThan(withSpecifiers, 400, "the tables hold specifiers of every kind (\(checked) entries checked)")
    }

    func testEachChangesTheTextAsItPromises() throws {
        XCTAssertEqual(Pseudolanguage.accented.text("Home"), "Ĥöɱé")
        XCTAssertEqual(Pseudolanguage.accented.text("%@ has %1$d items, 100%% done"), "%@ ĥáš %1$d îţéɱš, 100%% ðöñé")
        XCTAssertEqual(Pseudolanguage.bounded.text("Home"), "[# Home #]")
        XCTAssertEqual(Pseudolanguage.rightToLeft.text("Home"), "\u{202E}Home\u{202C}")
        XCTAssertEqual(Pseudolanguage.doubleLength.text("Delete %d files?"), "Delete Delete %d files? files?~~")
        for text in ["Home", "Settings", "Delete %d files?", "Sign in with %@", "Line one\nLine two", "%@", "%1$@ %2$@"] {
            XCTAssertGreaterThanOrEqual(Pseudolanguage.doubleLength.text(text).count, 2 * text.count, text)
            let bounded = Pseudolanguage.bounded.text(text)
            XCTAssertTrue(bounded.hasPrefix("[") && bounded.hasSuffix("]"), bounded)
        }
        // Variables: the accented forms change, `%arg` and the variable's name do not; bounds go round the whole text once.
        let entry = Entry(value: .text("%#@files@ left"), substitutions: [
            "files": Substitution(formatSpecifier: "d", variants: .plural(["one": .text("%arg file"), "other": .text("%arg files")])),
        ])
        let accented = Pseudolanguage.accented.entry(entry)
        XCTAssertEqual(accented.value, .text("%#@files@ ļéƒţ"))
        XCTAssertEqual(accented.substitutions["files"]?.variants, .plural(["one": .text("%arg ƒîļé"), "other": .text("%arg ƒîļéš")]))
        XCTAssertEqual(Pseudolanguage.bounded.entry(entry).substitutions, entry.substitutions)
        XCTAssertEqual(LanguageTag("ar-XB")?.isRightToLeft, true, "ar-XB lays out right to left")
    }

    func testOnlyItsExactNameChoosesAPseudolanguage() {
        let tables: [String: [String: Table]] = ["en": ["Localizable": Table(strings: ["home": "Home"])]]
        let available = Pseudolanguage.adding(for: ["ar-XB", "en_XA"], to: tables, development: "en")
        XCTAssertEqual(Set(available.keys), ["en", "ar-XB", "en-XA"])
        XCTAssertEqual(available["en-XA"]?["Localizable"]?["home"]?.text, "Ĥöɱé")
        let names = Array(available.keys)
        XCTAssertEqual(LanguageMatcher.match(preferences: ["ar"], available: names, development: "en"), ["en"], "an Arabic speaker gets English, not ar-XB")
        XCTAssertEqual(LanguageMatcher.match(preferences: ["en-GB"], available: names, development: "en"), ["en"])
        XCTAssertEqual(LanguageMatcher.match(preferences: ["ar-XB"], available: names, development: "en"), ["ar-XB", "en"])
        XCTAssertEqual(LanguageMatcher.match(preferences: ["en_XA"], available: names, development: "en"), ["en-XA", "en"])
        XCTAssertEqual(Pseudolanguage.adding(for: ["en-XA"], to: tables, development: nil).keys.sorted(), ["en"], "no development table, nothing to derive")
    }
}
