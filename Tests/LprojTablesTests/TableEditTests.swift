import Foundation
@testable import LprojFormats
import XCTest
@testable import LprojTables

/// The one writer's format layer over every table of the shared corpus: an
/// edit changes that entry's bytes and no others, Foundation reads the new
/// value with every other value unchanged, catalogs round-trip byte for byte.
final class TableEditTests: XCTestCase {
    func testSettingAKeyInEveryCorpusStringsFileChangesOnlyItsValueBytes() throws {
        let corpus = try corpusDirectory()
        var edited = 0
        var refused: [String] = []
        for url in files(under: corpus, extensions: ["strings"]) {
            let bytes = Array(try Data(contentsOf: url))
            let before = StringsFile(bytes: bytes, path: url.path)
            guard !before.diagnostics.containsErrors, let key = before.table.sortedKeys.dropFirst(before.table.count / 2).first else { continue }
            let value = "Édité \"\(edited)\"\nline\\two"
            let output: [UInt8]
            do {
                output = try TableEdit.setText(key: key, value: value, comment: nil).apply(to: bytes, format: .strings, path: url.path, language: nil)
            } catch {
                refused.append(error.description)
                continue
            }
            edited += 1
            let after = StringsFile(bytes: output, path: url.path)
            XCTAssertEqual(after.form, before.form, url.path)
            var expected = strings(before.table)
            expected[key] = value
            // Foundation is the ground truth for values.
            let foundation = try PropertyListSerialization.propertyList(from: Data(output), options: [], format: nil) as? [String: String]
            XCTAssertEqual(foundation, expected, url.path)
            if case .text(let encoding) = before.form {
                // Outside the entry's value, every byte is the same.
                XCTAssertEqual(try changedRegion(bytes, output, encoding: encoding, key: key), true, url.path)
            }
        }
        XCTAssertEqual(refused, [])
        XCTAssertGreaterThan(edited, 600)
    }

    func testEveryCorpusStringsDictTakesAPluralFormInPlace() throws {
        let corpus = try corpusDirectory()
        var edited = 0
        for url in files(under: corpus, extensions: ["stringsdict"]) {
            let bytes = Array(try Data(contentsOf: url))
            let before = StringsDictFile(bytes: bytes, path: url.path)
            guard !before.diagnostics.containsErrors else { continue }
            guard let key = before.table.sortedKeys.first(where: { before.table[$0]?.substitutions.isEmpty == false }),
                  let variable = before.table[key]?.substitutions.keys.sorted().first,
                  case .plural(let forms)? = before.table[key]?.substitutions[variable]?.variants,
                  let category = Variants.pluralCategories.last(where: { forms[$0] != nil }) else { continue }
            let output = try TableEdit.setPluralForm(key: key, variable: variable, category: category, value: "%d édités", valueType: nil)
                .apply(to: bytes, format: .stringsdict, path: url.path, language: nil)
            edited += 1
            // Only the lines of that form differ.
            let oldLines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            let newLines = String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            XCTAssertEqual(oldLines.count, newLines.count, url.path)
            let differing = zip(oldLines, newLines).filter { $0 != $1 }
            XCTAssertLessThanOrEqual(differing.count, 1, url.path)
            let foundation = try PropertyListSerialization.propertyList(from: Data(output), options: [], format: nil) as? [String: Any]
            let rule = (foundation?[key] as? [String: Any])?[variable] as? [String: Any]
            XCTAssertEqual(rule?[category] as? String, "%d édités", url.path)
        }
        XCTAssertGreaterThan(edited, 30)
    }

