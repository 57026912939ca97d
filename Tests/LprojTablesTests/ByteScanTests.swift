import CByteScan
import Foundation
@testable import LprojFormats
import LprojTestSupport
import XCTest
@_spi(LprojInternals) @testable import LprojTables

/// A quoted string is copied 32 bytes a step with AVX2 (escapes that stand
/// for one byte written on the way), else 16 bytes a step: both give the
/// same table and the same problems, and either says a string's text may
/// be invalid UTF-8 exactly when it is.
final class ByteScanTests: XCTestCase {
    /// The parser on random files — ASCII runs that cross the steps' edges,
    /// characters of every length, broken sequences, every kind of escape,
    /// single and double quotes, strings that end near the end of the file —
    /// read with the 32-byte steps and with the 16-byte steps alone.
    func testThirtyTwoByteStepsParseAsSixteenByteStepsDo() {
        let escapes = [#"\n"#, #"\t"#, #"\""#, #"\\"#, #"\'"#, #"\a"#, #"\b"#, #"\f"#, #"\r"#, #"\v"#, #"\8"#, #"\z"#, #"\ "#,
                       #"\101"#, #"\7"#, #"\U00E9"#, #"\UD83D\UDE00"#, #"\UDE00"#, #"\u00e9"#, #"\x41"#, "\\é", "\\\u{3042}"]
        let characters = ["é", "ß", "\u{7FF}", "\u{800}", "あ", "中", "\u{FFFD}", "😀", "\u{10FFFF}"]
        let broken = UTF8ValidationTests.broken
        var generator = SplitMix64(seed: 0x32B)
        var problems = 0
        for round in 0..<4_000 {
            var file = Array("/* round \(round) */\n".utf8)
            for entry in 0..<Int.random(in: 1...4, using: &generator) {
                let quote = Int.random(in: 0..<5, using: &generator) == 0 ? "'" : "\""
                var value: [UInt8] = []
                for _ in 0..<Int.random(in: 0...12, using: &generator) {
                    switch Int.random(in: 0..<10, using: &generator) {
                    case 0..<4:
                        value += (0..<Int.random(in: 1...40, using: &generator)).map { _ in UInt8.random(in: 0x61...0x7A, using: &generator) }
                    case 4, 5:
                        value += Array(characters.randomElement(using: &generator)!.utf8)
                    case 6:
                        value += broken.randomElement(using: &generator)!
                    default:
                        value += Array(escapes.randomElement(using: &generator)!.utf8)
                    }
                }
                file += Array("\(quote)key \(entry)\(quote) = \(quote)".utf8) + value + Array("\(quote);\n".utf8)
            }
            if Int.random(in: 0..<3, using: &generator) == 0 { file += Array("\"last\" = \"ends the file\";".utf8) }
            let (wide, wideProblems) = Self.parse(file, wide: true)
            let (narrow, narrowProblems) = Self.parse(file, wide: false)
            let message = "round \(round): \(String(decoding: file, as: UTF8.self))"
            XCTAssertEqual(wide, narrow, message)
            XCTAssertEqual(wideProblems, narrowProblems, message)
            problems += wideProblems.count
        }
        XCTAssertGreaterThan(problems, 1_000, "the files should hold invalid UTF-8 and escapes that are warned about")
    }

    /// Text with no quote or backslash in it, followed by its closing quote
    /// and enough bytes after for whole steps: copied exactly, stopped at
    /// the quote, and doubtful exactly when the text is not UTF-8 — with
    /// either width of step, wherever a broken sequence falls, and whatever
    /// follows the quote in the same step.
    func testAScanDoubtsExactlyTheTextThatIsNotUTF8() {
        let characters = ["é", "\u{7FF}", "\u{800}", "あ", "\u{FFFD}", "😀", "\u{10FFFF}"]
        let broken = UTF8ValidationTests.broken
        var generator = SplitMix64(seed: 0xD0B7)
        var invalid = 0
        for round in 0..<20_000 {
            var text: [UInt8] = []
            for _ in 0..<Int.random(in: 0...20, using: &generator) {
                if Int.random(in: 0..<2, using: &generator) == 0 {
                    text += (0..<Int.random(in: 1...9, using: &generator)).map { _ in UInt8.random(in: 0x61...0x7A, using: &generator) }
                } else {
                    text += Array(characters.randomElement(using: &generator)!.utf8)
                }
            }
            if Int.random(in: 0..<2, using: &generator) == 0 {
                text.insert(contentsOf: broken.randomElement(using: &generator)!, at: Int.random(in: 0...text.count, using: &generator))
            }
            let isValid = String(validating: text, as: UTF8.self) != nil
            if !isValid { invalid += 1 }
            // What follows the quote is not the string's, broken or not.
            let after = Int.random(in: 0..<2, using: &generator) == 0 ? broken.randomElement(using: &generator)! : Array("é;".utf8)
            let source = Array(" = \"".utf8) + text + [UInt8(ascii: "\"")] + after + [UInt8](repeating: UInt8(ascii: " "), count: 40)
            for wide in [true, false] {
                var destination = [UInt8](repeating: 0, count: source.count + TextBuffer.slack)
                let (stop, written, doubtful) = source.withUnsafeBufferPointer { source in
                    destination.withUnsafeMutableBufferPointer {
                        ByteScan.copyQuotedText(UInt8(ascii: "\""), from: source, at: 4, to: $0.baseAddress!, validating: true, wide: wide)
                    }
                }
                let message = "round \(round), wide \(wide): \(text.map { String($0, radix: 16) })"
                XCTAssertEqual(stop, 4 + text.count, message)
                XCTAssertEqual(written, text.count, message)
                XCTAssertEqual(Array(destination[0..<text.count]), text, message)
                XCTAssertEqual(doubtful, !isValid, message)
            }
        }
        XCTAssertGreaterThan(invalid, 5_000)
    }

    /// Where the processor has AVX2, the 32-byte steps are the ones that run.
    func testTheThirtyTwoByteStepsRunWhereTheProcessorHasAVX2() throws {
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let flags = cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") }?.split(separator: " ") ?? []
        XCTAssertEqual(lproj_scan_is_vectorized() != 0, flags.contains("avx2"))
    }

    private static func parse(_ file: [UInt8], wide: Bool) -> (entries: [String: Entry], problems: [String]) {
        file.withUnsafeBufferPointer { bytes in
            var parser = StringsTextParser(bytes: bytes, wideScan: wide)
            parser.parse()
            let problems = parser.problems.map { "\($0.offset): \($0.severity) \($0.message) (\($0.hint ?? ""))" }
            var duplicates: [Int] = []
            return (parser.table(duplicates: &duplicates).entries, problems)
        }
    }
}
