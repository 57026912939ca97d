import Foundation
import XCTest

/// `lprojctl lint` and `lprojctl dump`, run as the built binary.
final class LintDumpTests: XCTestCase {
    func testLintReportsEveryProblemGccStyleAndExitsOne() throws {
        let dir = TemporaryDirectory()
        let bad = try dir.write("en.lproj/Localizable.strings", "\"a\" = \"b\"\n\"c\" = \"d\"；\n\"e\" = \"f\";\n")
        try dir.write("en.lproj/Good.strings", "\"a\" = \"b\";\n")
        try dir.write("notes.txt", "ignored")
        let result = try runCommand("lprojctl", ["lint", dir.url.path])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stdout.split(separator: "\n").map(String.init), [
            "\(bad):1:10: error: expected ';' after value, found '\"' (add ';' after the value)",
            "\(bad):2:10: error: expected ';' after value, found '；' (U+FF1B FULLWIDTH SEMICOLON) (use the ASCII ';')",
        ])
        XCTAssertEqual(result.stderr, "2 errors and 0 warnings in 2 files\n")
    }

    func testLintJSON() throws {
        let dir = TemporaryDirectory()
        let path = try dir.write("x.strings", "\"a\" = \"1\";\n\"a\" = \"2\";\n")
        let result = try runCommand("lprojctl", ["lint", "--format", "json", path])
        XCTAssertEqual(result.status, 0, "warnings do not fail lint")
        let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        XCTAssertEqual(parsed?.count, 1)
        XCTAssertEqual(parsed?.first?["severity"] as? String, "warning")
        XCTAssertEqual(parsed?.first?["line"] as? Int, 2)
        XCTAssertEqual(parsed?.first?["column"] as? Int, 1)
        XCTAssertEqual(parsed?.first?["file"] as? String, path)
    }

    func testLintUsageAndUnreadablePaths() throws {
        XCTAssertEqual(try runCommand("lprojctl", ["lint"]).status, 2)
        XCTAssertEqual(try runCommand("lprojctl", ["lint", "--format", "xml", "."]).status, 2)
        let unknown = try runCommand("lprojctl", ["lint", "--bogus", "."])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("unknown option '--bogus'"), unknown.stderr)
        let missing = try runCommand("lprojctl", ["lint", "/nonexistent/x.strings"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("/nonexistent/x.strings: no such file or directory"), missing.stderr)
        let dir = TemporaryDirectory()
        let other = try dir.write("a.txt", "x")
        XCTAssertEqual(try runCommand("lprojctl", ["lint", other]).status, 2)
    }

    func testLintRefusesOversizedTables() throws {
        let dir = TemporaryDirectory()
        let path = try dir.write("Big.strings", String(repeating: "\"k\" = \"v\";\n", count: 200))
        let result = try runCommand("lprojctl", ["lint", "--max-bytes", "1024", path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stdout.contains("\(path):1:1: error: file is larger than the 1 KiB limit"), result.stdout)
        XCTAssertEqual(try runCommand("lprojctl", ["lint", "--max-bytes", "zero", path]).status, 2)
    }

    func testDumpStringsIsCanonicalJSON() throws {
        let dir = TemporaryDirectory()
        let path = try dir.write("x.strings", "\"b\" = \"二\";\n\"a\" = \"x/y \\\"q\\\"\";\n\"B\" = \"3\";\n")
        let result = try runCommand("lprojctl", ["dump", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "{\n  \"B\": \"3\",\n  \"a\": \"x/y \\\"q\\\"\",\n  \"b\": \"二\"\n}\n")
    }

    func testDumpStringsDictKeepsTheFileStructure() throws {
        let dir = TemporaryDirectory()
        let path = try dir.write("x.stringsdict", """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>n</key><dict>
            <key>NSStringLocalizedFormatKey</key><string>%#@v@</string>
            <key>v</key><dict><key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>
            <key>NSStringFormatValueTypeKey</key><string>d</string><key>other</key><string>%d</string></dict>
            </dict></dict></plist>
            """)
        let result = try runCommand("lprojctl", ["dump", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: [String: Any]]
        XCTAssertEqual(object?["n"]?["NSStringLocalizedFormatKey"] as? String, "%#@v@")
        XCTAssertEqual((object?["n"]?["v"] as? [String: String])?["other"], "%d")
    }

    func testDumpCatalogLanguage() throws {
        let dir = TemporaryDirectory()
        let path = try dir.write("L.xcstrings", """
            {"sourceLanguage":"en","version":"1.0","strings":{"hi":{"localizations":{
              "en":{"stringUnit":{"state":"translated","value":"Hello"}},
              "de":{"stringUnit":{"state":"needs_review","value":"Hallo"}}}}}}
            """)
        XCTAssertEqual(try runCommand("lprojctl", ["dump", path]).stdout, "{\n  \"hi\": \"Hello\"\n}\n")
        XCTAssertEqual(try runCommand("lprojctl", ["dump", path, "--language", "de"]).stdout,
                       "{\n  \"hi\": {\n    \"state\": \"needs_review\",\n    \"value\": \"Hallo\"\n  }\n}\n")
        let missing = try runCommand("lprojctl", ["dump", path, "--language", "fr"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("no 'fr' localization; the catalog has de, en"), missing.stderr)
    }

    func testDumpOfABrokenFileExitsOneWithDiagnostics() throws {
        let dir = TemporaryDirectory()
        let path = try dir.write("x.strings", "\"a\" = \"b\"")
        let result = try runCommand("lprojctl", ["dump", path])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(result.stderr.hasPrefix("\(path):1:10: error: expected ';'"), result.stderr)
        XCTAssertEqual(try runCommand("lprojctl", ["dump", path, "--language", "en"]).status, 2)
    }

    func testHelpAndVersion() throws {
        let help = try runCommand("lprojctl", ["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("lint [--format gcc|json] PATH..."))
        XCTAssertTrue(try runCommand("lprojctl", ["lint", "--help"]).stdout.contains("--max-bytes N"))
        XCTAssertTrue(try runCommand("lprojctl", ["dump", "-h"]).stdout.contains("--language TAG"))
        XCTAssertEqual(try runCommand("lprojctl", ["--version"]).stdout, "lprojctl 0.2.0\n")
        XCTAssertEqual(try runCommand("lprojctl", []).status, 2)
        let unknown = try runCommand("lprojctl", ["frobnicate"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("unknown command 'frobnicate'"))
    }

    func testExampleBundleIsClean() throws {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/Demo/Resources")
        let result = try runCommand("lprojctl", ["lint", examples.path])
        XCTAssertEqual(result.status, 0, result.stdout)
        XCTAssertEqual(result.stdout, "")
    }
}

/// `lprojctl match`, run as the built binary.
final class MatchCommandTests: XCTestCase {
    func testMatchPrintsTheChainBestFirst() throws {
        let result = try runCommand("lprojctl", ["match", "--prefer", "zh-HK,en", "--available", "en,zh-Hans,zh-Hant", "--development", "en"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "zh-Hant\nen\n")
        XCTAssertEqual(try runCommand("lprojctl", ["match", "--prefer", "en-IN", "--available", "en", "--available", "en-GB"]).stdout, "en-GB\nen\n")
    }

    func testNoMatchAndBadTags() throws {
        let none = try runCommand("lprojctl", ["match", "--prefer", "ja", "--available", "en,fr"])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("no localization matches ja"), none.stderr)
        let bad = try runCommand("lprojctl", ["match", "--prefer", "en", "--available", "en,x!y"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("'x!y' is not a language tag"), bad.stderr)
        XCTAssertEqual(try runCommand("lprojctl", ["match", "--prefer", "en"]).status, 2)
    }

    /// match prints the search list get shows (Base included); no preferences at all is said plainly.
    func testTheSearchListAndNoPreferences() throws {
        XCTAssertEqual(try runCommand("lprojctl", ["match", "--prefer", "de-AT", "--available", "en,Base,de", "--development", "en"]).stdout,
                       "de\nBase\nen\n")
        let bare = try runCommand("lprojctl", ["match", "--available", "en,Base", "--development", "en"], environment: [:])
        XCTAssertEqual(bare.status, 0)
        XCTAssertEqual(bare.stdout, "Base\nen\n")
        XCTAssertTrue(bare.stderr.contains("no preferences: --prefer was not given and the environment names no language"), bare.stderr)
        let nothing = try runCommand("lprojctl", ["match", "--available", "fr"], environment: [:])
        XCTAssertEqual(nothing.status, 1)
        XCTAssertTrue(nothing.stderr.contains("no localization answers: give --prefer or --development"), nothing.stderr)
    }

    /// dump prints warnings too (on standard error), and get --arg formats a missing key as LiveBundle does.
    func testDumpWarningsAndAMissingKeyFormatted() throws {
        let dir = TemporaryDirectory()
        let path = try dir.write("x.strings", "\"a\" = \"1\";\n\"a\" = \"2\";\n")
        let dump = try runCommand("lprojctl", ["dump", path])
        XCTAssertEqual(dump.status, 0)
        XCTAssertTrue(dump.stderr.contains("\(path):2:1: warning: duplicate key \"a\""), dump.stderr)
        let bundle = try dir.write("App/en.lproj/Localizable.strings", "\"k\" = \"v\";\n")
        let get = try runCommand("lprojctl", ["get", "%@ has %d", "--bundle", (bundle as NSString).deletingLastPathComponent + "/..",
                                               "--language", "en", "--arg", "Ada", "--arg", "3"])
        XCTAssertEqual(get.stdout.split(separator: "\n").first, "Ada has 3")
        XCTAssertEqual(get.status, 1, "still a miss")
    }
}

/// `lprojctl get` on the example bundle, run as the built binary.
final class GetCommandTests: XCTestCase {
    let bundle = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/Demo/Resources").path

    func testValueAndResolutionPath() throws {
        let result = try runCommand("lprojctl", ["get", "home_title", "--bundle", bundle, "--language", "zh-HK"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "首頁\n  chain: zh-Hant → en\n  zh-Hant/Localizable: found\n  from: table zh-Hant\n")
    }

    /// Preferences from the environment are shown with where they came from;
    /// a C locale makes LANGUAGE ignored (as gettext does), and `get` says so.
    func testPreferencesFromTheEnvironmentAndACLocale() throws {
        let container = try runCommand("lprojctl", ["get", "home_title", "--bundle", bundle], environment: ["LANG": "C.UTF-8", "LANGUAGE": "ja"])
        XCTAssertEqual(container.stdout.split(separator: "\n").prefix(3), ["Home",
            "  preferences: none: LANGUAGE=ja is ignored with LANG=C.UTF-8, as gettext does (set LANG)", "  chain: en"])
        let desktop = try runCommand("lprojctl", ["get", "home_title", "--bundle", bundle], environment: ["LANG": "fr_FR.UTF-8", "LANGUAGE": "ja"])
        XCTAssertEqual(desktop.stdout.split(separator: "\n").prefix(3), ["ホーム",
            "  preferences: ja, fr-FR from LANGUAGE=ja, LANG=fr_FR.UTF-8", "  chain: ja → en"])
    }

    /// A pseudolanguage by name, derived from the development table (specifiers intact).
    func testAPseudolanguage() throws {
        let accented = try runCommand("lprojctl", ["get", "home_title", "--bundle", bundle, "--language", "en-XA"])
        XCTAssertEqual(accented.stdout.split(separator: "\n").prefix(2), ["Ĥöɱé", "  chain: en-XA → en"])
        XCTAssertEqual(try runCommand("lprojctl", ["get", "home_title", "--bundle", bundle, "--language", "en-XE"]).stdout.split(separator: "\n").first,
                       "[# Home #]")
    }

    func testPluralWithArguments() throws {
        XCTAssertEqual(try runCommand("lprojctl", ["get", "item_count", "--bundle", bundle, "--language", "ar", "--arg", "2"])
            .stdout.split(separator: "\n").first, "عنصران")
        XCTAssertEqual(try runCommand("lprojctl", ["get", "diamonds_label", "--bundle", bundle, "--language", "zh-TW", "--arg", "1,000"])
            .stdout.split(separator: "\n").first, "1,000 顆鑽石")
    }

    func testMissingKeyExitsOneWithTheKey() throws {
        let result = try runCommand("lprojctl", ["get", "nope", "--bundle", bundle, "--language", "en", "--json"])
        XCTAssertEqual(result.status, 1)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(object?["text"] as? String, "nope")
        XCTAssertEqual(object?["source"] as? String, "key")
    }

    func testUsageErrors() throws {
        XCTAssertEqual(try runCommand("lprojctl", ["get", "k"]).status, 2)
        XCTAssertEqual(try runCommand("lprojctl", ["get", "--bundle", bundle]).status, 2)
        XCTAssertEqual(try runCommand("lprojctl", ["get", "k", "--bundle", "/nonexistent"]).status, 2)
        XCTAssertEqual(try runCommand("lprojctl", ["get", "k", "--bundle", bundle, "--language", "!!"]).status, 2)
    }
}