    func testTheCorpusCatalogRoundTripsByteForByteAndAnEditDiffsOnlyItsUnit() throws {
        let corpus = try corpusDirectory()
        let catalogs = files(under: corpus, extensions: ["xcstrings"])
        XCTAssertFalse(catalogs.isEmpty)
        for url in catalogs {
            let bytes = Array(try Data(contentsOf: url))
            XCTAssertEqual(try StringCatalogDocument(bytes: bytes, path: url.path).bytes, bytes, url.path)
            let catalog = StringCatalogFile(bytes: bytes, path: url.path).catalog
            let language = catalog.languages.first { $0 != catalog.sourceLanguage }!
            let key = catalog.tables[language]!.sortedKeys[3]
            let output = try TableEdit.setText(key: key, value: "Nouveau / valeur", comment: nil)
                .apply(to: bytes, format: .xcstrings, path: url.path, language: language)
            let oldLines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            let newLines = String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            XCTAssertEqual(oldLines.count, newLines.count)
            let differing = zip(oldLines, newLines).filter { $0 != $1 }
            XCTAssertEqual(differing.count, 1, "\(differing)")
            XCTAssertEqual(differing.first?.1, "            \"value\" : \"Nouveau / valeur\"")
        }
    }

    func testXcodeOrderAgreesWithTheCorpusCatalog() throws {
        for url in files(under: try corpusDirectory(), extensions: ["xcstrings"]) {
            guard case .object(let members, _) = try CatalogJSON.parse(Array(Data(contentsOf: url)))["strings"]! else { return XCTFail() }
            for (a, b) in zip(members, members.dropFirst()) {
                XCTAssertTrue(XcodeOrder.precedes(a.key, b.key), "\(a.key) before \(b.key)")
            }
        }
        XCTAssertTrue(XcodeOrder.precedes("Key2", "Key10"))
        XCTAssertTrue(XcodeOrder.precedes("config.winecfg", "config.winVersion"))
        XCTAssertTrue(XcodeOrder.precedes("a", "B"))
    }

    func testANewCatalogKeyGoesWhereXcodePutsItMarkedManual() throws {
        let text = """
            {
              "sourceLanguage" : "en",
              "strings" : {
                "apple" : {

                },
                "cherry" : {
                  "comment" : "A fruit",
                  "localizations" : {
                    "fr" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "Cerise"
                      }
                    }
                  }
                }
              },
              "version" : "1.0"
            }
            """
        let output = try TableEdit.setText(key: "Banana", value: "Banane", comment: "Yellow").apply(
            to: Array(text.utf8), format: .xcstrings, path: "t.xcstrings", language: "fr")
        XCTAssertEqual(String(decoding: output, as: UTF8.self), """
            {
              "sourceLanguage" : "en",
              "strings" : {
                "apple" : {

                },
                "Banana" : {
                  "comment" : "Yellow",
                  "extractionState" : "manual",
                  "localizations" : {
                    "fr" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "Banane"
                      }
                    }
                  }
                },
                "cherry" : {
                  "comment" : "A fruit",
                  "localizations" : {
                    "fr" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "Cerise"
                      }
                    }
                  }
                }
              },
              "version" : "1.0"
            }
            """)
    }

