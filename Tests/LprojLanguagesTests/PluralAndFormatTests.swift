import Foundation
@testable import LprojLanguages
import LprojTables
import XCTest

final class PluralTests: XCTestCase {
    func categories(_ language: String, _ numbers: [Int]) -> [String] {
        numbers.map { PluralCategory($0, language: language).rawValue }
    }

    func testCLDRCategoriesPerLanguage() {
        XCTAssertEqual(categories("en", [0, 1, 2, 5]), ["other", "one", "other", "other"])
        XCTAssertEqual(categories("fr", [0, 1, 2, 1_000_000]), ["one", "one", "other", "many"])
        XCTAssertEqual(categories("ru", [1, 2, 5, 11, 21, 22, 25]), ["one", "few", "many", "many", "one", "few", "many"])
        XCTAssertEqual(categories("pl", [1, 2, 5, 12, 22, 25]), ["one", "few", "many", "many", "few", "many"])
        XCTAssertEqual(categories("ar", [0, 1, 2, 3, 11, 100]), ["zero", "one", "two", "few", "many", "other"])
        XCTAssertEqual(categories("ja", [0, 1, 2, 100]), ["other", "other", "other", "other"])
        XCTAssertEqual(categories("cy", [0, 1, 2, 3, 6, 7]), ["zero", "one", "two", "few", "many", "other"])
    }

    func testFractionsSelectOther() {
        XCTAssertEqual(PluralCategory(1.5, language: "en"), .other)
        XCTAssertEqual(PluralCategory(1.0, language: "en", fractionDigits: 1), .other)
        XCTAssertEqual(PluralCategory(1.5, language: "ru"), .other)
    }
}

final class StringFormatterTests: XCTestCase {
    let english = StringFormatter(language: "en-US")

    func testEverySpecifierMatchesFoundation() {
        let cases: [(String, [any CVarArg])] = [
            ("%@", ["text" as NSString]), ("%d", [Int32(42)]), ("%i", [Int32(-7)]), ("%ld", [1234567]), ("%lld", [Int64(1) << 40]),
            ("%u", [UInt32(3_000_000)]), ("%lu", [UInt(42)]), ("%f", [3.25]), ("%.2f", [1234.5]), ("%e", [1234.5]),
            ("%g", [0.0001]), ("%x", [Int32(255)]), ("%X", [Int32(255)]), ("%o", [Int32(8)]), ("%5d", [Int32(42)]),
            ("%-5d|", [Int32(42)]), ("%05d", [Int32(42)]), ("%+d", [Int32(5)]), ("100%%", []), ("%#x", [Int32(255)]),
        ]
        for (format, arguments) in cases {
            XCTAssertEqual(english.string(format: format, arguments: arguments),
                           String(format: format, locale: english.locale, arguments: arguments), format)
        }
        XCTAssertEqual(english.string(format: "%c%C", arguments: [Int32(65), Int32(0x263A)]), "A☺")
        // Foundation on Linux prints -1,294,967,296 here (it reads %u as signed); Apple and we do not.
        XCTAssertEqual(english.string(format: "%u", arguments: [UInt32(3_000_000_000)]), "3,000,000,000")
        XCTAssertEqual(english.string(format: "%s", arguments: ["plain"]), "plain")
    }

    func testLocalizedNumbers() {
        XCTAssertEqual(StringFormatter(language: "zh-Hant").string(format: "%d 顆鑽石", arguments: [1000]), "1,000 顆鑽石")
        XCTAssertEqual(StringFormatter(language: "de-DE").string(format: "%d | %.2f", arguments: [1234567, 1234.5]), "1.234.567 | 1.234,50")
        XCTAssertEqual(StringFormatter(language: "en").string(format: "%d", arguments: [Int.max]), "9,223,372,036,854,775,807")
    }

    func testPositionalArguments() {
        XCTAssertEqual(english.string(format: "%2$@ has %1$d items", arguments: [3, "Ann"]), "Ann has 3 items")
        XCTAssertEqual(english.string(format: "%1$@ %1$@", arguments: ["x"]), "x x")
    }

    func testNoCrashOnBadArguments() {
        XCTAssertEqual(english.string(format: "%d and %@", arguments: [5]), "5 and %@")
        XCTAssertEqual(english.string(format: "%d", arguments: ["twelve"]), "twelve")
        XCTAssertEqual(english.string(format: "%@ %", arguments: ["a"]), "a %")
        XCTAssertEqual(english.string(format: "%q %0$d", arguments: [1]), "%q %0$d")
    }

