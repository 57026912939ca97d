import Foundation
@testable import LprojFormats
import XCTest
@testable import LprojTables

/// Every rule of STRINGS-GRAMMAR.md: our values equal PropertyListSerialization's.
final class StringsGrammarTests: XCTestCase {
    /// Parses `text` with us and with Foundation; both must agree and we must see no error.
    @discardableResult
    func assertSameAsFoundation(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [String: String] {
        let ours = parseStrings(text)
        XCTAssertFalse(ours.diagnostics.containsErrors, "\(ours.diagnostics)", file: file, line: line)
        let theirs = try? PropertyListSerialization.propertyList(from: Data(text.utf8), options: [], format: nil) as? [String: String]
        XCTAssertEqual(strings(ours.table), theirs, file: file, line: line)
        return strings(ours.table)
    }

    func testQuotedAndUnquotedTokens() {
        XCTAssertEqual(assertSameAsFoundation(#""a" = "b"; 'c' = 'd'; e = f; "g" = 3.14; h = YES;"#),
                       ["a": "b", "c": "d", "e": "f", "g": "3.14", "h": "YES"])
        XCTAssertEqual(assertSameAsFoundation("NSHumanReadableCopyright = \"© 2026\";\npath/to:key.x-y$_ = v;"),
                       ["NSHumanReadableCopyright": "© 2026", "path/to:key.x-y$_": "v"])
    }

    func testKeyOnlyEntryHasItselfAsValue() {
        XCTAssertEqual(assertSameAsFoundation(#""OK"; "Cancel" ;"#), ["OK": "OK", "Cancel": "Cancel"])
    }

    func testCommentsAndWhitespace() {
        let text = "// line comment\n/* block\n comment */ \"a\" /* between */ = // here\n \"b\" /**/;\u{2028}\"c\"\u{2029}=\"d\";\r\n\t\u{0B}\u{0C}"
        XCTAssertEqual(assertSameAsFoundation(text), ["a": "b", "c": "d"])
    }

    func testRawNewlinesKeptInsideQuotes() {
        XCTAssertEqual(assertSameAsFoundation("\"a\" = \"one\ntwo\r\nthree\";"), ["a": "one\ntwo\r\nthree"])
    }

    func testSimpleEscapes() {
        XCTAssertEqual(assertSameAsFoundation(#""k" = "\a\b\f\n\r\t\v\"\'\\";"#), ["k": "\u{07}\u{08}\u{0C}\n\r\t\u{0B}\"'\\"])
    }

    func testUnknownEscapesDropTheBackslash() {
        XCTAssertEqual(assertSameAsFoundation(#""k" = "\q\ה\%";"#), ["k": "qה%"])
        XCTAssertEqual(assertSameAsFoundation("\"k\" = \"a\\\nb\";"), ["k": "a\nb"])
    }

    func testOctalEscapesUseNeXTSTEPLatin() {
        XCTAssertEqual(assertSameAsFoundation(#""k" = "\351\101\0\12x\1234";"#), ["k": "ØA\u{0}\nxS4"])
        XCTAssertEqual(assertSameAsFoundation(#""k" = "\777\376";"#), ["k": "\u{0}\u{0}"])
        // Every byte value maps as CoreFoundation maps it.
        for byte in 0..<256 {
            assertSameAsFoundation("\"k\" = \"\\\(String(byte, radix: 8))\";")
        }
    }

    func testUnicodeEscapes() {
        XCTAssertEqual(assertSameAsFoundation(#""k" = "\U00e9\U41Z\U\UD83D\UDE00\u203A";"#), ["k": "éAZ\u{0}😀u203A"])
    }

    func testLoneSurrogateBecomesReplacementWithWarning() {
        let file = parseStrings(#""k" = "\UD83Dx";"#)
        XCTAssertEqual(strings(file.table), ["k": "\u{FFFD}x"])
        XCTAssertEqual(file.diagnostics.map(\.severity), [.warning])
        XCTAssertEqual(file.diagnostics.first.map { [$0.line, $0.column] }, [1, 8])
    }

    func testDuplicateKeysLastWinsWithWarningNamingBothLines() {
        let file = parseStrings("\"a\" = \"1\";\n\"b\" = \"2\";\n\"a\" = \"3\";\n")
        XCTAssertEqual(strings(file.table), ["a": "3", "b": "2"])
        XCTAssertEqual(file.diagnostics.count, 1)
        let warning = file.diagnostics[0]
        XCTAssertEqual([warning.line, warning.column], [3, 1])
        XCTAssertEqual(warning.severity, .warning)
        XCTAssertTrue(warning.message.contains("on line 1"), warning.message)
        assertSameAsFoundation("\"a\" = \"1\";\n\"a\" = \"3\";\n")
    }

    func testBracedTopLevelDictionary() {
        XCTAssertEqual(assertSameAsFoundation(#"{ "a" = "b"; c = d; }"#), ["a": "b", "c": "d"])
    }

    func testEmptyAndCommentOnlyFiles() {
        XCTAssertEqual(assertSameAsFoundation("  /* nothing */\n// here\n"), [:])
        let empty = StringsFile(bytes: [UInt8](), path: "e.strings")
        XCTAssertEqual(empty.table, Table())
        XCTAssertEqual(empty.diagnostics.map(\.severity), [.warning])
    }

    func testLoneSlashStartsAnUnquotedString() {
        XCTAssertEqual(assertSameAsFoundation("\"k\" = /usr/bin;"), ["k": "/usr/bin"])
    }
}