    func testStringsTextEditsKeepCommentsSpacingLineEndingsAndEncoding() throws {
        let text = "/* Greeting */\r\n\"hello\"=\"Hi\";\r\n\r\n// farewell\r\n\"bye\" = \"Bye\";\r\n"
        let utf16 = TextEncoding.utf16LittleEndian.encode(Array(text.utf8), byteOrderMark: true)
        var output = try TableEdit.setText(key: "hello", value: "Hallo", comment: nil).apply(to: utf16, format: .strings, path: "t.strings", language: nil)
        XCTAssertEqual(output, TextEncoding.utf16LittleEndian.encode(Array("/* Greeting */\r\n\"hello\"=\"Hallo\";\r\n\r\n// farewell\r\n\"bye\" = \"Bye\";\r\n".utf8), byteOrderMark: true))
        output = try TableEdit.setText(key: "new", value: "Neu", comment: "Added").apply(to: output, format: .strings, path: "t.strings", language: nil)
        XCTAssertEqual(String(decoding: decode(output), as: UTF8.self),
                       "/* Greeting */\r\n\"hello\"=\"Hallo\";\r\n\r\n// farewell\r\n\"bye\" = \"Bye\";\r\n\r\n/* Added */\r\n\"new\" = \"Neu\";\r\n")
        output = try TableEdit.remove(key: "bye").apply(to: output, format: .strings, path: "t.strings", language: nil)
        XCTAssertEqual(String(decoding: decode(output), as: UTF8.self),
                       "/* Greeting */\r\n\"hello\"=\"Hallo\";\r\n\r\n/* Added */\r\n\"new\" = \"Neu\";\r\n")
        output = try TableEdit.rename(key: "hello", to: "greeting").apply(to: output, format: .strings, path: "t.strings", language: nil)
        XCTAssertEqual(String(decoding: decode(output), as: UTF8.self),
                       "/* Greeting */\r\n\"greeting\"=\"Hallo\";\r\n\r\n/* Added */\r\n\"new\" = \"Neu\";\r\n")
        output = try TableEdit.setText(key: "greeting", value: "Servus", comment: "Said on arrival").apply(to: output, format: .strings, path: "t.strings", language: nil)
        XCTAssertEqual(String(decoding: decode(output), as: UTF8.self),
                       "/* Said on arrival */\r\n\"greeting\"=\"Servus\";\r\n\r\n/* Added */\r\n\"new\" = \"Neu\";\r\n")
    }

    /// A new key goes where it sorts in a file whose keys are sorted (with its comment, in the file's spacing), and at the
    /// end of one whose keys are not.
    func testANewKeyGoesWhereItSortsInASortedFile() throws {
        func set(_ key: String, in text: String, comment: String? = nil) throws -> String {
            var document = try StringsTextDocument(bytes: Array(text.utf8), path: "t.strings")
            try document.set(key, to: "new", comment: comment)
            return String(decoding: document.bytes, as: UTF8.self)
        }
        XCTAssertEqual(try set("b", in: "\"a\" = \"1\";\n\"c\" = \"3\";\n"), "\"a\" = \"1\";\n\"b\" = \"new\";\n\"c\" = \"3\";\n")
        XCTAssertEqual(try set("b", in: "/* A */\n\"a\" = \"1\";\n\n/* C */\n\"c\" = \"3\";\n", comment: "B"),
                       "/* A */\n\"a\" = \"1\";\n\n/* B */\n\"b\" = \"new\";\n\n/* C */\n\"c\" = \"3\";\n")
        XCTAssertEqual(try set("0", in: "\"a\" = \"1\";\r\n\"c\" = \"3\";\r\n"), "\"0\" = \"new\";\r\n\"a\" = \"1\";\r\n\"c\" = \"3\";\r\n")
        XCTAssertEqual(try set("d", in: "\"a\" = \"1\";\n\"c\" = \"3\";\n"), "\"a\" = \"1\";\n\"c\" = \"3\";\n\"d\" = \"new\";\n")
        XCTAssertEqual(try set("a", in: "\"b\" = \"1\";\n\"c\" = \"3\";\n\"0\" = \"z\";\n"), "\"b\" = \"1\";\n\"c\" = \"3\";\n\"0\" = \"z\";\n\"a\" = \"new\";\n",
                       "not sorted: the end")
        // A file whose last line has no line break keeps its end so: the new key is the new last line, a changed value changes only itself.
        XCTAssertEqual(try set("d", in: "\"a\" = \"1\";\r\n\"c\" = \"3\";"), "\"a\" = \"1\";\r\n\"c\" = \"3\";\r\n\"d\" = \"new\";")
        XCTAssertEqual(try set("c", in: "\"a\" = \"1\";\n\"c\" = \"3\";"), "\"a\" = \"1\";\n\"c\" = \"new\";")
        XCTAssertEqual(try set("b", in: "\"a\" = \"1\";\n\"c\" = \"3\";"), "\"a\" = \"1\";\n\"b\" = \"new\";\n\"c\" = \"3\";")
    }

