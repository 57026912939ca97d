import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import LprojTables
import XCTest

/// What the studio's API answers: coverage, suggestions, missed keys, a large table a page at a time.
final class StudioContentTests: StudioTestCase {
    func testCoverageEqualsLprojctlCoverage() throws {
        // A French value left as the English, and one marked as meant to be the same: one "unchanged". (The overview
        // counts what lprojd serves: it is compared once the save is served.)
        let events = try EventReader(port: port, token: token)
        try events.await("daemon", containing: "\"connected\":true")
        try daemon.write("App/fr.lproj/Localizable.strings", "/* Greeting */\n\"welcome\" = \"Bienvenue, %@ !\";\n\"home\" = \"Home\";\n/* lproj:same */\n\"cart\" = \"Cart\";\n")
        try events.await("table-changed", containing: "\"cart\":\"Cart\"")
        let bundles = try XCTUnwrap(try get("/api/bundles").json["bundles"] as? [[String: Any]])
        XCTAssertEqual(bundles.map { $0["path"] as? String }, [bundle])
        let coverage = try runLprojctl(["coverage", bundle, "--json", "--socket", daemon.socket])
        let rows = try XCTUnwrap(((JSONSerialization.jsonObject(with: Data(coverage.utf8)) as? [String: Any])?["bundles"] as? [[String: Any]])?
            .first?["tables"] as? [[String: Any]])
        for language in try XCTUnwrap(bundles.first?["languages"] as? [[String: Any]]) {
            for table in try XCTUnwrap(language["tables"] as? [[String: Any]]) {
                let expected = try XCTUnwrap(rows.first { $0["language"] as? String == language["language"] as? String && $0["table"] as? String == table["table"] as? String })
                for field in ["total", "translated", "missing", "stale", "unchanged", "missingWords", "missedAtRuntime"] {
                    XCTAssertEqual(table[field] as? Int, expected[field] as? Int, "\(language["language"]!) \(field)")
                }
            }
        }
        let french = try XCTUnwrap((bundles.first?["languages"] as? [[String: Any]])?.first { $0["language"] as? String == "fr" })
        XCTAssertEqual((french["tables"] as? [[String: Any]])?.first?["unchanged"] as? Int, 1)
        // The filters count by the same rule: each status's keys are the overview's figure.
        for (filter, field) in [("unchanged", "unchanged"), ("missing", "missing"), ("stale", "stale")] {
            let listed = try get("/api/table?bundle=\(bundle)&languages=fr&filter=\(filter)")
            XCTAssertEqual(listed.json["total"] as? Int, (french["tables"] as? [[String: Any]])?.first?[field] as? Int, filter)
        }
        let statuses = try XCTUnwrap(try get("/api/table?bundle=\(bundle)&languages=fr").json["entries"] as? [[String: Any]])
        XCTAssertEqual(statuses.map { ($0["statuses"] as? [String: String])?["fr"] }, ["translated", "unchanged", "translated"], "cart, home, welcome")
        let arabic = try XCTUnwrap((bundles.first?["languages"] as? [[String: Any]])?.first { $0["language"] as? String == "ar" })
        XCTAssertEqual(arabic["direction"] as? String, "rtl")

        // The daemon's checks, counted per language: ar lacks two of en's keys; a save that adds one is heard, and counted.
        try daemon.write("App/ar.lproj/Localizable.strings", "\"home\" = \"الرئيسية\";\n\"cart\" = \"السلة\";\n")
        try events.await("diagnostics", containing: "ar.lproj")
        let after = try XCTUnwrap(try get("/api/bundles").json["bundles"] as? [[String: Any]])
        let checked = try XCTUnwrap((after.first?["languages"] as? [[String: Any]])?.first { $0["language"] as? String == "ar" })
        XCTAssertEqual(checked["diagnostics"] as? [String: Int], ["errors": 0, "warnings": 1], "welcome is still not translated")
        XCTAssertEqual((checked["tables"] as? [[String: Any]])?.first?["translated"] as? Int, 2, "the figures follow the save")
        // A new table, counted from its own event; then one removed.
        try daemon.write("App/en.lproj/Menu.strings", "\"open\" = \"Open\";\n")
        try events.await("table-changed", containing: "Menu")
        func tables(_ language: String) throws -> [String] {
            let bundles = try XCTUnwrap(try get("/api/bundles").json["bundles"] as? [[String: Any]])
            let row = (bundles.first?["languages"] as? [[String: Any]])?.first { $0["language"] as? String == language }
            return (row?["tables"] as? [[String: Any]])?.compactMap { $0["table"] as? String } ?? []
        }
        XCTAssertEqual(try tables("fr"), ["Localizable", "Menu"])
        XCTAssertEqual(unlink(bundle + "/en.lproj/Menu.strings"), 0)
        try events.await("table-changed", containing: "\"deleted\":true")
        XCTAssertEqual(try tables("fr"), ["Localizable"])
        let offline = try runLprojctl(["coverage", bundle, "--json", "--socket", daemon.socket])
        XCTAssertFalse(offline.contains("Menu"))
    }

