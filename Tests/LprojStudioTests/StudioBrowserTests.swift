import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import LprojTables
import XCTest

/// The studio's page in a real browser.
final class StudioBrowserTests: StudioTestCase {
    /// The page in headless Chromium (Tests/Browser/studio_page.py, Selenium),
    /// worked as a translator works it: the keyboard, the editor pane, plural
    /// forms, the key's git history, per-key conflicts, undo, a table that
    /// stops parsing, bookmarks, a phone, axe-core's WCAG checks, a clean console. `LPROJ_SCREENSHOTS` keeps
    /// the screenshots it takes (docs/images has the ones STUDIO.md shows).
    func testThePageInABrowser() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Browser/studio_page.py")
        // An app asked for a key no table has (a new string) and for one only French lacks (a translation to make).
        let app = try DaemonConnection(path: daemon.socket)
        _ = try app.send(Hello(client: "tests", app: "com.example.shop"))
        XCTAssertEqual(try app.send(ReportMisses(bundle: bundle, misses: [
            MissReport(table: "Localizable", key: "checkout.new", language: "fr", languages: ["fr", "en"], answer: .key, count: 3),
            MissReport(table: "Localizable", key: "cart", language: "fr", languages: ["fr", "en"], answer: .development, count: 1),
        ])).recording, true)
        let shots = ProcessInfo.processInfo.environment["LPROJ_SCREENSHOTS"] ?? daemon.directory
        let output = daemon.directory + "/browser-output"
        let status = try runToEnd("/usr/bin/python3", [script.path, "http://127.0.0.1:\(port)/?token=\(token)", bundle, try Self.axeScript(), shots],
                                  output: output)
        let printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        XCTAssertEqual(status, 0, printed)
        XCTAssertTrue(printed.contains("ok: no error in the browser console"), printed)
    }

    /// axe-core's script, from the pinned package in the test environment (`make test` makes it).
    static func axeScript() throws -> String {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let python = ProcessInfo.processInfo.environment["LPROJ_PYTHON"] ?? package.appendingPathComponent(".build/venv/bin/python").path
        let found = NSTemporaryDirectory() + "/axe-path-\(getpid())"
        defer { unlink(found) }
        let status = try runToEnd(python, ["-c", "import axe_core_python, os; print(os.path.join(os.path.dirname(axe_core_python.__file__), 'axe.min.js'))"],
                                  output: found)
        let path = try String(contentsOfFile: found, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(status, 0, "axe-core-python is not installed in \(python)'s environment (make test installs it): \(path)")
        return path
    }
}
