import Foundation
import LprojProtocol
import XCTest

/// The fast paths of acknowledgements: an `ack` line scanned in one pass reads as the decoder reads it, and anything
/// unusual is left to the decoder; the empty reply written by hand is what the encoder writes.
final class AckScanTests: XCTestCase {
    func testAPlainAckIsReadAsTheDecoderReadsIt() throws {
        let lines = [
            #"{"id":7,"op":"ack","bundle":"/srv/App","generation":42}"#,
            #" { "generation" : 0 , "bundle" : "/srv/Café", "op" : "ack", "id" : "x-1" } "#,
        ]
        for line in lines {
            let scanned = try XCTUnwrap(Ack.scanned(Array(line.utf8)), line)
            let decoded = try JSONDecoder().decode(Ack.self, from: Data(line.utf8))
            XCTAssertEqual(scanned.ack.bundle, decoded.bundle)
            XCTAssertEqual(scanned.ack.generation, decoded.generation)
            XCTAssertNil(scanned.ack.refused)
        }
        XCTAssertEqual(Ack.scanned(Array(lines[0].utf8))?.id, .number(7))
        XCTAssertEqual(Ack.scanned(Array(lines[1].utf8))?.id, .string("x-1"))
    }

    func testAnythingUnusualIsLeftToTheDecoder() {
        let lines = [
            #"{"id":7,"op":"ack","bundle":"/srv/App","generation":42,"refused":"no"}"#,   // a member it does not take
            #"{"id":7,"op":"ack","bundle":"/srv/App","generation":42,"generation":43}"#,  // a member twice
            #"{"id":7,"op":"ack","bundle":"/srv/\u0041pp","generation":42}"#,            // an escape
            #"{"id":7,"op":"ack","bundle":"/srv/App","generation":-1}"#,                 // a negative generation
            #"{"id":7,"op":"ack","bundle":"/srv/App","generation":1e3}"#,                // not a plain integer
            #"{"id":7,"op":"ack","bundle":"/srv/App","generation":18446744073709551616}"#, // past Int64
            #"{"id":7,"op":"wait","bundle":"/srv/App","generation":42}"#,                // another op
            #"{"id":7,"op":"ack","bundle":"/srv/App"}"#,                                 // a field missing
            #"{"id":7,"op":"ack","bundle":"/srv/App","generation":42} x"#,               // something after
            #"{"id":7,"op":"ack","bundle":"/srv/App","generation":42"#,                  // not closed
            #"{"id":null,"op":"ack","bundle":"/srv/App","generation":42}"#,              // a null id
            "", "{", "[]", "{}",
        ]
        for line in lines { XCTAssertNil(Ack.scanned(Array(line.utf8)), line) }
    }

    func testTheEmptyReplyIsWhatTheEncoderWrites() throws {
        for id in [RequestID.number(0), .number(-12), .number(Int64.max), .string(""), .string("a\"b\\c/d\u{1}é\u{2028}")] {
            let written = try Wire.reply(EmptyReply(), to: id)
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(written)) as? [String: Any])
            XCTAssertEqual(object["ok"] as? Bool, true)
            XCTAssertEqual(try JSONDecoder().decode(IDHolder.self, from: Data(written)).id, id, "\(id)")
            XCTAssertEqual(written.last, 0x0A)
        }
    }

    private struct IDHolder: Decodable { var id: RequestID }
}