    func testAnXMLStringsTableIsEditedInItsLayout() throws {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n    <key>hello</key> <string>Hi &amp; bye</string>\n"
            + "    <key>empty</key> <string/>\n</dict>\n</plist>\n"
        var output = try TableEdit.setText(key: "empty", value: "<full>", comment: nil).apply(to: Array(text.utf8), format: .strings, path: "x.strings",
                                                                                            language: nil)
        output = try TableEdit.setText(key: "new", value: "Neu", comment: nil).apply(to: output, format: .strings, path: "x.strings", language: nil)
        XCTAssertEqual(String(decoding: output, as: UTF8.self), "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n"
            + "    <key>hello</key> <string>Hi &amp; bye</string>\n    <key>empty</key> <string>&lt;full&gt;</string>\n"
            + "    <key>new</key> <string>Neu</string>\n</dict>\n</plist>\n")
        let file = StringsFile(bytes: output, path: "x.strings")
        XCTAssertEqual(file.form, .xmlPropertyList)
        XCTAssertEqual(strings(file.table), ["hello": "Hi & bye", "empty": "<full>", "new": "Neu"])
        XCTAssertThrowsError(try TableEdit.setText(key: "new", value: "x", comment: "c").apply(to: output, format: .strings, path: "x.strings", language: nil))
        // A carriage return is written as a reference (XML readers turn a raw one into a line feed): it reads back, in Foundation too.
        let returned = try TableEdit.setText(key: "new", value: "a\r\nb", comment: nil).apply(to: output, format: .strings, path: "x.strings",
                                                                                                language: nil)
        XCTAssertEqual(StringsFile(bytes: returned, path: "x.strings").table["new"]?.text, "a\r\nb")
        let foundation = try PropertyListSerialization.propertyList(from: Data(returned), format: nil) as? [String: String]
        XCTAssertEqual(foundation?["new"], "a\r\nb")
    }

    func testATableInBracesTakesANewKeyBeforeItsClosingBrace() throws {
        for text in ["{\n\"a\" = \"1\";\n}\n", "{\"a\" = \"1\";}"] {
            let output = try TableEdit.setText(key: "b", value: "2", comment: nil).apply(to: Array(text.utf8), format: .strings, path: "t.strings", language: nil)
            let file = StringsFile(bytes: output, path: "t.strings")
            XCTAssertEqual(file.diagnostics, [], String(decoding: output, as: UTF8.self))
            XCTAssertEqual(strings(file.table), ["a": "1", "b": "2"])
            XCTAssertTrue(String(decoding: output, as: UTF8.self).hasPrefix("{"))
        }
    }

    func testAFileWithErrorsIsNotEditedInPlace() {
        let broken = Array("\"a\" = \"1\"\n\"b\" = \"2\";\n".utf8)
        XCTAssertThrowsError(try TableEdit.setText(key: "b", value: "3", comment: nil).apply(to: broken, format: .strings, path: "t.strings", language: nil)) { error in
            XCTAssertTrue("\(error)".contains("t.strings: cannot be edited in place: line 1: expected ';' after value"), "\(error)")
        }
    }

