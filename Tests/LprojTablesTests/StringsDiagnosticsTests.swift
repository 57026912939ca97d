import Foundation
@testable import LprojFormats
import XCTest
@testable import LprojTables

/// Each classic mistake gets an error at the right line and column, and a hint.
final class StringsDiagnosticsTests: XCTestCase {
    func errors(_ text: String) -> [Diagnostic] {
        parseStrings(text).diagnostics.filter { $0.severity == .error }
    }

    func assertError(_ text: String, at position: [Int], contains fragment: String, hint: String? = nil,
                     file: StaticString = #filePath, line: UInt = #line) {
        let found = errors(text)
        XCTAssertEqual(found.count, 1, "\(found)", file: file, line: line)
        guard let error = found.first else { return }
        XCTAssertEqual([error.line, error.column], position, "\(error)", file: file, line: line)
        XCTAssertTrue(error.message.contains(fragment), "\(error.message) lacks \(fragment)", file: file, line: line)
        if let hint { XCTAssertTrue(error.hint?.contains(hint) == true, "\(String(describing: error.hint)) lacks \(hint)", file: file, line: line) }
        // CoreFoundation must not accept what we call an error... unless it silently truncates.
    }

    func testMissingSemicolonIsNamedRightAfterTheValue() {
        assertError("\"a\" = \"b\";\n\"c\" = \"d\"\n\n\"e\" = \"f\";\n", at: [2, 10], contains: "expected ';' after value", hint: "add ';'")
    }

    func testMissingSemicolonDoesNotHideLaterErrors() {
        let found = errors("\"a\" = \"b\"\n\"c\" = \"d\"\n\"e\" = \"f\";\n")
        XCTAssertEqual(found.map { [$0.line, $0.column] }, [[1, 10], [2, 10]])
        XCTAssertEqual(strings(parseStrings("\"a\" = \"b\"\n\"c\" = \"d\";").table), ["a": "b", "c": "d"])
    }

    func testInnerUnescapedQuote() {
        assertError("\"greeting\" = \"Say \"hello\" now\";\n\"next\" = \"ok\";", at: [1, 20], contains: "found 'h'", hint: "\\\"")
        // The next line still parses.
        XCTAssertEqual(strings(parseStrings("\"g\" = \"Say \"hi\" now\";\n\"next\" = \"ok\";").table)["next"], "ok")
    }

    func testFullWidthSemicolon() {
        assertError("\"a\" = \"b\"；\n\"c\" = \"d\";", at: [1, 10], contains: "'；' (U+FF1B FULLWIDTH SEMICOLON)", hint: "';'")
        XCTAssertEqual(strings(parseStrings("\"a\" = \"b\"；\n\"c\" = \"d\";").table), ["a": "b", "c": "d"])
    }

    func testFullWidthEquals() {
        assertError("\"a\" ＝ \"b\";", at: [1, 5], contains: "U+FF1D FULLWIDTH EQUALS SIGN", hint: "'='")
    }

    func testTypographicQuotes() {
        assertError("\"a\" = “b”;\n\"c\" = \"d\";", at: [1, 7], contains: "U+201C LEFT DOUBLE QUOTATION MARK", hint: "ASCII quotes")
        XCTAssertEqual(strings(parseStrings("\"a\" = “b”;\n\"c\" = \"d\";").table), ["a": "b", "c": "d"])
        assertError("\"a\" = ＂b＂;", at: [1, 7], contains: "U+FF02 FULLWIDTH QUOTATION MARK")
    }