    func stringsDictEntry() -> Entry {
        Entry(value: .text("%#@files@ in %#@folders@"), substitutions: [
            "files": Substitution(formatSpecifier: "d", variants: .plural(["one": .text("%d file"), "other": .text("%d files")])),
            "folders": Substitution(formatSpecifier: "ld", variants: .plural(["one": .text("one folder"), "other": .text("%ld folders")])),
        ])
    }

    func testPluralSubstitutionWithTwoVariables() {
        XCTAssertEqual(english.string(for: stringsDictEntry(), arguments: [1, 1]), "1 file in one folder")
        XCTAssertEqual(english.string(for: stringsDictEntry(), arguments: [3, 1200]), "3 files in 1,200 folders")
    }

    func testPluralPerLanguage() {
        let russian = Entry(value: .text("%#@n@"), substitutions: ["n": Substitution(formatSpecifier: "ld", variants: .plural([
            "one": .text("%ld файл"), "few": .text("%ld файла"), "many": .text("%ld файлов"), "other": .text("%ld файла"),
        ]))])
        let formatter = StringFormatter(language: "ru")
        XCTAssertEqual([1, 3, 5, 21].map { formatter.string(for: russian, arguments: [$0]) }, ["1 файл", "3 файла", "5 файлов", "21 файл"])
        let arabic = Entry(value: .text("%#@n@"), substitutions: ["n": Substitution(formatSpecifier: "d", variants: .plural([
            "zero": .text("لا عناصر"), "one": .text("عنصر واحد"), "two": .text("عنصران"), "few": .text("%d عناصر"),
            "many": .text("%d عنصرًا"), "other": .text("%d عنصر"),
        ]))])
        XCTAssertEqual(StringFormatter(language: "ar").string(for: arabic, arguments: [0]), "لا عناصر")
        XCTAssertEqual(StringFormatter(language: "ar").string(for: arabic, arguments: [2]), "عنصران")
    }

    func testMissingCategoryFallsBackToOther() {
        let polish = Entry(value: .text("%#@n@"), substitutions: ["n": Substitution(formatSpecifier: "d", variants: .plural([
            "one": .text("%d plik"), "few": .text("%d pliki"), "many": .text("%d plików"),
        ]))])
        XCTAssertEqual(StringFormatter(language: "pl").string(for: polish, arguments: [5]), "5 plików")
        XCTAssertEqual(StringFormatter(language: "pl").string(for: polish, arguments: [1.5]), "1 plików", "no other: the last CLDR form present")
    }

    func testPositionalInsideAForm() {
        let entry = Entry(value: .text("%#@COUNT@"), substitutions: ["COUNT": Substitution(formatSpecifier: "d", variants: .plural([
            "one": .text("Read by %2$@"), "other": .text("Read by %2$@ and %1$d others"),
        ]))])
        XCTAssertEqual(english.string(for: entry, arguments: [3, "Ann"]), "Read by Ann and 3 others")
        XCTAssertEqual(english.string(for: entry, arguments: [1, "Ann"]), "Read by Ann")
    }

    func testCatalogVariationsAndSubstitutions() {
        let plural = Entry(value: .plural(["one": .text("%lld file"), "other": .text("%lld files")]))
        XCTAssertEqual(english.string(for: plural, arguments: [1]), "1 file")
        XCTAssertEqual(english.string(for: plural, arguments: [7]), "7 files")
        let substituted = Entry(value: .text("Moved %#@count@ to %@"), substitutions: ["count": Substitution(
            argumentNumber: 1, formatSpecifier: "lld", variants: .plural(["one": .text("%arg item"), "other": .text("%arg items")]))])
        XCTAssertEqual(english.string(for: substituted, arguments: [2, "Trash"]), "Moved 2 items to Trash")
        let device = Entry(value: .device(["iphone": .text("Tap"), "mac": .text("Click"), "other": .text("Select")]))
        XCTAssertEqual(english.string(for: device, arguments: []), "Select")
    }

    func testUnknownVariableIsLeftVisible() {
        XCTAssertEqual(english.string(for: Entry(value: .text("%#@missing@")), arguments: [1]), "%#@missing@")
    }
}