    /// A `.stringsdict` device variation: a new entry, a device added to one, and the same in a binary file (re-encoded);
    /// an entry held as a format, a device's plural forms and an unknown device are refused.
    func testAStringsDictTakesADevicesText() throws {
        let edit = TableEdit.setVariation(key: "tap", path: ["device", "mac"], value: "Click")
        var output = try edit.apply(to: nil, format: .stringsdict, path: "t.stringsdict", language: nil)
        output = try TableEdit.setVariation(key: "tap", path: ["device", "iphone"], value: "Tap & hold")
            .apply(to: output, format: .stringsdict, path: "t.stringsdict", language: nil)
        XCTAssertEqual(StringsDictFile(bytes: output, path: "t.stringsdict").table["tap"]?.value,
                       .device(["mac": .text("Click"), "iphone": .text("Tap & hold")]))
        let binary = try PropertyListSerialization.data(fromPropertyList: ["tap": ["NSStringDeviceSpecificRuleType": ["mac": "Click"]]],
                                                        format: .binary, options: 0)
        let edited = try TableEdit.setVariation(key: "tap", path: ["device", "ipad"], value: "Tap")
            .apply(to: Array(binary), format: .stringsdict, path: "b.stringsdict", language: nil)
        XCTAssertEqual(StringsDictFile(bytes: edited, path: "b.stringsdict").table["tap"]?.value, .device(["mac": .text("Click"), "ipad": .text("Tap")]))
        let plain = try TableEdit.setPluralForm(key: "files", variable: "n", category: "other", value: "%d files", valueType: nil)
            .apply(to: nil, format: .stringsdict, path: "t.stringsdict", language: nil)
        for (refused, message) in [
            (TableEdit.setVariation(key: "files", path: ["device", "mac"], value: "x"), "entry \"files\" is not device-specific here"),
            (TableEdit.setVariation(key: "tap", path: ["device", "mac", "plural", "one"], value: "x"), "by device only, one text per device"),
            (TableEdit.setVariation(key: "tap", path: ["device", "toaster"], value: "x"), "by device only, one text per device"),
        ] {
            XCTAssertThrowsError(try refused.apply(to: plain, format: .stringsdict, path: "t.stringsdict", language: nil)) {
                XCTAssertTrue("\($0)".contains(message), "\($0)")
            }
        }
    }

    func testANewStringsDictEntryIsWrittenInTheFilesIndentation() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
              <key>files</key>
              <dict>
                <key>NSStringLocalizedFormatKey</key>
                <string>%#@n@</string>
                <key>n</key>
                <dict>
                  <key>NSStringFormatSpecTypeKey</key>
                  <string>NSStringPluralRuleType</string>
                  <key>NSStringFormatValueTypeKey</key>
                  <string>d</string>
                  <key>other</key>
                  <string>%d files</string>
                </dict>
              </dict>
            </dict>
            </plist>

            """
        var output = try TableEdit.setPluralForm(key: "files", variable: "n", category: "one", value: "%d file & more", valueType: nil)
            .apply(to: Array(text.utf8), format: .stringsdict, path: "t.stringsdict", language: nil)
        XCTAssertTrue(String(decoding: output, as: UTF8.self).contains("""
                  <key>other</key>
                  <string>%d files</string>
                  <key>one</key>
                  <string>%d file &amp; more</string>
                </dict>
            """), String(decoding: output, as: UTF8.self))
        output = try TableEdit.setPluralForm(key: "days", variable: "d", category: "other", value: "%d days", valueType: "ld")
            .apply(to: output, format: .stringsdict, path: "t.stringsdict", language: nil)
        let table = StringsDictFile(bytes: output, path: "t.stringsdict")
        XCTAssertEqual(table.diagnostics.filter { $0.severity == .error }, [])
        XCTAssertEqual(table.table["days"]?.substitutions["d"]?.formatSpecifier, "ld")
        XCTAssertTrue(String(decoding: output, as: UTF8.self).contains("\n  <key>days</key>\n  <dict>\n    <key>NSStringLocalizedFormatKey</key>\n"))
    }

    // MARK: - Helpers

    /// Whether `new` differs from `old` only inside the value of `key`'s (last) entry.
    private func changedRegion(_ old: [UInt8], _ new: [UInt8], encoding: TextEncoding, key: String) throws -> Bool {
        let (oldText, newText) = (decode(old), decode(new))
        let layout = oldText.withUnsafeBufferPointer { StringsTextParser.layout(of: $0).layout }
        guard let entry = layout.entries.last(where: { $0.key == key }) else { return false }
        let start = entry.valueRange?.lowerBound ?? entry.keyRange.upperBound
        let end = entry.valueRange?.upperBound ?? entry.end - 1
        return newText.starts(with: oldText[..<start]) && newText.reversed().starts(with: oldText[end...].reversed())
    }

    private func decode(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBufferPointer { input in DecodedText(bytes: input).withUTF8(of: input) { Array($0) } }
    }
}
