import Foundation
@testable import LprojFormats
import XCTest
@testable import LprojTables

final class StringsDictTests: XCTestCase {
    func plist(_ body: String) -> [UInt8] {
        Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \(body)
        </dict>
        </plist>
        """.utf8)
    }

    func variable(_ name: String, _ forms: [String: String], spec: String = "NSStringPluralRuleType", valueType: String? = "d") -> String {
        var body = "<key>\(name)</key><dict><key>NSStringFormatSpecTypeKey</key><string>\(spec)</string>"
        if let valueType { body += "<key>NSStringFormatValueTypeKey</key><string>\(valueType)</string>" }
        for (category, text) in forms.sorted(by: { $0.key < $1.key }) { body += "<key>\(category)</key><string>\(text)</string>" }
        return body + "</dict>"
    }

    func testEntryWithTwoVariables() {
        let body = """
            <key>files</key>
            <dict>
                <key>NSStringLocalizedFormatKey</key><string>%#@files@ in %#@folders@</string>
                \(variable("files", ["one": "%d file", "other": "%d files"]))
                \(variable("folders", ["one": "%d folder", "other": "%d folders"], valueType: "%ld"))
                \(variable("unused", ["other": "x"]))
            </dict>
            """
        let file = StringsDictFile(bytes: plist(body), path: "L.stringsdict")
        XCTAssertEqual(file.diagnostics, [])
        let entry = file.table["files"]
        XCTAssertEqual(entry?.value, .text("%#@files@ in %#@folders@"))
        XCTAssertEqual(entry?.substitutions["files"], Substitution(formatSpecifier: "d", variants: .plural(["one": .text("%d file"), "other": .text("%d files")])))
        XCTAssertEqual(entry?.substitutions["folders"]?.formatSpecifier, "ld")
        XCTAssertEqual(entry?.substitutions.count, 3)
    }

    func testUndefinedVariableIsAnErrorOnTheFormatKeyLine() {
        let body = "<key>k</key>\n<dict>\n<key>NSStringLocalizedFormatKey</key><string>%#@n@ %1$#@m@</string>\n\(variable("n", ["other": "x"]))\n</dict>"
        let file = StringsDictFile(bytes: plist(body), path: "L.stringsdict")
        XCTAssertEqual(file.diagnostics.map(\.message), ["entry \"k\" uses %#@m@ but defines no variable \"m\""])
        XCTAssertEqual(file.diagnostics.first?.line, 7)
        XCTAssertNil(file.table["k"])
    }

    func testMissingOtherAndUnknownCategoryAreWarnings() {
        let body = "<key>k</key><dict><key>NSStringLocalizedFormatKey</key><string>%#@n@</string>\(variable("n", ["one": "x", "One": "y"]))</dict>"
        let file = StringsDictFile(bytes: plist(body), path: "L.stringsdict")
        XCTAssertEqual(Set(file.diagnostics.map(\.severity)), [.warning])
        XCTAssertEqual(file.diagnostics.count, 2)
        XCTAssertTrue(file.diagnostics.contains { $0.message.contains("\"One\"") && $0.hint == "write \"one\"" })
        XCTAssertNotNil(file.table["k"])
    }

    func testUnknownSpecTypeAndMissingFormatKey() {
        let body = """
            <key>a</key><dict><key>NSStringLocalizedFormatKey</key><string>%#@n@</string>\(variable("n", ["other": "x"], spec: "NSStringPluralRuleTyp"))</dict>
            <key>b</key><dict>\(variable("n", ["other": "x"]))</dict>
            <key>c</key><string>not a dict</string>
            """
        let file = StringsDictFile(bytes: plist(body), path: "L.stringsdict")
        let messages = file.diagnostics.filter { $0.severity == .error }.map(\.message)
        XCTAssertEqual(messages.count, 3, "\(messages)")
        XCTAssertTrue(messages.contains { $0.contains("unknown spec type \"NSStringPluralRuleTyp\"") })
        XCTAssertTrue(messages.contains { $0.contains("entry \"b\" has no NSStringLocalizedFormatKey") })
        XCTAssertTrue(messages.contains { $0.contains("entry \"c\" must be a dictionary") })
        XCTAssertEqual(file.diagnostics.map(\.line), [5, 6, 7])
    }

    func testMalformedXMLNamesTheLine() {
        let file = StringsDictFile(bytes: plist("<key>a</key>\n<strin>b</string>"), path: "L.stringsdict")
        XCTAssertEqual(file.diagnostics.count, 1)
        XCTAssertEqual(file.diagnostics.first?.severity, .error)
        XCTAssertTrue(file.diagnostics.first!.message.contains("strin"), file.diagnostics.first!.message)
    }

    /// An entry is placed where the root dictionary has its key: not at a
    /// nested key of the same name written before it, and with its
    /// entities decoded.
    func testAnEntryIsPlacedAtItsOwnKey() {
        let body = """
            <key>a</key><dict><key>NSStringLocalizedFormatKey</key><string>%#@one@</string>
            \(variable("one", ["other": "x"]))</dict>
            <!-- <dict><key>one</key> -->
            <key>one</key><string>not a dict</string>
            <key>Tom &amp; Jerry</key><string>not a dict either</string>
            """
        let file = StringsDictFile(bytes: plist(body), path: "L.stringsdict")
        XCTAssertEqual(file.diagnostics.map(\.message), ["entry \"one\" must be a dictionary, found a string",
                                                         "entry \"Tom & Jerry\" must be a dictionary, found a string"])
        XCTAssertEqual(file.diagnostics.map { [$0.line, $0.column] }, [[8, 1], [9, 1]])
    }

    func testCorpusStringsDictsParseWithoutErrors() throws {
        let paths = files(under: try corpusDirectory(), extensions: ["stringsdict"])
        XCTAssertEqual(paths.count, 40)
        for url in paths {
            let file = StringsDictFile(bytes: try Data(contentsOf: url), path: url.path)
            XCTAssertFalse(file.diagnostics.containsErrors, "\(file.diagnostics.prefix(3))")
            XCTAssertGreaterThan(file.table.count, 0, url.path)
        }
    }
}
