import Foundation
import LprojTables
import LprojTestSupport
import XCTest
@testable import LprojProtocol

/// The one-pass reading of `table-changed` agrees with `JSONDecoder` on
/// every line both read — seeded events with every kind of string and
/// entry, written as the daemon writes them and as a plain `JSONEncoder`
/// does, and thousands of mutations of them — and reads every event the
/// daemon writes (the decoder is only its fallback).
final class TableChangedScanTests: XCTestCase {
    private static let pieces = ["a", "Home", "\"", "\\", "/", "\n", "\t", "\u{1}", "\u{7F}", "é", "e\u{301}", "日本", "🎉", "\u{FFFF}", " ", "{", "}", "[", "]",
                                 ":", ","]

    private func text(_ random: inout SplitMix64) -> String {
        (0..<random.next(6)).map { _ in Self.pieces[random.next(Self.pieces.count)] }.joined()
    }

    private func entry(_ random: inout SplitMix64) -> Entry {
        switch random.next(6) {
        case 0: return Entry(value: .plural(["one": .text(text(&random)), "other": .text(text(&random))]))
        case 1: return Entry(value: .text(text(&random)), state: .needsReview)
        default: return Entry(text: text(&random))
        }
    }

    private func event(_ random: inout SplitMix64) -> TableChanged {
        var old: [String: Entry] = [:], new: [String: Entry] = [:]
        for _ in 0..<random.next(5) { old[text(&random)] = entry(&random) }
        new = old
        for _ in 0..<random.next(5) { new[text(&random)] = entry(&random) }
        for key in old.keys where random.next(3) == 0 { new[key] = nil }
        for key in old.keys where random.next(3) == 0 { new[key] = entry(&random) }
        var event = TableChanged(clock: Clock(instance: "9f2c-\(random.next(99))", sequence: random.next()), bundle: "/srv/" + text(&random),
                                 language: ["fr", "zh-Hant", "pt_BR", text(&random)][random.next(4)], table: text(&random),
                                 diff: TableDiff(from: Table(old), to: Table(new)), deleted: random.next(4) == 0)
        event.image = [nil, true, false][random.next(3)]
        return event
    }

    private func assertSame(_ scanned: TableChanged, _ decoded: TableChanged, _ line: [UInt8], file: StaticString = #filePath, line number: UInt = #line) {
        let text = String(decoding: line, as: UTF8.self)
        XCTAssertEqual(scanned.clock, decoded.clock, text, file: file, line: number)
        XCTAssertEqual(scanned.bundle, decoded.bundle, text, file: file, line: number)
        XCTAssertEqual(scanned.language, decoded.language, text, file: file, line: number)
        XCTAssertEqual(scanned.table, decoded.table, text, file: file, line: number)
        XCTAssertEqual(scanned.added, decoded.added, text, file: file, line: number)
        XCTAssertEqual(scanned.changed, decoded.changed, text, file: file, line: number)
        XCTAssertEqual(scanned.removed, decoded.removed, text, file: file, line: number)
        XCTAssertEqual(scanned.deleted, decoded.deleted, text, file: file, line: number)
        XCTAssertEqual(scanned.image, decoded.image, text, file: file, line: number)
    }

    func testEveryEventTheDaemonWritesIsScannedAsTheDecoderReadsIt() throws {
        var random = SplitMix64(seed: 24)
        let plain = JSONEncoder()
        for _ in 0..<2_000 {
            let event = event(&random)
            // As the daemon writes it (addressed, sorted keys, slashes as they are) and as a plain encoder does (escaped slashes).
            for line in [try Wire.event(event, subscription: "live").dropLast(), Array(try plain.encode(event))[...]] {
                let line = Array(line)
                let decoded = try JSONDecoder().decode(TableChanged.self, from: Data(line))
                guard let scanned = TableChanged.scanned(line) else { return XCTFail("not scanned: \(String(decoding: line, as: UTF8.self))") }
                assertSame(scanned, decoded, line)
                assertSame(scanned, event, line)
            }
        }
    }

    func testEscapesAndDoubtfulLines() throws {
        let head = "{\"clock\":\"i:1\",\"bundle\":\"/b\",\"language\":\"fr\",\"table\":\"T\",\"removed\":[],"
        func scanned(_ tail: String) -> TableChanged? { TableChanged.scanned(Array((head + tail).utf8)) }
        XCTAssertEqual(scanned("\"added\":{\"\\u00e9\\/\\ud83c\\udf89\":\"\\\"\\\\\\b\\f\\n\\r\\t\\u0041\"},\"changed\":{}}")?.added,
                       ["é/🎉": Entry(text: "\"\\\u{8}\u{C}\n\r\tA")])
        XCTAssertEqual(scanned("\"added\":{},\"changed\":{},\"extra\":[{\"x\":[1,2]},\"]\"],\"deleted\":null,\"image\":true}")?.image, true)
        // Each of these is left to the decoder: a lone surrogate, a bad escape, a raw control character, a key or member
        // given twice, a missing member, a field of another type, trailing bytes, invalid UTF-8.
        for tail in ["\"added\":{\"\\ud83c\":\"x\"},\"changed\":{}}", "\"added\":{\"\\udf89\":\"x\"},\"changed\":{}}",
                     "\"added\":{\"\\x\":\"x\"},\"changed\":{}}", "\"added\":{\"\u{1}\":\"x\"},\"changed\":{}}",
                     "\"added\":{\"k\":\"x\",\"k\":\"y\"},\"changed\":{}}", "\"added\":{},\"changed\":{},\"table\":\"U\"}",
                     "\"added\":{}}", "\"added\":{},\"changed\":[]}", "\"added\":{},\"changed\":{},\"deleted\":1}",
                     "\"added\":{},\"changed\":{}} x", "\"added\":{},\"changed\":{},}", "\"added\":{\"k\":7},\"changed\":{}}"] {
            XCTAssertNil(scanned(tail), tail)
        }
        XCTAssertNil(TableChanged.scanned(Array(head.utf8).dropLast() + [0x2C, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]))
    }

    func testMutatedLinesAreScannedAsTheDecoderReadsThemOrLeftToIt() throws {
        var random = SplitMix64(seed: 25)
        var compared = 0
        let base = try (0..<200).map { _ in Array(try Wire.event(event(&random), subscription: "s").dropLast()) }
        for _ in 0..<20_000 {
            var line = base[random.next(base.count)]
            for _ in 0...random.next(3) where !line.isEmpty {
                let position = random.next(line.count)
                switch random.next(3) {
                case 0: line.remove(at: position)
                case 1:
                    let inserted = Array("\"{}[],:\\ 0e-ntfu".utf8)
                    line.insert(inserted[random.next(inserted.count)], at: position)
                default: line[position] = UInt8(truncatingIfNeeded: random.next())
                }
            }
            if let decoded = try? JSONDecoder().decode(TableChanged.self, from: Data(line)), let scanned = TableChanged.scanned(line) {
                compared += 1
                assertSame(scanned, decoded, line)
            }
        }
        XCTAssertGreaterThan(compared, 1_000)
    }
}
