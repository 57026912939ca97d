import Foundation
import LprojProtocol
import LprojTestSupport
import XCTest

/// A request's header read in one pass: only from a line that is JSON, and
/// the same `id` and `op` as the general path reads (so the daemon, which
/// answers through the general path every line the scan does not take,
/// answers every line as before).
final class HeaderScanTests: XCTestCase {
    func testPlainRequestsAreReadAsTheGeneralPathReadsThem() throws {
        let lines = [
            #"{"id":1,"op":"hello","protocol":1,"client":"LiveBundle"}"#,
            #" { "op" : "subscribe" , "id" : "s-1", "bundle" : "/srv/App", "since" : null, "filter" : {"tables": ["A", "B"]} } "#,
            #"{"id":-9223372036854775808,"op":"images","bundle":"/srv/Café","languages":["fr","en"],"n":[0,-12,true,null,{}]}"#,
        ]
        for line in lines {
            let scanned = try XCTUnwrap(Wire.scannedHeader(of: Array(line.utf8)), line)
            let general = try Wire.header(of: Array(line.utf8)).get()
            XCTAssertEqual(scanned.id, general.id, line)
            XCTAssertEqual(scanned.op, general.op, line)
        }
    }

    func testAnythingUnusualIsLeftToTheGeneralPath() {
        let lines = [
            #"{"id":1,"op":"hello","id":2}"#,              // a member twice
            #"{"id":1,"op":"hello","app":"Caf\u00e9"}"#,   // an escape anywhere
            #"{"id":1,"op":"he\u006clo"}"#,               // an escape in the op
            #"{"i\u0064":1,"op":"hello"}"#,               // an escape in a key
            #"{"id":1.0,"op":"hello"}"#,                  // not a plain integer
            #"{"id":9223372036854775808,"op":"hello"}"#,  // past Int64
            #"{"id":null,"op":"hello"}"#,                 // a null id
            #"{"id":1,"op":7}"#,                          // an op that is no string
            #"{"id":1}"#, #"{"op":"hello"}"#,               // one missing
            #"{"id":1,"op":"hello"} {}"#,                 // something after
            #"{"id":1,"op":"hello","n":1.5}"#,            // a number that is not a short integer
            #"{"id":1,"op":"hello","n":1234567890123456789}"#,
            #"{"id":1,"op":"hello","n":[1 2]}"#,          // not JSON inside a value
            #"{"id":1,"op":"hello","n":{"a" 1}}"#,
            #"{"id":1,"op":"hello","n":tru}"#,
            #"{"id":1,"op":"hello""#,                     // not closed
            #"[{"id":1,"op":"hello"}]"#, "", "{", "{}",
        ]
        for line in lines { XCTAssertNil(Wire.scannedHeader(of: Array(line.utf8)), line) }
    }

    /// Random damage to real request lines: wherever the scan reads a
    /// header, the line is JSON and the general path reads the same header.
    func testDamagedLinesNeverReadOtherwise() throws {
        let seeds = try FileManager.default.contentsOfDirectory(atPath: Self.seedDirectory).filter { $0.hasSuffix(".jsonl") }.flatMap {
            try String(contentsOfFile: Self.seedDirectory + "/" + $0, encoding: .utf8).split(separator: "\n").map { Array($0.utf8) }
        }
        XCTAssertGreaterThan(seeds.count, 20)
        var random = SplitMix64(seed: 0x4845_4144)
        let bytes: [UInt8] = Array(#"{}[]",:0123456789-.etrunl\ "#.utf8) + [0x00, 0x09, 0x0A, 0x1F, 0x80, 0xC3, 0xFF]
        var scanned = 0, unscanned = 0
        for _ in 0..<20_000 {
            var line = seeds.randomElement(using: &random)!
            for _ in 0..<Int.random(in: 1...3, using: &random) where !line.isEmpty {
                let at = Int.random(in: 0..<line.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: line[at] = bytes.randomElement(using: &random)!
                case 1: line.insert(bytes.randomElement(using: &random)!, at: at)
                default: line.remove(at: at)
                }
            }
            guard let header = Wire.scannedHeader(of: line) else {
                unscanned += 1
                continue
            }
            scanned += 1
            let text = String(decoding: line, as: UTF8.self)
            switch Wire.header(of: line) {
            case .success(let general):
                XCTAssertEqual(header.id, general.id, text)
                XCTAssertEqual(header.op, general.op, text)
            case .failure(let failure):
                XCTFail("scanned, but the general path says: \(failure.error.message): \(text)")
            }
        }
        XCTAssertGreaterThan(scanned, 1_000)
        XCTAssertGreaterThan(unscanned, 1_000)
    }

    private static let seedDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/protocol-seeds").path
}
