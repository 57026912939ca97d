import Foundation
import XCTest

/// `lprojctl scan` on the fixture tree in Tests/Fixtures/scan.
final class ScanTests: XCTestCase {
    private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/scan").path

    func testAMissingKeyFailsAndAnUnusedOneIsAWarning() throws {
        let result = try runCommand("lprojctl", ["scan", fixtures + "/Sources", "--bundle", fixtures + "/Resources", "--macro", "RDLocalizedString"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stdout, """
            \(fixtures)/Sources/App.swift:29:27: error: "missing_key" is used but missing from en.lproj/Localizable (add it to the table)
            \(fixtures)/Resources/en.lproj/Localizable.strings:11:1: warning: "never_used" is never used in the sources scanned (remove it, or it is looked up with a key made at run time)

            """)
        XCTAssertEqual(result.stderr, "15 uses found; 1 missing, 1 unused\n")
        // Without the macro its key is unused.
        let withoutMacro = try runCommand("lprojctl", ["scan", fixtures + "/Sources", "--bundle", fixtures + "/Resources", "--format", "json"])
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(withoutMacro.stdout.utf8)) as? [[String: Any]])
        XCTAssertTrue(parsed.contains { ($0["message"] as? String) == "\"macro_key\" is never used in the sources scanned" })
    }

    func testUsageErrors() throws {
        XCTAssertEqual(try runCommand("lprojctl", ["scan", fixtures + "/Sources"]).status, 2, "--bundle is required")
        XCTAssertEqual(try runCommand("lprojctl", ["scan", "--bundle", fixtures + "/Resources"]).status, 2)
        let missing = try runCommand("lprojctl", ["scan", fixtures + "/Nowhere", "--bundle", fixtures + "/Resources"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertEqual(missing.stdout, "", "no 'unused' report when a source could not be read")
        XCTAssertTrue(missing.stderr.contains("Nowhere: no such file or directory"), missing.stderr)
    }
}