    /// The translation memory follows the daemon: a table saved anywhere is offered at once, and a changed
    /// translation replaces what was offered; the key edited never suggests itself.
    func testSuggestionsFollowWhatTheDaemonServes() throws {
        func offers(_ source: String) throws -> [String] {
            let answer = try get("/api/suggestions?bundle=\(bundle)&table=Localizable&key=home&language=fr&q=\(source)")
            XCTAssertEqual(answer.status, 200, answer.text)
            return (answer.json["suggestions"] as? [[String: Any]])?.compactMap { $0["text"] as? String } ?? []
        }
        func eventually(_ expected: [String], _ source: String) throws {
            let deadline = Date(timeIntervalSinceNow: 30)
            while try offers(source) != expected {
                guard Date() < deadline else { return XCTFail("the memory never offered \(expected) for \(source): \(try offers(source))") }
                _ = poll(nil, 0, 20)
            }
        }
        try eventually([], "Home")
        try daemon.write("App/en.lproj/Other.strings", "\"start\" = \"Home\";\n\"back\" = \"Back to the home page\";\n")
        try daemon.write("App/fr.lproj/Other.strings", "\"start\" = \"Maison\";\n\"back\" = \"Retour à la page d'accueil\";\n")
        try eventually(["Maison"], "Home")
        try eventually(["Retour à la page d'accueil"], "Back to the home screen")
        try daemon.write("App/fr.lproj/Other.strings", "\"start\" = \"Foyer\";\n")
        try eventually(["Foyer"], "Home")
    }

    /// Keys apps asked for that no language of the table has are listed once per key, summed over apps and
    /// languages (a count that would pass 2^64 stays at its most), the most missed first.
    func testKeysAppsMissedThatNoTableHasAreListedOnce() throws {
        for (name, count) in [("com.example.one", Int.max), ("com.example.two", Int.max)] {
            let app = try DaemonConnection(path: daemon.socket)
            _ = try app.send(Hello(client: "tests", app: name))
            // Three reports of 2^63 - 1: the daemon's count for each app stays at 2^64 - 1.
            for _ in 0..<2 {
                _ = try app.send(ReportMisses(bundle: bundle, misses: [MissReport(table: "Localizable", key: "huge", language: "fr", languages: ["fr"],
                                                                                  answer: .key, count: count)]))
            }
            _ = try app.send(ReportMisses(bundle: bundle, misses: [
                MissReport(table: "Localizable", key: "huge", language: "fr", languages: ["fr"], answer: .key, count: count),
                MissReport(table: "Localizable", key: "small", language: "ar", languages: ["ar"], answer: .key, count: 2),
                MissReport(table: "Localizable", key: "home", language: "fr", languages: ["fr"], answer: .key, count: 9),
                MissReport(table: "Other", key: "elsewhere", language: "fr", languages: ["fr"], answer: .key, count: 1),
            ]))
        }
        let listed = try get("/api/misses?bundle=\(bundle)&table=Localizable")
        XCTAssertEqual(listed.status, 200, listed.text)
        let unknown = try XCTUnwrap(listed.json["unknown"] as? [[String: Any]])
        XCTAssertEqual(unknown.map { $0["key"] as? String }, ["huge", "small"], "home is in a table; elsewhere is another table's")
        XCTAssertEqual((unknown[0]["count"] as? NSNumber)?.uint64Value, UInt64.max)
        XCTAssertEqual(unknown[0]["apps"] as? [String], ["com.example.one", "com.example.two"])
        XCTAssertEqual(unknown[1]["count"] as? Int, 4)
        XCTAssertEqual(unknown[1]["languages"] as? [String], ["ar"])
        XCTAssertEqual(try get("/api/misses").json["field"] as? String, "bundle")
        XCTAssertEqual(try request("PUT", "/api/misses").status, 405)
    }

    func testATenThousandKeyTableInFortyLanguagesIsServedAPageAtATime() throws {
        let languages = ["ar", "bg", "ca", "cs", "da", "de", "el", "es", "et", "fi", "fr", "he", "hi", "hr", "hu", "id", "it", "ja", "ko", "lt",
                         "lv", "ms", "nb", "nl", "pl", "pt-BR", "pt-PT", "ro", "ru", "sk", "sl", "sr", "sv", "th", "tr", "uk", "vi", "zh-Hans", "zh-Hant"]
        for language in ["en"] + languages {
            let text = (0..<10_000).map { "\"key.\($0)\" = \"\(language) text \($0)\";" }.joined(separator: "\n") + "\n"
            try daemon.write("Big/\(language).lproj/Localizable.strings", text)
        }
        _ = try daemon.connect().send(Sync(), timeout: .seconds(120))
        let page = try get("/api/table?bundle=\(daemon.root)/Big&limit=100&offset=9950")
        XCTAssertEqual(page.status, 200, page.text)
        XCTAssertEqual(page.json["total"] as? Int, 10_000)
        XCTAssertEqual((page.json["languages"] as? [[String: Any]])?.count, 39)
        let entries = try XCTUnwrap(page.json["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 50, "the last page")
        let first = try XCTUnwrap(entries.first)
        let number = try XCTUnwrap((first["key"] as? String)?.dropFirst("key.".count))
        XCTAssertEqual((first["values"] as? [String: Any])?["zh-Hant"] as? String, "zh-Hant text \(number)")
        let searched = try get("/api/table?bundle=\(daemon.root)/Big&languages=fr&q=ja text 9999")
        XCTAssertEqual((searched.json["entries"] as? [[String: Any]])?.map { $0["key"] as? String }, ["key.9999"], "found by its Japanese text")
    }
}
