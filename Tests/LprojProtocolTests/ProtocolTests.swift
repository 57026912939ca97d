import Foundation
import LprojTables
import LprojTestSupport
import XCTest
@testable import LprojProtocol

final class LineFramerTests: XCTestCase {
    func lines(_ outputs: [LineFramer.Output]) -> [String] {
        outputs.map {
            switch $0 {
            case .line(let bytes): return String(decoding: bytes, as: UTF8.self)
            case .overlong: return "<overlong>"
            }
        }
    }

    func testSplitsOnNewlinesAcrossChunks() {
        var framer = LineFramer(maximumLineLength: 100)
        XCTAssertEqual(lines(framer.append(Array("{\"a\":1}\n{\"b\"".utf8))), ["{\"a\":1}"])
        XCTAssertEqual(framer.bufferedByteCount, 4)
        XCTAssertEqual(lines(framer.append(Array(":2}\r\n\n".utf8))), ["{\"b\":2}", ""])
        XCTAssertEqual(framer.bufferedByteCount, 0)
    }

    func testOverlongLineIsRefusedAtOnceAndSkipped() {
        var framer = LineFramer(maximumLineLength: 8)
        XCTAssertEqual(lines(framer.append(Array("12345678\n".utf8))), ["12345678"])
        XCTAssertEqual(lines(framer.append(Array("123456789".utf8))), ["<overlong>"], "refused before its newline")
        XCTAssertEqual(framer.bufferedByteCount, 0, "memory stays bounded")
        XCTAssertEqual(lines(framer.append(Array(repeating: UInt8(ascii: "x"), count: 10_000))), [])
        XCTAssertEqual(lines(framer.append(Array("tail\nok\n".utf8))), ["ok"])
        XCTAssertEqual(lines(framer.append(Array("1234567\r\n".utf8))), ["1234567"])
        XCTAssertEqual(lines(framer.append(Array("12345678\r\n".utf8))), ["12345678"], "the \\r does not count")
    }
}

extension LineFramerTests {
    /// Seeded streams of `a`, `\r` and `\n` cut at random places give the
    /// lines (and refusals) a plain reading of the whole stream gives.
    func testAnyChunkingGivesTheLinesOfTheWholeStream() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<3_000 {
            let limit = random.next(10)
            let stream = (0..<random.next(60)).map { _ in [UInt8(ascii: "a"), 0x0D, 0x0A][random.next(3) == 0 ? 1 + random.next(2) : 0] }
            var expected: [String] = []
            var pieces = stream.split(separator: 0x0A, omittingEmptySubsequences: false)
            let unterminated = pieces.removeLast()
            for piece in pieces {
                let line = piece.last == 0x0D ? piece.dropLast() : piece
                expected.append(line.count > limit ? "<overlong>" : String(decoding: line, as: UTF8.self))
            }
            if unterminated.count - (unterminated.last == 0x0D ? 1 : 0) > limit { expected.append("<overlong>") }
            var framer = LineFramer(maximumLineLength: limit)
            var got: [String] = []
            var start = 0
            while start < stream.count {
                let end = min(stream.count, start + 1 + random.next(8))
                got += lines(stream[start..<end].withUnsafeBytes { framer.append($0) })
                start = end
            }
            XCTAssertEqual(got, expected, "\(stream) limit \(limit)")
        }
    }
}

