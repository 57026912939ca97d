import Foundation
@testable import LprojFormats
import XCTest
@testable import LprojTables

final class StringCatalogTests: XCTestCase {
    let catalog = """
        {
          "sourceLanguage" : "en",
          "version" : "1.0",
          "strings" : {
            "" : { "localizations" : { "fr" : { "stringUnit" : { "state" : "translated", "value" : "vide" } } } },
            "greeting" : {
              "comment" : "Shown at start",
              "localizations" : {
                "en" : { "stringUnit" : { "state" : "translated", "value" : "Hello" } },
                "fr" : { "stringUnit" : { "state" : "needs_review", "value" : "Bonjour" } }
              }
            },
            "files" : {
              "localizations" : {
                "en" : { "variations" : { "plural" : {
                  "one" : { "stringUnit" : { "state" : "translated", "value" : "%lld file" } },
                  "other" : { "stringUnit" : { "state" : "translated", "value" : "%lld files" } } } } },
                "fr" : { "variations" : { "device" : {
                  "mac" : { "stringUnit" : { "state" : "translated", "value" : "Mac" } },
                  "other" : { "variations" : { "plural" : { "other" : { "stringUnit" : { "state" : "new", "value" : "%lld fichiers" } } } } } } } }
              }
            },
            "moved" : {
              "localizations" : {
                "en" : {
                  "stringUnit" : { "state" : "translated", "value" : "Moved %#@count@ to %@" },
                  "substitutions" : { "count" : { "argNum" : 1, "formatSpecifier" : "lld",
                    "variations" : { "plural" : { "one" : { "stringUnit" : { "state" : "translated", "value" : "%arg item" } },
                                                  "other" : { "stringUnit" : { "state" : "translated", "value" : "%arg items" } } } } } }
                }
              }
            },
            "untranslated" : { "shouldTranslate" : false }
          }
        }
        """

    func testLanguagesAndEntries() {
        let file = StringCatalogFile(bytes: Array(catalog.utf8), path: "L.xcstrings")
        XCTAssertEqual(file.diagnostics, [])
        XCTAssertEqual(file.catalog.sourceLanguage, "en")
        XCTAssertEqual(file.catalog.languages, ["en", "fr"])
        let en = file.catalog.tables["en"]!, fr = file.catalog.tables["fr"]!
        XCTAssertEqual(en["greeting"], Entry(value: .text("Hello"), state: .translated))
        XCTAssertEqual(fr["greeting"]?.state, .needsReview)
        XCTAssertEqual(fr[""]?.text, "vide")
        XCTAssertEqual(en["files"]?.value, .plural(["one": .text("%lld file"), "other": .text("%lld files")]))
        XCTAssertEqual(fr["files"]?.value, .device(["mac": .text("Mac"), "other": .plural(["other": .text("%lld fichiers")])]))
        XCTAssertEqual(en["moved"]?.substitutions["count"]?.argumentNumber, 1)
        XCTAssertEqual(en["moved"]?.substitutions["count"]?.formatSpecifier, "lld")
        XCTAssertNil(en["untranslated"])
    }

    func testEntryJSONRoundTrip() throws {
        let file = StringCatalogFile(bytes: Array(catalog.utf8), path: "L.xcstrings")
        let en = file.catalog.tables["en"]!
        let data = try JSONEncoder().encode(en.entries)
        let back = try JSONDecoder().decode([String: Entry].self, from: data)
        XCTAssertEqual(back["moved"], en["moved"])
        XCTAssertEqual(back["greeting"], Entry(text: "Hello"))
    }