    /// What Foundation serves, lprojd serves (with a warning): the entries before an unclosed comment, naming those it hides.
    func testAnUnclosedCommentServesWhatComesBeforeItAndNamesWhatItHides() throws {
        for (text, before, hidden) in [("\"a\" = \"b\";\n  /* open\n\"c\" = \"d\";\n\"e\" = \"f\";\n", ["a": "b"], #"2 entries after it are not served: "c", "e""#),
                                       ("\"a\" = \"b\";\n  /* nothing after", ["a": "b"], nil),
                                       ("\"a\" = \"b\"; /* /* /* \"c\" = \"d\";", ["a": "b"], #"1 entry after it is not served: "c""#)] {
            let parsed = parseStrings(text)
            XCTAssertEqual(strings(parsed.table), before, text)
            let foundation = try PropertyListSerialization.propertyList(from: Data(text.utf8), format: nil) as? [String: String]
            XCTAssertEqual(foundation, before, "Foundation serves the same: \(text)")
            XCTAssertEqual(parsed.diagnostics.count, 1, "\(parsed.diagnostics)")
            let warning = try XCTUnwrap(parsed.diagnostics.first)
            XCTAssertEqual(warning.severity, .warning)
            XCTAssertTrue(warning.message.hasPrefix("unclosed comment"), warning.message)
            if let hidden { XCTAssertTrue(warning.message.hasSuffix(hidden), warning.message) } else { XCTAssertFalse(warning.message.contains("not served"), warning.message) }
        }
        XCTAssertEqual(parseStrings("\"a\" = \"b\";\n  /* open").diagnostics.map { [$0.line, $0.column] }, [[2, 3]], "where it opens")
        // A file of nothing but openings is read at most twice.
        let openings = "\"a\" = \"b\";" + String(repeating: "/* ", count: 200_000)
        XCTAssertEqual(strings(parseStrings(openings).table), ["a": "b"])
    }

    func testNonASCIIUnquotedKey() {
        assertError("\"a\" = \"b\";\n收录 = \"c\";\n\"d\" = \"e\";", at: [2, 1], contains: "'收' (U+6536", hint: "quote the key")
        XCTAssertEqual(strings(parseStrings("\"a\" = \"b\";\n收录 = \"c\";\n\"d\" = \"e\";").table), ["a": "b", "d": "e"])
    }

    func testObjectiveCLiteral() {
        assertError("@\"a\" = \"b\";", at: [1, 1], contains: "Objective-C", hint: "remove the '@'")
        XCTAssertEqual(errors("@\"a\" = @\"b\";").map(\.column), [1, 8])
        XCTAssertEqual(strings(parseStrings("@\"a\" = @\"b\";").table), ["a": "b"])
    }

    func testTokensThatCannotStartAKey() {
        for (token, name) in [("}", "'}'"), ("#", "'#'"), ("+", "'+'")] {
            assertError("\"a\" = \"b\";\n\(token) \"c\" = \"d\";", at: [2, 1], contains: "key cannot start with \(name)")
        }
    }

    func testUnterminatedString() {
        assertError("\"a\" = \"b\";\n\"c\" = \"d;\n", at: [2, 7], contains: "unterminated string")
        assertError("\"a\" = \"b\";\n\"c\" = \"d;\n", at: [2, 7], contains: "opened here on line 2 is never closed; the string runs to the end of the file (line 3)")
        assertError("\"a\" = \"b\\", at: [1, 7], contains: "unterminated string", hint: "backslash")
    }

    /// A value whose closing quote is missing ends at the next quote, lines
    /// later: the error names the line it opened on (where the fix goes) and the one it ran to.
    func testAStringThatRunsOnNamesWhereItOpened() {
        assertError("\"a\" = \"b;\n\"c\" = \"d\";\n\"e\" = \"f\";\n", at: [1, 7], contains: "this string runs from line 1 to line 2, where 'c' follows it",
                    hint: "closing quote is probably missing on line 1")
    }

    func testValueMustBeAString() {
        assertError("\"a\" = { b = c; };\n\"d\" = \"e\";", at: [1, 7], contains: "found a dictionary")
        XCTAssertEqual(errors("\"a\" = (1, 2);\n\"b\" = <0fab>;").map(\.line), [1, 2])
    }

    func testMissingSeparatorAfterKey() {
        assertError("\"a\" \"b\";", at: [1, 5], contains: "expected '=' or ';' after key \"a\"")
        assertError("\"a\"", at: [1, 4], contains: "found the end of the file")
    }

    func testNoBreakSpaceBetweenTokens() {
        assertError("\"a\" =\u{00A0}\"b\";", at: [1, 6], contains: "U+00A0 NO-BREAK SPACE", hint: "plain space")
    }

    func testInvalidUTF8NamesLineAndByte() {
        var bytes = Array("\"a\" = \"b\";\n\"c\" = \"".utf8)
        bytes += [0xC3, 0x28]
        bytes += Array("\";\n".utf8)
        let file = StringsFile(bytes: bytes, path: "x.strings")
        let error = file.diagnostics.first { $0.severity == .error }
        XCTAssertEqual(error.map { [$0.line, $0.column] }, [2, 8])
        XCTAssertTrue(error?.message.contains("byte offset 18") == true, "\(String(describing: error))")
    }

    /// The scan that finds a value's end also tells whether its text needs its UTF-8 checked: a bad byte
    /// anywhere around its 16-byte steps, before or after an escape, is found; good text is kept as it is.
    func testInvalidUTF8IsFoundWhereverItFallsInAValue() {
        let prefix = Array("\"k\" = \"".utf8)
        for length in [0, 1, 15, 16, 17, 31, 40] {
            for position in 0...length {
                for escape in ["", "\\n", "\\\""] {
                    var value = Array(String(repeating: "a", count: length).utf8)
                    value.insert(0xFF, at: position)
                    let escaped = Array(escape.utf8)
                    let bytes = prefix + escaped + value + escaped + Array("\";\n".utf8)
                    let file = StringsFile(bytes: bytes, path: "x.strings")
                    let errors = file.diagnostics.filter { $0.severity == .error }
                    let offset = prefix.count + escaped.count + position
                    XCTAssertEqual(errors.count, 1, "length \(length), bad byte at \(position), escape \(escape)")
                    XCTAssertTrue(errors.first?.message.contains("byte offset \(offset)") == true, "\(errors)")
                    var good = value
                    good[position] = UInt8(ascii: "a")
                    let valid = prefix + escaped + Array(String(repeating: "é", count: 2).utf8) + good + escaped + Array("\";\n".utf8)
                    XCTAssertEqual(StringsFile(bytes: valid, path: "x.strings").diagnostics, [], "length \(length), escape \(escape)")
                }
            }
        }
        // A backslash before a non-ASCII character keeps the character: still checked.
        let file = StringsFile(bytes: prefix + [0x5C, 0xC3, 0x28] + Array("\";\n".utf8), path: "x.strings")
        XCTAssertEqual(file.diagnostics.filter { $0.severity == .error }.count, 1)
    }

    func testValueSpanningLinesHintsAtMissingClosingQuote() {
        let found = errors("\"a\" = \"b;\n\"c\" = \"d\";\n")
        XCTAssertEqual(found.first?.hint?.contains("closing quote"), true, "\(found)")
    }

    func testUnicodeEscapeLookalikeWarns() {
        let file = parseStrings(#""k" = "\u00e9";"#)
        XCTAssertEqual(strings(file.table), ["k": "u00e9"])
        XCTAssertEqual(file.diagnostics.map(\.severity), [.warning])
        XCTAssertEqual(file.diagnostics.first?.hint?.contains("\\U00e9"), true)
    }

    func testColumnsCountCharactersNotBytes() {
        // "é" is two bytes, one character; "👍🏽" is two scalars, one character.
        assertError("\"é👍🏽\" = \"b\"\n", at: [1, 11], contains: "expected ';'")
    }

    func testEveryErrorWeReportIsRejectedOrTruncatedByFoundation() throws {
        let samples = ["\"a\" = \"b\"\n\"c\" = \"d\";", "\"a\" = \"b\"；", "收 = a;", "\"a\" = {b=c;};"]
        for text in samples {
            XCTAssertTrue(parseStrings(text).diagnostics.containsErrors, text)
            let theirs = try? PropertyListSerialization.propertyList(from: Data(text.utf8), options: [], format: nil) as? [String: String]
            // Either Foundation fails, or it silently returns fewer entries than the text holds.
            XCTAssertTrue(theirs == nil || theirs!.count < 2 || text.contains("{"), text)
        }
    }
}
