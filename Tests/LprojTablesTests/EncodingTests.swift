import Foundation
@testable import LprojFormats
import XCTest
@testable import LprojTables

/// Every way a .strings file is stored reads to the same table.
final class EncodingTests: XCTestCase {
    let text = "/* c */\n\"hello\" = \"Grüße 😀 你好\";\n"
    let expected = ["hello": "Grüße 😀 你好"]

    func utf16(_ string: String, bigEndian: Bool) -> [UInt8] {
        string.utf16.flatMap { bigEndian ? [UInt8($0 >> 8), UInt8($0 & 0xFF)] : [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    func utf32(_ string: String, bigEndian: Bool) -> [UInt8] {
        string.unicodeScalars.flatMap { scalar -> [UInt8] in
            let v = scalar.value
            let be = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            return bigEndian ? be : be.reversed()
        }
    }

    func check(_ bytes: [UInt8], form: StringsFile.Form, warnings: Int = 0, matchFoundation: Bool = true,
               file: StaticString = #filePath, line: UInt = #line) {
        let parsed = StringsFile(bytes: bytes, path: "x.strings")
        XCTAssertEqual(parsed.form, form, file: file, line: line)
        XCTAssertEqual(strings(parsed.table), expected, file: file, line: line)
        XCTAssertEqual(parsed.diagnostics.filter { $0.severity == .warning }.count, warnings, "\(parsed.diagnostics)", file: file, line: line)
        XCTAssertFalse(parsed.diagnostics.containsErrors, file: file, line: line)
        if matchFoundation {
            let theirs = try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil) as? [String: String]
            XCTAssertEqual(theirs, expected, file: file, line: line)
        }
    }

    func testUTF8WithAndWithoutBOM() {
        check(Array(text.utf8), form: .text(.utf8))
        check([0xEF, 0xBB, 0xBF] + Array(text.utf8), form: .text(.utf8WithBOM))
    }

    func testUTF16WithBOM() {
        check([0xFF, 0xFE] + utf16(text, bigEndian: false), form: .text(.utf16LittleEndian))
        check([0xFE, 0xFF] + utf16(text, bigEndian: true), form: .text(.utf16BigEndian))
    }

    func testUTF16WithoutBOM() {
        check(utf16(text, bigEndian: true), form: .text(.utf16BigEndian), warnings: 1, matchFoundation: false)
        // CoreFoundation cannot read BOM-less little-endian; we can, and warn.
        check(utf16(text, bigEndian: false), form: .text(.utf16LittleEndian), warnings: 1, matchFoundation: false)
    }

    func testUTF32WithBOM() {
        check([0, 0, 0xFE, 0xFF] + utf32(text, bigEndian: true), form: .text(.utf32BigEndian))
        check([0xFF, 0xFE, 0, 0] + utf32(text, bigEndian: false), form: .text(.utf32LittleEndian))
    }

    func testPropertyListForms() throws {
        let xml = try PropertyListSerialization.data(fromPropertyList: expected, format: .xml, options: 0)
        check(Array(xml), form: .xmlPropertyList)
        let binary = try PropertyListSerialization.data(fromPropertyList: expected, format: .binary, options: 0)
        check(Array(binary), form: .binaryPropertyList)
    }

    func testPropertyListThatIsNotADictionaryOfStrings() throws {
        let xml = try PropertyListSerialization.data(fromPropertyList: ["a": ["nested"]], format: .xml, options: 0)
        let parsed = StringsFile(bytes: xml, path: "x.strings")
        XCTAssertEqual(parsed.diagnostics.map(\.message), ["the value of \"a\" must be a string, found an array"])
    }

    func testBinaryPropertyListEdgeCases() throws {
        // Not a dictionary of strings: Foundation's path words the error.
        let nested = try PropertyListSerialization.data(fromPropertyList: ["a": ["nested"], "b": "ok"], format: .binary, options: 0)
        XCTAssertEqual(StringsFile(bytes: nested, path: "x.strings").diagnostics.map(\.message),
                       ["the value of \"a\" must be a string, found an array"])
        // Many entries (extended counts, two-byte references) and every kind of string.
        var big: [String: String] = [:]
        for index in 0..<700 { big["key \(index) ключ"] = index % 2 == 0 ? "ascii \(index)" : "ünïcödé \(index) 😀" }
        let data = try PropertyListSerialization.data(fromPropertyList: big, format: .binary, options: 0)
        XCTAssertEqual(strings(StringsFile(bytes: data, path: "x.strings").table), big)
        // Truncated and damaged files fail cleanly, never crash.
        for cut in [9, 40, data.count / 2, data.count - 1] {
            XCTAssertTrue(StringsFile(bytes: data.prefix(cut), path: "x.strings").diagnostics.containsErrors, "cut at \(cut)")
        }
        var damaged = Array(data)
        damaged[damaged.count - 9] ^= 0xFF   // the offset table's position
        XCTAssertTrue(StringsFile(bytes: damaged, path: "x.strings").diagnostics.containsErrors)
        // A byte between the offset table and the trailer: Foundation refuses the file, so must we
        // (found by the fuzzer's differential oracle).
        var padded = Array(data)
        padded.insert(0x41, at: padded.count - 32)
        XCTAssertNil(try? PropertyListSerialization.propertyList(from: Data(padded), format: nil))
        XCTAssertTrue(StringsFile(bytes: padded, path: "x.strings").diagnostics.containsErrors)
        // The same key twice (two references to one key string): whatever Foundation makes of
        // it is what we give (found by the fuzzer).
        var twice = Array(try PropertyListSerialization.data(fromPropertyList: ["a": "1", "b": "2"], format: .binary, options: 0))
        XCTAssertEqual(twice[8], 0xD2)
        twice[10] = twice[9]
        let theirs = try? PropertyListSerialization.propertyList(from: Data(twice), format: nil) as? [String: String]
        let ours = StringsFile(bytes: twice, path: "x.strings")
        if let theirs {
            XCTAssertEqual(strings(ours.table), theirs)
        } else {
            XCTAssertTrue(ours.diagnostics.containsErrors)
        }
    }

    func testUTF16LineNumbersFollowTheText() {
        let bad = "\"a\" = \"b\";\n\"c\" = \"d\"\n"
        let parsed = StringsFile(bytes: [0xFF, 0xFE] + utf16(bad, bigEndian: false), path: "x.strings")
        XCTAssertEqual(parsed.diagnostics.map { [$0.line, $0.column] }, [[2, 10]])
    }

    func testTheCorpusHoldsEveryForm() throws {
        var forms = Set<String>()
        for url in files(under: try corpusDirectory(), extensions: ["strings"]) {
            forms.insert("\(StringsFile(bytes: try Data(contentsOf: url), path: url.path).form)")
        }
        XCTAssertTrue(forms.isSuperset(of: ["text(LprojFormats.TextEncoding.utf8)", "text(LprojFormats.TextEncoding.utf16LittleEndian)",
                                            "binaryPropertyList"]), "\(forms)")
    }
}
