import LprojTestSupport
import XCTest
@testable import LprojTables

/// The UTF-8 check every parser runs on non-ASCII text: the first bad byte
/// it names is the one a byte-at-a-time reading of RFC 3629 names, on
/// random text of every sequence length and its edges, broken at random.
final class UTF8ValidationTests: XCTestCase {
    func testTheFirstInvalidByteIsTheOneAByteByByteReadingFinds() {
        let edges: [UInt32] = [0x41, 0x7F, 0x80, 0x7FF, 0x800, 0xFFF, 0x1000, 0xCFFF, 0xD000, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF,
                               0x10000, 0x3FFFF, 0x40000, 0xFFFFF, 0x100000, 0x10FFFF, 0x3042, 0x4E2D, 0xE9, 0x3B1]
        let broken: [[UInt8]] = [[0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],
                                 [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
                                 [0xFF], [0x80], [0xBF], [0xC2], [0xE1, 0x80], [0xF1, 0x80, 0x80], [0xC2, 0x41], [0xE1, 0x80, 0x41]]
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
                bytes.insert(contentsOf: broken.randomElement(using: &generator)!, at: Int.random(in: 0...bytes.count, using: &generator))
            default:
                break
            }
            let start = bytes.isEmpty ? 0 : Int.random(in: 0...min(2, bytes.count), using: &generator)
            let found = bytes.withUnsafeBufferPointer { UTF8Validation.firstInvalidOffset(in: $0, from: start) }
            XCTAssertEqual(found, Self.firstInvalidOffset(bytes, from: start), "round \(round): \(bytes.map { String($0, radix: 16) }) from \(start)")
            if start == 0 { XCTAssertEqual(found == nil, String(validating: bytes, as: UTF8.self) != nil, "round \(round)") }
        }
    }

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
