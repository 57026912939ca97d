import Foundation
import LprojTables
import LprojTestSupport
import XCTest
@testable import LprojProtocol

/// The one-pass envelope reading a client routes lines with agrees with
/// `JSONDecoder` on every line: real replies and events, lines with escapes,
/// nesting, nulls and odd spacing, and thousands of seeded mutations of them.
final class EnvelopeTests: XCTestCase {
    private func lines() throws -> [[UInt8]] {
        let clock = Clock(instance: "9f2c", sequence: 41)
        let diff = TableDiff(from: Table(strings: ["home": "Home", "gone": "x"]), to: Table(strings: ["home": "St\"art\\ \u{1}é", "new": "{\"a\":[1]}"]))
        var imaged = TableChanged(clock: clock, bundle: "/b", language: "fr", table: "Localizable", diff: diff)
        imaged.image = true
        var lines = [
            try Wire.event(imaged, subscription: "live"),
            try Wire.reply(Hello.Reply(instance: "9f2c", clock: clock, server: "lprojd 0.2.0"), to: .number(1)),
            try Wire.reply(Sync.Reply(clock: clock), to: .string("x-1")),
            Wire.failure(ProtocolError(.unknownOperation, "unknown op \"frob\"", field: "op"), to: .number(-7)),
            Wire.failure(ProtocolError(.malformed, "bad"), to: nil),
            try Wire.event(TableChanged(clock: clock, bundle: "/b/Caf\u{E9}", language: "en", table: "Localizable", diff: diff), subscription: "ui"),
            try Wire.event(LanguageSelected(clock: clock, app: "com.example.a", language: "fr"), subscription: "live"),
            try Wire.event(Resync(reason: .slowConsumer, clock: clock), subscription: "live"),
            try Wire.event(Resync(reason: .slowConsumer, clock: clock), subscription: "quote\"d"),
        ]
        lines += [
            "{}", " { \"ok\" : true , \"id\" : 9223372036854775807 } ", "{\"id\":-9223372036854775808,\"ok\":false}",
            "{\"id\":9223372036854775808,\"ok\":true}", "{\"id\":1.5,\"ok\":true}", "{\"id\":01,\"ok\":true}", "{\"id\":\"a\\u0062\",\"ok\":true}",
            "{\"\\u0069d\":3,\"ok\":true}", "{\"ok\":true,\"ok\":false}", "{\"sub\":null,\"event\":\"x\"}", "{\"sub\":\"s\",\"event\":\"e\",\"extra\":[{},[],\"]\"]}",
            "{\"ok\":false,\"error\":null}", "{\"ok\":false,\"error\":{\"code\":\"busy\",\"message\":\"m\"}}", "{\"ok\":tru}", "[1]", "{\"ok\":true} x",
            "{\"ok\":true,}", "{\"ok\" true}", "{\"sub\":\"\u{7}\"}", "{\"event\":\"a\",\"sub\":\"b\",\"clock\":\"i:1\",\"id\":null}",
            "{\"sub\":\"s\",\"event\":\"e\",\"image\":null}", "{\"sub\":\"s\",\"event\":\"e\",\"image\":1}", "{\"image\":true,\"image\":false,\"sub\":\"s\",\"event\":\"e\"}",
        ].map { Array($0.utf8) }
        lines.append([0x7B, 0x22, 0x73, 0x75, 0x62, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D])   // {"sub":"\xFF"}
        return lines.map { $0.last == 0x0A ? Array($0.dropLast()) : $0 }
    }

    func testTheScanAgreesWithJSONDecoder() throws {
        var random = SplitMix64(seed: 20)
        var compared = 0, scanned = 0
        let base = try lines()
        var all = base
        for _ in 0..<20_000 {
            var line = base[Int(random.next() % UInt64(base.count))]
            for _ in 0...(random.next() % 3) where !line.isEmpty {
                let position = Int(random.next() % UInt64(line.count))
                switch random.next() % 3 {
                case 0: line.remove(at: position)
                case 1:
                    let inserted = Array("\"{}[],:\\ 0e-ntf".utf8)
                    line.insert(inserted[Int(random.next() % UInt64(inserted.count))], at: position)
                default: line[position] = UInt8(truncatingIfNeeded: random.next())
                }
            }
            all.append(line)
        }
        for line in all {
            let decoded = try? JSONDecoder().decode(Wire.Envelope.self, from: Data(line))
            let scan = Wire.Envelope.scan(line)
            if scan != nil { scanned += 1 }
            // Where JSON is valid, the scan says the same or leaves the line to the decoder.
            if let decoded, let scan {
                compared += 1
                XCTAssertEqual(scan, decoded, String(decoding: line, as: UTF8.self))
            }
            // Incoming reads every line as before: the scan or the decoder.
            let incoming = Wire.Incoming(line: line)
            switch incoming {
            case .event(let event)?:
                XCTAssertNotNil(decoded?.event ?? scan?.event, String(decoding: line, as: UTF8.self))
                XCTAssertEqual(event.name, scan?.event ?? decoded?.event)
                XCTAssertEqual(event.carriesImage, (scan?.image ?? decoded?.image) == true, String(decoding: line, as: UTF8.self))
            case .reply(let reply)?:
                XCTAssertEqual(reply.id, scan?.id ?? decoded?.id)
            case nil:
                XCTAssertTrue(decoded.map { ($0.event == nil || $0.sub == nil) && $0.ok == nil } ?? true, String(decoding: line, as: UTF8.self))
            }
        }
        XCTAssertGreaterThan(compared, 1_500)
        XCTAssertGreaterThan(scanned, compared / 2)
        // The real lines are all read by the scan itself.
        XCTAssertEqual(Wire.Envelope.scan(base[0])?.image, true, "an event that brings an image says so")
        for line in base.prefix(8) + [Array("{\"sub\":null,\"event\":\"x\",\"id\":null}".utf8)] {
            XCTAssertNotNil(Wire.Envelope.scan(line), String(decoding: line, as: UTF8.self))
        }
    }
}