final class WireTests: XCTestCase {
    func json(_ bytes: [UInt8]) throws -> [String: Any] {
        XCTAssertEqual(bytes.last, 0x0A)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    func testRequestRoundTrip() throws {
        let line = try Wire.encode(Subscribe(name: "ui", bundle: "/srv/demo/Resources", languages: ["zh-Hant", "en"],
                                             tables: ["Localizable"], since: Clock(instance: "9f2c", sequence: 37)), id: .number(2))
        XCTAssertEqual(String(decoding: line, as: UTF8.self),
                       #"{"bundle":"/srv/demo/Resources","id":2,"languages":["zh-Hant","en"],"name":"ui","op":"subscribe","since":"9f2c:37","tables":["Localizable"]}"# + "\n")
        guard case .success(let header) = Wire.header(of: Array(line.dropLast())) else { return XCTFail() }
        XCTAssertEqual(header.id, .number(2))
        XCTAssertEqual(header.op, "subscribe")
        guard case .success(let request) = Wire.decode(Subscribe.self, from: line, id: header.id) else { return XCTFail() }
        XCTAssertEqual(request.since, Clock(instance: "9f2c", sequence: 37))
        XCTAssertEqual(request.languages, ["zh-Hant", "en"])
    }

    func testUnknownFieldsAreIgnored() {
        let line = Array(#"{"id":"a","op":"hello","client":"x","protocol":1,"future":{"nested":true}}"#.utf8)
        guard case .success(let hello) = Wire.decode(Hello.self, from: line, id: .string("a")) else { return XCTFail() }
        XCTAssertEqual(hello.client, "x")
        XCTAssertNil(hello.app)
    }

    func testErrorsNameTheField() {
        func error(_ text: String) -> ProtocolError? {
            if case .failure(let failure) = Wire.header(of: Array(text.utf8)) { return failure.error }
            if case .failure(let failure) = Wire.decode(Lookup.self, from: Array(text.utf8), id: .number(1)) { return failure }
            return nil
        }
        XCTAssertEqual(error("not json")?.code, .malformed)
        XCTAssertEqual(error("[1,2]")?.code, .malformed)
        XCTAssertEqual(error(#"{"op":"lookup"}"#), ProtocolError(.missingField, "a request needs an \"id\"", field: "id"))
        XCTAssertEqual(error(#"{"id":true,"op":"lookup"}"#)?.field, "id")
        XCTAssertEqual(error(#"{"id":1}"#)?.field, "op")
        XCTAssertEqual(error(#"{"id":1,"op":"lookup","bundle":"/b"}"#), ProtocolError(.missingField, "missing field \"key\"", field: "key"))
        XCTAssertEqual(error(#"{"id":1,"op":"lookup","bundle":"/b","key":3}"#)?.code, .invalidField)
        XCTAssertEqual(error(#"{"id":1,"op":"lookup","bundle":"/b","key":"k","languages":["en",2]}"#)?.field, "languages[1]")
        if case .failure(let failure) = Wire.decode(Subscribe.self, from: Array(#"{"id":1,"op":"subscribe","name":"x","since":"nonsense"}"#.utf8), id: .number(1)) {
            XCTAssertEqual(failure.field, "since")
            XCTAssertEqual(failure.code, .invalidField)
        } else {
            XCTFail("a bad clock must be refused")
        }
    }

    func testALimitErrorNamesItsFieldOnTheWire() throws {
        let line = Wire.failure(ProtocolError(.limit, "languages names 2000 entries; at most 1024 ([Limits] MaxFilterNames)",
                                              field: "languages"), to: .number(3))
        let text = String(decoding: line, as: UTF8.self)
        XCTAssertTrue(text.contains(#""code":"limit""#), text)
        XCTAssertTrue(text.contains(#""field":"languages""#), text)
        guard case .reply(let reply)? = Wire.Incoming(line: Array(line.dropLast())) else { return XCTFail(text) }
        XCTAssertEqual(reply.error?.code, .limit)
        XCTAssertEqual(reply.error?.field, "languages")
    }

    func testRepliesEchoTheID() throws {
        let reply = try json(Wire.reply(Hello.Reply(instance: "9f2c", clock: Clock(instance: "9f2c", sequence: 41), server: "lprojd 0.2.0"),
                                        to: .number(1)))
        XCTAssertEqual(reply["id"] as? Int, 1)
        XCTAssertEqual(reply["ok"] as? Bool, true)
        XCTAssertEqual(reply["clock"] as? String, "9f2c:41")
        let failure = try json(Wire.failure(ProtocolError(.unknownOperation, "unknown op \"frob\"", field: "op"), to: .string("x")))
        XCTAssertEqual(failure["id"] as? String, "x")
        XCTAssertEqual(failure["ok"] as? Bool, false)
        XCTAssertEqual((failure["error"] as? [String: String])?["code"], "unknown-op")
        // An id that could not be read is null, as PROTOCOL.md says, not left out.
        let unread = try json(Wire.failure(ProtocolError(.malformed, "bad"), to: nil))
        XCTAssertTrue(unread.keys.contains("id"))
        XCTAssertNotNil(unread["id"] as? NSNull)
    }

    /// One decoder reads a line once and says which it is.
    func testIncomingLinesAreRepliesOrEvents() throws {
        let reply = try Wire.reply(Sync.Reply(clock: Clock(instance: "i", sequence: 3)), to: .number(7))
        guard case .reply(let decoded)? = Wire.Incoming(line: reply) else { return XCTFail("not a reply") }
        XCTAssertEqual(decoded.id, .number(7))
        XCTAssertNil(decoded.error)
        XCTAssertEqual(try decoded.decode(Sync.Reply.self).clock, Clock(instance: "i", sequence: 3))

        let failure = Wire.failure(ProtocolError(.malformed, "the line is not JSON"), to: nil)
        guard case .reply(let refused)? = Wire.Incoming(line: failure) else { return XCTFail("not a reply") }
        XCTAssertNil(refused.id)
        XCTAssertEqual(refused.error?.code, .malformed)

        let selected = try Wire.event(LanguageSelected(clock: Clock(instance: "i", sequence: 9), app: "com.example.a", language: "fr"),
                                      subscription: "live")
        XCTAssertTrue(selected.starts(with: Array("{\"sub\":\"live\",".utf8)), String(decoding: selected, as: UTF8.self))
        guard case .event(let event)? = Wire.Incoming(line: selected) else { return XCTFail("not an event") }
        XCTAssertEqual(event.name, "language-selected")
        XCTAssertEqual(event.subscription, "live")
        XCTAssertEqual(event.clock, Clock(instance: "i", sequence: 9))
        XCTAssertEqual(try event.decode(LanguageSelected.self).language, "fr")

        XCTAssertNil(Wire.Incoming(line: Array("not json".utf8)))
        XCTAssertNil(Wire.Incoming(line: Array("{\"neither\":1}".utf8)))
    }

    func testEventsCarrySubscriptionAndName() throws {
        let diff = TableDiff(from: Table(strings: ["home": "Home", "gone": "x"]), to: Table(strings: ["home": "Start", "new": "New"]))
        let event = try json(Wire.event(TableChanged(clock: Clock(instance: "i", sequence: 42), bundle: "/b", language: "en",
                                                     table: "Localizable", diff: diff), subscription: "ui"))
        XCTAssertEqual(event["sub"] as? String, "ui")
        XCTAssertEqual(event["event"] as? String, "table-changed")
        XCTAssertEqual(event["changed"] as? [String: String], ["home": "Start"])
        XCTAssertEqual(event["added"] as? [String: String], ["new": "New"])
        XCTAssertEqual(event["removed"] as? [String], ["gone"])
        let resync = try json(Wire.event(Resync(reason: .slowConsumer, clock: Clock(instance: "i", sequence: 43)), subscription: "ui"))
        XCTAssertEqual(resync["reason"] as? String, "slow-consumer")
    }

    func testAnEventEncodedOnceIsAddressedToEachSubscription() throws {
        let body = try Wire.eventBody(BundleAdded(clock: Clock(instance: "i", sequence: 7), bundle: "/b"))
        var output: [UInt8] = []
        Wire.appendAddressed(body, prefix: Wire.eventPrefix(subscription: "ui"), to: &output)
        Wire.appendAddressed(body, prefix: Wire.eventPrefix(subscription: "quote\"d"), to: &output)
        let lines = output.split(separator: 0x0A)
        XCTAssertEqual(lines.count, 2)
        let first = try json(Array(lines[0]) + [0x0A]), second = try json(Array(lines[1]) + [0x0A])
        XCTAssertEqual(first["sub"] as? String, "ui")
        XCTAssertEqual(second["sub"] as? String, "quote\"d")
        XCTAssertEqual(first["event"] as? String, "bundle-added")
        XCTAssertEqual(first["clock"] as? String, "i:7")
        XCTAssertEqual(first as NSDictionary, try json(Wire.event(BundleAdded(clock: Clock(instance: "i", sequence: 7), bundle: "/b"),
                                                                   subscription: "ui")) as NSDictionary)
    }

    func testClock() {
        XCTAssertEqual(Clock("9f2c:41"), Clock(instance: "9f2c", sequence: 41))
        XCTAssertEqual(Clock("a-b:0")?.instance, "a-b")
        XCTAssertNil(Clock(":5"))
        XCTAssertNil(Clock("abc"))
        XCTAssertNil(Clock("a:b"))
        XCTAssertNil(Clock("a b:1"))
        XCTAssertEqual(Clock("Zz-09:18446744073709551615"), Clock(instance: "Zz-09", sequence: .max))
        XCTAssertEqual(Clock("a:b:3"), nil)
        for instance in ["é", "a_b", "a@", "[", "`", "{", "٣", "a/b"] { XCTAssertNil(Clock(instance + ":1"), instance) }
        XCTAssertNil(Clock("a:18446744073709551616"))
        XCTAssertLessThan(Clock(instance: "i", sequence: 9), Clock(instance: "i", sequence: 10))
    }
}
