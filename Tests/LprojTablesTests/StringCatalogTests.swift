import Foundation
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

    func testCorpusCatalog() throws {
        let url = try corpusDirectory().appendingPathComponent("Whisky-App+Whisky/Whisky/Localizable.xcstrings")
        let file = StringCatalogFile(bytes: try Data(contentsOf: url), path: url.path)
        XCTAssertFalse(file.diagnostics.containsErrors, "\(file.diagnostics.prefix(3))")
        XCTAssertGreaterThan(file.catalog.languages.count, 5)
        XCTAssertGreaterThan(file.catalog.tables["en"]?.count ?? 0, 100)
    }
}
