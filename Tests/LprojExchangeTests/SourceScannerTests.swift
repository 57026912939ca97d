import Foundation
@testable import LprojExchange
import XCTest

/// `SourceScanner` on the fixture sources in Tests/Fixtures/scan: every
/// call form, with its table, line and column; escapes, raw strings and
/// calls over several lines read as the compiler reads them; comments and
/// strings that only look like calls skipped.
final class SourceScannerTests: XCTestCase {
    private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/scan/Sources").path

    private func uses(_ relative: String, macros: Set<String> = []) throws -> [String] {
        let path = fixtures + "/" + relative
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return SourceScanner(macros: macros).uses(in: text, file: path).map { "\($0.line):\($0.column) \($0.table ?? "-") \($0.key)" }
    }

    func testSwiftForms() throws {
        XCTAssertEqual(try uses("App.swift"), [
            "8:18 - welcome_title",
            "10:18 - Hello %@!",
            "11:37 - key_from_type",
            "18:27 - plain_key",
            "20:13 Menu multi_line_call",
            "24:27 - escaped \"quotes\" and\ttab",
            "25:27 Menu menu_open",
            "26:40 - bundle_key",
            "27:27 - raw \"quoted\" key",
            "28:27 - café",
            "29:27 - missing_key",
        ])
    }

    func testObjectiveCFormsAndMacros() throws {
        XCTAssertEqual(try uses("Views/Legacy.m", macros: ["RDLocalizedString"]), [
            "6:37 - objc_key",
            "7:46 Menu menu_close",
            "8:49 Menu objc_bundle_key",
            "9:37 - macro_key",
        ])
        XCTAssertFalse(try uses("Views/Legacy.m").contains { $0.hasSuffix("macro_key") }, "a macro counts only when named")
    }

    func testMalformedSourceNeverCrashes() {
        for text in ["", "(", "NSLocalizedString(", "NSLocalizedString(\"unterminated", "\"\"\"", "/* never closed", "#\"raw", "[x localizedStringForKey:",
                     "Text(\"\\(\")", "String(localized:", "@\"", "'"] {
            _ = SourceScanner(macros: ["M"]).uses(in: text, file: "x.swift")
        }
    }
}
