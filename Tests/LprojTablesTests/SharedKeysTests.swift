@testable import LprojFormats
import XCTest
@_spi(LprojInternals) @testable import LprojTables

/// Tables over shared keys: a localization with the same keys in the same
/// order keeps only its values and answers every lookup, iteration,
/// comparison, diff and image as the table it came from; any other keys
/// are never shared.
final class SharedKeysTests: XCTestCase {
    /// One table's localization: 300 keys (an empty one, multi-byte ones,
    /// rich entries among them) in one order, `language`'s values.
    private func localization(_ language: String, keys: [String] = SharedKeysTests.keys) -> Table {
        var builder = TableBuilder()
        for (number, key) in keys.enumerated() {
            if number % 37 == 5 {
                builder.add(key: key, entry: Entry(value: .plural(["one": .text("%d \(language)"), "other": .text("%d \(language)s")])))
            } else {
                builder.add(key: key, entry: Entry(text: number % 11 == 0 ? "" : "\(language) \(number) \(String(repeating: "é", count: number % 7))"))
            }
        }
        return builder.finish()
    }

    private static let keys = [""] + (1..<300).map { $0 % 3 == 0 ? "Schlüssel \($0) 日本" : "key.\($0)" }

    func testLocalizationsWithTheSameKeysShareThem() throws {
        let english = localization("en")
        let keys = SharedKeys(english)
        XCTAssertEqual(keys.count, english.count)
        for language in ["en", "fr", "zh-Hans"] {
            let table = localization(language)
            let shared = try XCTUnwrap(table.sharing(keys), language)
            XCTAssertTrue(shared.sharesKeys)
            XCTAssertFalse(table.sharesKeys)
            XCTAssertEqual(shared, table, language)
            XCTAssertEqual(shared.keys, table.keys, "the file's order")
            XCTAssertEqual(Array(shared).map(\.entry), Array(table).map(\.entry))
            for key in Self.keys { XCTAssertEqual(shared[key], table[key], "\(language): \(key)") }
            XCTAssertNil(shared["key.300"])
            let materialized = shared.materialized()
            for key in Self.keys.reversed() { XCTAssertEqual(materialized[key], table[key], "\(language): \(key), materialized") }
            for key in Self.keys { XCTAssertEqual(materialized[key], table[key], "\(language): \(key), made already") }
            // Only the values are its own.
            let valueBytes = table.compactMap { $0.entry.plainText?.utf8.count }.reduce(0, +)
            XCTAssertEqual(shared.storage.textLength, valueBytes)
            XCTAssertTrue(shared.storage.sharedKeys === keys.storage)
            XCTAssertTrue(shared.sharing(keys)!.isIdentical(to: shared), "shared already")
        }
    }

    func testOtherKeysOrAnotherOrderAreNotShared() {
        let keys = SharedKeys(localization("en"))
        XCTAssertNil(localization("fr", keys: Self.keys.reversed()).sharing(keys), "another order")
        XCTAssertNil(localization("fr", keys: Self.keys.dropLast() + ["key.300"]).sharing(keys), "one key another")
        XCTAssertNil(localization("fr", keys: Self.keys + ["key.300"]).sharing(keys), "one key more")
        XCTAssertNil(localization("fr", keys: Array(Self.keys.dropLast())).sharing(keys), "one key fewer")
        XCTAssertNil(localization("fr", keys: Self.keys.map { $0 == "key.1" ? "key.2 " : $0 }).sharing(keys), "the same length, another key")
        XCTAssertNil(Table().sharing(keys))
        // A table whose index has another seed (read from an image) is not shared either.
        XCTAssertNil(try TableImage.table(in: TableImage.encode(localization("fr"))).sharing(keys))
    }