    func testProblemsArePlaced() {
        let bad = """
            {
              "sourceLanguage" : "en",
              "version" : "1.0",
              "strings" : {
                "a" : { "localizations" : { "fr" : { "stringUnit" : { "state" : "done", "value" : "x" } } } },
                "b" : { "localizations" : { "fr" : { "stringUnit" : { "state" : "new", "value" : "%#@n@" } } } },
                "c" : { "localizations" : { "fr" : { "nothing" : 1 } } }
              }
            }
            """
        let file = StringCatalogFile(bytes: Array(bad.utf8), path: "L.xcstrings")
        XCTAssertEqual(file.diagnostics.map(\.line), [5, 6, 7])
        XCTAssertEqual(file.diagnostics.map(\.severity), [.warning, .error, .error])
        XCTAssertTrue(file.diagnostics[1].message.contains("no substitution \"n\""))
        XCTAssertEqual(file.catalog.tables["fr"]?.count, 1)
    }

    func testInvalidJSONNamesAPlace() {
        let file = StringCatalogFile(bytes: Array("{\n  \"sourceLanguage\" : \"en\",\n  \"strings\" : { , }\n}".utf8), path: "L.xcstrings")
        XCTAssertEqual(file.diagnostics.count, 1)
        XCTAssertEqual(file.diagnostics.first?.line, 3)
    }

    func testInvalidJSONNamesItsLineAndColumn() {
        let cases: [(String, Int, Int, String)] = [
            ("{\n  \"strings\" : { , }\n}", 2, 17, "expected a key in quotes"),
            ("{\n  \"strings\" : {\n    \"a\tb\" : {}\n  }\n}", 3, 7, "control character"),
            ("{ \"sourceLanguage\" : \"\\ud800x\" }", 1, 23, "lone UTF-16 surrogate"),
            ("{ \"version\" : 01 }", 1, 15, "unexpected character"),
            ("{ \"strings\" : {} } x", 1, 20, "after the catalog's closing"),
            (String(repeating: "[", count: 600), 1, 513, "nested more than 512 levels"),
        ]
        for (text, line, column, message) in cases {
            let file = StringCatalogFile(bytes: Array(text.utf8), path: "L.xcstrings")
            XCTAssertEqual(file.diagnostics.count, 1, text)
            XCTAssertEqual(file.diagnostics.first.map { [$0.line, $0.column] }, [line, column], text)
            XCTAssertTrue(file.diagnostics.first?.message.contains(message) ?? false, "\(file.diagnostics)")
        }
        var invalid = Array("{ \"sourceLanguage\" : \"en\", \"strings\" : { \"caf".utf8) + [0xE9] + Array("\" : {} } }".utf8)
        var file = StringCatalogFile(bytes: invalid, path: "L.xcstrings")
        XCTAssertEqual(file.diagnostics.map { [$0.line, $0.column] }, [[1, 46]])
        XCTAssertTrue(file.diagnostics.first?.message.contains("not valid UTF-8 (byte 0xE9)") ?? false, "\(file.diagnostics)")
        invalid.removeAll()
        file = StringCatalogFile(bytes: invalid, path: "L.xcstrings")
        XCTAssertTrue(file.diagnostics.containsErrors)
    }

    func testAKeyWrittenTwiceIsAWarningNamingBothLinesAndTheLastCounts() {
        let text = """
            {
              "sourceLanguage" : "en",
              "strings" : {
                "greeting" : { "localizations" : { "fr" : { "stringUnit" : { "state" : "translated", "value" : "Salut" } } } },
                "other" : { },
                "greeting" : { "localizations" : {
                  "fr" : { "stringUnit" : { "state" : "translated", "value" : "Bonjour" } },
                  "fr" : { "stringUnit" : { "state" : "translated", "value" : "Bonsoir" } } } }
              },
              "version" : "1.0"
            }
            """
        let file = StringCatalogFile(bytes: Array(text.utf8), path: "L.xcstrings")
        XCTAssertEqual(file.diagnostics.map(\.severity), [.warning, .warning])
        XCTAssertEqual(file.diagnostics.map { [$0.line, $0.column] }, [[6, 5], [8, 7]])
        XCTAssertEqual(file.diagnostics.map(\.message), [
            "\"greeting\" is written twice in one object (first at line 4); the last one counts",
            "\"fr\" is written twice in one object (first at line 7); the last one counts",
        ])
        XCTAssertEqual(file.catalog.tables["fr"]?["greeting"], Entry(value: .text("Bonsoir"), state: .translated))
        XCTAssertEqual(file.catalog.keys, ["greeting", "other"])
        // Many members (a strings object) are checked as surely as a few.
        let many = (0..<40).map { "\"k\($0)\" : { }" } + ["\"k7\" : { }"]
        let large = StringCatalogFile(bytes: Array("{ \"sourceLanguage\" : \"en\", \"version\" : \"1.0\", \"strings\" : {\n\(many.joined(separator: ",\n"))\n} }".utf8),
                                      path: "L.xcstrings")
        XCTAssertEqual(large.diagnostics.map(\.line), [42])
        XCTAssertEqual(large.diagnostics.first?.message, "\"k7\" is written twice in one object (first at line 9); the last one counts")
        XCTAssertEqual(large.catalog.keys.count, 40)
    }

