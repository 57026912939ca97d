import Foundation
@testable import LprojFormats
import LprojTestSupport
import XCTest
@_spi(LprojInternals) @testable import LprojTables

/// The UTF-8 check every parser runs on non-ASCII text: the first bad byte
/// it names is the one a byte-at-a-time reading of RFC 3629 names, on
/// random text of every sequence length and its edges, broken at random.
final class UTF8ValidationTests: XCTestCase {
    func testTheFirstInvalidByteIsTheOneAByteByByteReadingFinds() {
        let edges: [UInt32] = [0x41, 0x7F, 0x80, 0x7FF, 0x800, 0xFFF, 0x1000, 0xCFFF, 0xD000, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF,
                               0x10000, 0x3FFFF, 0x40000, 0xFFFFF, 0x100000, 0x10FFFF, 0x3042, 0x4E2D, 0xE9, 0x3B1]
        var generator = SplitMix64(seed: 0x0007F8)
        for round in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...24, using: &generator) {
                let scalar = Int.random(in: 0..<3, using: &generator) == 0
                    ? UInt32.random(in: 0...0x10FFFF, using: &generator)
                    : edges.randomElement(using: &generator)!
                guard let valid = Unicode.Scalar(scalar) else { continue }
                bytes += Array(String(Character(valid)).utf8)
            }
            switch Int.random(in: 0..<4, using: &generator) {
            case 0 where !bytes.isEmpty:
                bytes[Int.random(in: bytes.indices, using: &generator)] = UInt8.random(in: 0x80...0xFF, using: &generator)
            case 1 where !bytes.isEmpty:
                bytes.removeLast(Int.random(in: 1...min(3, bytes.count), using: &generator))
            case 2:
                bytes.insert(contentsOf: Self.broken.randomElement(using: &generator)!, at: Int.random(in: 0...bytes.count, using: &generator))
            default:
                break
            }
            let start = bytes.isEmpty ? 0 : Int.random(in: 0...min(2, bytes.count), using: &generator)
            let found = bytes.withUnsafeBufferPointer { UTF8Validation.firstInvalidOffset(in: $0, from: start) }
            XCTAssertEqual(found, Self.firstInvalidOffset(bytes, from: start), "round \(round): \(bytes.map { String($0, radix: 16) }) from \(start)")
            if start == 0 { XCTAssertEqual(found == nil, String(validating: bytes, as: UTF8.self) != nil, "round \(round)") }
        }
    }

    /// A quoted string is checked as it is copied, a vector a step:
    /// its value and whether it is reported as invalid UTF-8 are those of
    /// its text read whole, wherever the steps cut it — after a quote, an
    /// escape, near the start or the end of the file.
    func testAStringCheckedAsItIsCopiedIsInvalidExactlyWhenItsTextIs() throws {
        let scalars: [UInt32] = [0xE9, 0x7FF, 0x800, 0x3042, 0xD7FF, 0xE000, 0xFFFD, 0x10000, 0x10FFFF, 0x1F600, 0x4E2D]
        var generator = SplitMix64(seed: 0x16B)
        var invalidFiles = 0
        for round in 0..<6_000 {
            var source: [UInt8] = [], text: [UInt8] = []
            for _ in 0..<Int.random(in: 0...10, using: &generator) {
                switch Int.random(in: 0..<10, using: &generator) {
                case 0..<3:
                    let run = (0..<Int.random(in: 1...20, using: &generator)).map { _ in UInt8.random(in: 0x61...0x7A, using: &generator) }
                    source += run
                    text += run
                case 3..<6:
                    let bytes = Array(String(Character(Unicode.Scalar(scalars.randomElement(using: &generator)!)!)).utf8)
                    source += bytes
                    text += bytes
                case 6, 7:
                    let bytes = Self.broken.randomElement(using: &generator)!
                    source += bytes
                    text += bytes
                case 8:
                    source += Array(#"\n"#.utf8)
                    text.append(0x0A)
                default:
                    source += Array(#"\""#.utf8)
                    text.append(UInt8(ascii: "\""))
                }
            }
            let prefix = [[], Array("/* c */\n".utf8), Array(repeating: UInt8(ascii: " "), count: Int.random(in: 1...20, using: &generator))]
                .randomElement(using: &generator)!
            let suffix = [[], Array("\n".utf8), Array("\n\"z\" = \"end of the table\";\n".utf8)].randomElement(using: &generator)!
            let file = prefix + Array(#""key" = ""#.utf8) + source + Array(#"";"#.utf8) + suffix
            let parsed = StringsFile(bytes: Data(file), path: "p.strings")
            let message = "round \(round): \(source.map { String($0, radix: 16) })"
            XCTAssertEqual(parsed.table["key"]?.text, String(decoding: text, as: UTF8.self), message)
            let invalid = String(validating: text, as: UTF8.self) == nil
            XCTAssertEqual(parsed.diagnostics.contains { $0.message.hasPrefix("invalid UTF-8") }, invalid, message)
            if invalid { invalidFiles += 1 }
        }
        XCTAssertGreaterThan(invalidFiles, 1_000)
    }

    /// Valid text copied away from the start of the buffer is not left
    /// for the byte-by-byte check (the point of checking while copying).
    func testValidTextCopiedIsNotDoubtful() {
        var generator = SplitMix64(seed: 0xC0DE)
        for round in 0..<2_000 {
            var text = Array(#""key" = ""#.utf8)
            let start = text.count
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                let scalar = Unicode.Scalar(UInt32.random(in: 0x20...0x10FFFF, using: &generator)) ?? "x"
                if scalar != "\"", scalar != "\\" { text += Array(String(Character(scalar)).utf8) }
            }
            let end = text.count
            text += Array("\";\n\"another key\" = \"and its value\";\n".utf8)
            for wide in [true, false] {
                var destination = [UInt8](repeating: 0, count: text.count + TextBuffer.slack)
                let (stop, written, doubtful) = text.withUnsafeBufferPointer { source in
                    destination.withUnsafeMutableBufferPointer {
                        ByteScan.copyQuotedText(UInt8(ascii: "\""), from: source, at: start, to: $0.baseAddress!, validating: true, wide: wide)
                    }
                }
                XCTAssertEqual(stop, end, "round \(round)")
                XCTAssertEqual(written, end - start, "round \(round)")
                XCTAssertEqual(Array(destination[0..<end - start]), Array(text[start..<end]), "round \(round)")
                XCTAssertFalse(doubtful, "round \(round), wide \(wide): \(text[start..<end].map { String($0, radix: 16) })")
            }
        }
    }

    /// Sequences that are not UTF-8: overlongs, surrogates, beyond U+10FFFF,
    /// bytes that never appear, lone continuations, leads cut short.
    /// (ByteScanTests breaks its text with them too.)
    static let broken: [[UInt8]] = [
        [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],
        [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xF5, 0x80],
        [0xFF], [0x80], [0xBF], [0xC2], [0xE0], [0xE1, 0x80], [0xF0, 0x90], [0xF1, 0x80, 0x80], [0xC2, 0x41], [0xE1, 0x80, 0x41],
    ]

    /// RFC 3629's table, one byte at a time.
    private static func firstInvalidOffset(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            let lead = bytes[index]
            let (length, low, high): (Int, UInt8, UInt8) = switch lead {
            case 0x00...0x7F: (1, 0, 0)
            case 0xC2...0xDF: (2, 0x80, 0xBF)
            case 0xE0: (3, 0xA0, 0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: (3, 0x80, 0xBF)
            case 0xED: (3, 0x80, 0x9F)
            case 0xF0: (4, 0x90, 0xBF)
            case 0xF1...0xF3: (4, 0x80, 0xBF)
            case 0xF4: (4, 0x80, 0x8F)
            default: (0, 0, 0)
            }
            guard length > 0, index + length <= bytes.count else { return index }
            if length > 1 {
                guard (low...high).contains(bytes[index + 1]) else { return index }
                for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) { return index }
            }
            index += length
        }
        return nil
    }
}
