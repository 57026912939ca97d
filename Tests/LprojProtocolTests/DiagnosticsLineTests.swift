import LprojProtocol
import LprojTables
import XCTest

/// The hand-written `diagnostics` line is the encoder's, byte for byte:
/// quotes, backslashes, control characters, non-ASCII text, slashes, a hint
/// or none, an empty set, negative and large numbers.
final class DiagnosticsLineTests: XCTestCase {
    func testTheHandWrittenLineIsTheEncodersLine() throws {
        var random = SystemRandomNumberGenerator()
        let pieces = ["plain", "\"quoted\"", "back\\slash", "new\nline\ttab\r\u{8}\u{C}", "\u{1}\u{1F}\u{7F}", "/a/b.lproj/c.strings", "Café ☕️ 中文 עברית",
                      "\u{2028}\u{2029}", "", "%@ %1$d"]
        func text() -> String { (0..<Int.random(in: 0...3, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined() }
        for round in 0..<200 {
            let diagnostics = (0..<Int.random(in: 0...6, using: &random)).map { _ in
                Diagnostic(file: text(), line: Int.random(in: -3...Int.max, using: &random), column: Int.random(in: 0...200, using: &random),
                           severity: Diagnostic.Severity.allCases.randomElement(using: &random)!, message: text(),
                           hint: Bool.random(using: &random) ? text() : nil, rule: Bool.random(using: &random) ? .pluralWithoutOther : nil)
            }
            let event = Diagnostics(clock: Clock(instance: "i-\(round)", sequence: UInt64.random(in: 0...UInt64.max, using: &random)), bundle: text(),
                                    diagnostics: diagnostics)
            let written = try XCTUnwrap(event.handWrittenLine())
            XCTAssertEqual(String(decoding: written, as: UTF8.self), String(decoding: try Wire.encodedEventBody(event), as: UTF8.self))
            XCTAssertEqual(try Wire.eventBody(event), written)
        }
    }
}