    /// An entry's `jsonValue` is its encoded JSON form, on every entry of the corpus's catalogs (plurals, devices,
    /// substitutions with and without argNum, every state) and on plain and stated texts.
    func testAnEntrysJSONValueIsItsEncodedForm() throws {
        var entries: [Entry] = [Entry(text: "plain"), Entry(value: .text("new"), substitutions: [:], state: .new)]
        for url in files(under: try corpusDirectory(), extensions: ["xcstrings"]) {
            guard case .catalog(let catalog) = try TableFile.read(path: url.path).contents else { continue }
            for table in catalog.tables.values { entries += table.entries.values }
        }
        XCTAssertGreaterThan(entries.count, 1000)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for entry in entries {
            let encoded = try encoder.encode(entry)
            let written = try JSONSerialization.data(withJSONObject: entry.jsonValue, options: [.sortedKeys, .fragmentsAllowed])
            XCTAssertEqual(try JSONSerialization.jsonObject(with: written, options: [.fragmentsAllowed]) as? NSObject,
                           try JSONSerialization.jsonObject(with: encoded, options: [.fragmentsAllowed]) as? NSObject, "\(entry)")
        }
    }

    /// The catalogs' own reader gives what Foundation's JSONSerialization
    /// gives, on every real catalog.
    func testTheReaderAgreesWithJSONSerializationOnTheCorpus() throws {
        let paths = files(under: try corpusDirectory(), extensions: ["xcstrings"])
        XCTAssertGreaterThan(paths.count, 0)
        for url in paths {
            let data = try Data(contentsOf: url)
            let ours = try CatalogJSON.parse(Array(data))
            let foundation = try JSONSerialization.jsonObject(with: data)
            XCTAssertTrue(Self.same(ours, foundation), url.path)
            XCTAssertEqual(ours.rendered() + (data.last == 0x0A ? [0x0A] : []), Array(data), "\(url.path) reads and writes the same bytes")
        }
    }

    private static func same(_ json: CatalogJSON, _ value: Any) -> Bool {
        switch json {
        case .object(let members, _):
            guard let dictionary = value as? [String: Any], dictionary.count == Set(members.map(\.key)).count else { return false }
            return members.allSatisfy { member in dictionary[member.key].map { same(json[member.key]!, $0) } ?? false }
        case .array(let values, _):
            guard let array = value as? [Any], array.count == values.count else { return false }
            return zip(values, array).allSatisfy { same($0, $1) }
        case .string(let text, _): return value as? String == text
        case .number(let text): return (value as? NSNumber)?.doubleValue == Double(text)
        case .bool(let flag): return (value as? Bool) == flag
        case .null: return value is NSNull
        }
    }

    func testCorpusCatalog() throws {
        let url = try corpusDirectory().appendingPathComponent("Whisky-App+Whisky/Whisky/Localizable.xcstrings")
        let file = StringCatalogFile(bytes: try Data(contentsOf: url), path: url.path)
        XCTAssertFalse(file.diagnostics.containsErrors, "\(file.diagnostics.prefix(3))")
        XCTAssertGreaterThan(file.catalog.languages.count, 5)
        XCTAssertGreaterThan(file.catalog.tables["en"]?.count ?? 0, 100)
    }
}
