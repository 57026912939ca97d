import Foundation
import XCTest

/// `lprojctl check` on the fixtures in Tests/Fixtures/check: `Defects`
/// holds one instance of every defect the cross-language checks catch,
/// `Clean` none (and prints nothing).
final class CheckTests: XCTestCase {
    private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/check").path

    func testEveryDefectIsReportedWhereItIs() throws {
        let result = try runCommand("lprojctl", ["check", fixtures + "/Defects"])
        XCTAssertEqual(result.status, 1, "errors fail the check: \(result.stderr)")
        let bundle = fixtures + "/Defects"
        let lines = Set(result.stdout.split(separator: "\n").map { $0.replacingOccurrences(of: bundle + "/", with: "") })
        let expected: [String] = [
            // Format specifiers against en's.
            #"de.lproj/Localizable.strings:1:1: error: "greeting": reads argument 1 as an integer (%d), but en reads it as an object (%@)"#,
            #"de.lproj/Localizable.strings:4:1: error: "twice": reads argument 2 (%d), which en never passes"#,
            #"de.lproj/Localizable.strings:2:1: warning: "count": leaves out argument 1 (%d in en)"#,
            // A variable read against its NSStringFormatValueTypeKey.
            #"en.lproj/Localizable.stringsdict:23:2: error: "bytes": variable bytes is an integer (NSStringFormatValueTypeKey d), but one of its forms reads it with %@, as an object"#,
            // Plural rules against CLDR (ICU).
            #"ru.lproj/Localizable.stringsdict:21:2: warning: the plural rule of variable bytes of "bytes" has no "other" form"#,
            #"ru.lproj/Localizable.stringsdict:5:2: warning: the plural rule of variable files of "files" lacks "few", "many", which Russian (ru) needs (CLDR: one, few, many, other)"#,
            #"en.lproj/Localizable.stringsdict:5:2: warning: the plural rule of variable files of "files" has "few", which English (en) never selects (CLDR: one, other)"#,
            // Keys.
            #"de.lproj/Localizable.strings: warning: "only_en" is not translated into de: the key itself shows"#,
            #"de.lproj/Localizable.strings:5:1: warning: "extra" is in de but not in en, the development localization"#,
            // Values.
            #"de.lproj/Localizable.strings:2:1: warning: "count" has an empty value"#,
            // Names.
            #"zh-TW.lproj: warning: zh-TW.lproj names a region where a script is meant: Apple matches zh-Hant for this text"#,
            // InfoPlist.
            #"de.lproj/InfoPlist.strings:1:1: warning: CFBundleDisplayName is localized but the bundle's Info.plist has no CFBundleDisplayName: the translation is ignored"#,
            #"de.lproj/InfoPlist.strings: warning: NSCameraUsageDescription is not localized in de: the permission prompt shows the en text"#,
        ]
        for line in expected {
            XCTAssertTrue(lines.contains { $0.hasPrefix(line) }, "missing: \(line)\nin:\n\(result.stdout)")
        }
        // Each problem once: the parser's own "no other form" warning gives way to the check's (a warning too: one severity for one rule).
        XCTAssertEqual(lines.count { $0.contains("has no \"other\" form") }, 1, result.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix(#"de.lproj/Localizable.strings:6:1: warning: "same" is the same as in en: unchanged"#) }, result.stdout)
        XCTAssertFalse(lines.contains { $0.contains("\"pair\"") && !$0.contains("unchanged") }, "%2$d und %1$@ reorders en's %1$@ and %2$d: fine")
        XCTAssertTrue(result.stderr.hasPrefix("3 errors, "), result.stderr)
    }

    /// A plural without `other` in a String Catalog is one problem, said once (the reader's warning gives way to the check's,
    /// by the rule that found it, not by its words).
    func testACatalogPluralWithoutOtherIsReportedOnce() throws {
        let bundle = NSTemporaryDirectory() + "check-other-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: bundle) }
        let catalog = #"{"sourceLanguage":"en","version":"1.0","strings":{"n":{"localizations":{"en":{"variations":{"plural":{"#
            + #""one":{"stringUnit":{"state":"translated","value":"one"}}}}}}}}}"#
        try Data(catalog.utf8).write(to: URL(fileURLWithPath: bundle + "/Localizable.xcstrings"))
        let result = try runCommand("lprojctl", ["check", bundle])
        XCTAssertEqual(result.stdout.split(separator: "\n").count { $0.contains("\"other\"") }, 1, result.stdout)
    }

    /// A String Catalog's missing translation is added to the catalog, not to a `.lproj` table.
    func testAHintForACatalogNamesTheCatalog() throws {
        let bundle = NSTemporaryDirectory() + "check-catalog-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: bundle) }
        let catalog = #"{"sourceLanguage":"en","version":"1.0","strings":{"a":{"localizations":{"en":{"stringUnit":{"state":"translated","value":"A"}},"#
            + #""fr":{"stringUnit":{"state":"translated","value":"Afr"}}}},"b":{"localizations":{"en":{"stringUnit":{"state":"translated","value":"B"}}}}}}"#
        try Data(catalog.utf8).write(to: URL(fileURLWithPath: bundle + "/Localizable.xcstrings"))
        let result = try runCommand("lprojctl", ["check", bundle])
        XCTAssertEqual(result.stdout, "\(bundle)/Localizable.xcstrings: warning: \"b\" is not translated into fr: the key itself shows "
                       + "(add its fr translation to Localizable.xcstrings)\n")
    }

    /// A value left the same as the development text is a warning (JSON carries the same), unless a comment
    /// — the translation's or the source's — holds `lproj:same`; a catalog key with no source text is its own.
    func testAValueLeftTheSameIsAWarningUnlessMarked() throws {
        let result = try runCommand("lprojctl", ["check", "--format", "json", fixtures + "/Defects"])
        XCTAssertEqual(result.status, 1)
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let same = try XCTUnwrap(parsed.first { ($0["message"] as? String)?.hasPrefix("\"same\" is the same as in en") == true })
        XCTAssertEqual(same["severity"] as? String, "warning")
        XCTAssertEqual(same["file"] as? String, fixtures + "/Defects/de.lproj/Localizable.strings")
        XCTAssertEqual(same["line"] as? Int, 6)
        XCTAssertEqual(same["column"] as? Int, 1)
        XCTAssertEqual(same["hint"] as? String, "translate it, or write lproj:same in its comment if it is meant to be the same")

        let bundle = NSTemporaryDirectory() + "check-same-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: bundle) }
        for language in ["en", "de", "fr"] { try FileManager.default.createDirectory(atPath: bundle + "/\(language).lproj", withIntermediateDirectories: true) }
        try #"/* lproj:same — the brand */ "brand" = "Lproj"; "ok" = "OK"; "cancel" = "Cancel";"#.write(toFile: bundle + "/en.lproj/Localizable.strings", atomically: true, encoding: .utf8)
        try #""brand" = "Lproj"; /* lproj:same in German */ "ok" = "OK"; "cancel" = "Cancel";"#.write(toFile: bundle + "/de.lproj/Localizable.strings", atomically: true, encoding: .utf8)
        try #""brand" = "Lproj"; "ok" = "OK"; "cancel" = "Annuler";"#.write(toFile: bundle + "/fr.lproj/Localizable.strings", atomically: true, encoding: .utf8)
        let catalog = #"{"sourceLanguage":"en","version":"1.0","strings":{"Done":{"localizations":{"fr":{"stringUnit":{"state":"translated","value":"Done"}}}}}}"#
        try catalog.write(toFile: bundle + "/Catalog.xcstrings", atomically: true, encoding: .utf8)
        let marked = try runCommand("lprojctl", ["check", bundle])
        let lines = marked.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.contains("unchanged") }.map { $0.components(separatedBy: ": warning: ").last! }.sorted(), [
            #""Done" is the same as in en: unchanged (translate it, or write lproj:same in its comment if it is meant to be the same)"#,
            #""cancel" is the same as in en: unchanged (translate it, or write lproj:same in its comment if it is meant to be the same)"#,
            #""ok" is the same as in en: unchanged (translate it, or write lproj:same in its comment if it is meant to be the same)"#,
        ], marked.stdout)
        XCTAssertFalse(lines.contains { $0.contains("but not in en") }, "a catalog key is its own source text: \(marked.stdout)")
        XCTAssertTrue(lines.contains { $0.contains("fr.lproj/Localizable.strings") && $0.contains("\"ok\"") }, "de's mark is de's only")

        // coverage counts them apart, by the same rule.
        let coverage = try runCommand("lprojctl", ["coverage", "--json", bundle])
        let rows = try XCTUnwrap(((JSONSerialization.jsonObject(with: Data(coverage.stdout.utf8)) as? [String: Any])?["bundles"] as? [[String: Any]])?.first?["tables"] as? [[String: Any]])
        func row(_ table: String, _ language: String) -> [String: Int] {
            let found = rows.first { $0["table"] as? String == table && $0["language"] as? String == language } ?? [:]
            return ["translated": found["translated"] as? Int ?? -1, "unchanged": found["unchanged"] as? Int ?? -1]
        }
        XCTAssertEqual(row("Localizable", "de"), ["translated": 2, "unchanged": 1])
        XCTAssertEqual(row("Localizable", "fr"), ["translated": 2, "unchanged": 1])
        XCTAssertEqual(row("Catalog", "fr"), ["translated": 0, "unchanged": 1])
    }

    func testACleanBundleYieldsNothing() throws {
        let result = try runCommand("lprojctl", ["check", fixtures + "/Clean"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(result.stderr, "")
    }

    func testUsageErrorsExitTwo() throws {
        XCTAssertEqual(try runCommand("lprojctl", ["check"]).status, 2)
        XCTAssertEqual(try runCommand("lprojctl", ["check", "--format", "xml", fixtures + "/Clean"]).status, 2)
        let missing = try runCommand("lprojctl", ["check", fixtures + "/Nowhere"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("Nowhere: not a bundle directory"), missing.stderr)
    }
}