    func testASharedTableDiffsImagesAndEditsAsItsSource() throws {
        let keys = SharedKeys(localization("en"))
        let english = localization("en"), french = localization("fr")
        let sharedEnglish = try XCTUnwrap(english.sharing(keys)), sharedFrench = try XCTUnwrap(french.sharing(keys))
        XCTAssertEqual(TableDiff(from: sharedEnglish, to: sharedFrench), TableDiff(from: english, to: french))
        XCTAssertEqual(TableDiff(from: english, to: sharedFrench), TableDiff(from: english, to: french))
        XCTAssertTrue(TableDiff(from: sharedFrench, to: french).isEmpty)
        let image = try TableImage.table(in: TableImage.encode(sharedFrench))
        XCTAssertEqual(image, french)
        XCTAssertEqual(image.keys, french.keys)
        for key in Self.keys { XCTAssertEqual(image[key], french[key], key) }
        let edited = sharedFrench.updating(["key.1": Entry(text: "un")], removing: ["key.2"])
        XCTAssertEqual(edited, french.updating(["key.1": Entry(text: "un")], removing: ["key.2"]))
        XCTAssertEqual(sharedFrench.overlaid(with: Table(strings: ["key.4": "quatre"])), french.overlaid(with: Table(strings: ["key.4": "quatre"])))
        // Keys taken from a table that shares others.
        let again = SharedKeys(sharedFrench)
        XCTAssertEqual(try XCTUnwrap(english.sharing(again)), english)
    }

    /// Parsed over a set: made over it as it is parsed when its keys are
    /// the set's in order; else parsed whole, its text untouched.
    func testAParseMakesItsTableOverKeysItHas() throws {
        func text(_ language: String, keys: [String]) -> [UInt8] {
            Array(("/* \(language) */\n" + keys.enumerated().map { "\"\($1)\" = \"\(language) \($0) \\\"q\\\" \($0 % 5 == 0 ? "" : "日本")\";\n" }.joined()).utf8)
        }
        let plainKeys = Self.keys.filter { !$0.isEmpty }
        let keys = SharedKeys(StringsFile(bytes: text("en", keys: plainKeys), path: "en.strings").table)
        let other = SharedKeys(Table(strings: ["x": "y"]))
        for language in ["en", "fr"] {
            let bytes = text(language, keys: plainKeys)
            let plain = StringsFile(bytes: bytes, path: "\(language).strings").table
            let parsed = StringsFile(bytes: bytes, path: "\(language).strings", limits: TableLimits(), sharing: [other, keys]).table
            XCTAssertTrue(parsed.sharesKeys, language)
            XCTAssertTrue(parsed.storage.sharedKeys === keys.storage)
            XCTAssertEqual(parsed, plain)
            XCTAssertEqual(Array(parsed).map(\.key), Array(plain).map(\.key))
            for key in plainKeys { XCTAssertEqual(parsed[key], plain[key], "\(language): \(key)") }
            XCTAssertEqual(try TableImage.table(in: TableImage.encode(parsed)), plain)
        }
        for (name, keys) in [("reordered", Array(plainKeys.reversed())), ("one more", plainKeys + ["extra"]), ("repeated", plainKeys + [plainKeys[0]])] {
            let bytes = text("fr", keys: keys)
            let plain = StringsFile(bytes: bytes, path: "fr.strings").table
            let parsed = StringsFile(bytes: bytes, path: "fr.strings", limits: TableLimits(), sharing: [other]).table
            let overEnglish = StringsFile(bytes: bytes, path: "fr.strings", limits: TableLimits(),
                                          sharing: [SharedKeys(StringsFile(bytes: text("en", keys: plainKeys), path: "en.strings").table)]).table
            XCTAssertFalse(parsed.sharesKeys, name)
            XCTAssertFalse(overEnglish.sharesKeys, name)
            XCTAssertEqual(overEnglish, plain, name)
            XCTAssertEqual(overEnglish.keys, plain.keys, name)
        }
    }

    func testKeysAreInUseWhileATableReadsThem() throws {
        let keys = SharedKeys(localization("en"))
        XCTAssertFalse(keys.isInUse)
        var shared: Table? = try XCTUnwrap(localization("fr").sharing(keys))
        XCTAssertTrue(keys.isInUse)
        XCTAssertEqual(shared?["key.1"], Entry(text: "fr 1 é"))
        shared = nil
        XCTAssertFalse(keys.isInUse)
    }
}
