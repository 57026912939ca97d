import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import LprojTables
import XCTest

/// A write from a page: where it goes, when it conflicts, what a later source change makes of it.
final class StudioEditingTests: StudioTestCase {
    func testAnEditReachesTheFileTheDaemonALiveBundleAndEveryPage() throws {
        var options = LiveBundle.Options()
        options.socketPath = daemon.socket
        options.environment = ["LANG": "fr_FR.UTF-8", "XDG_CONFIG_HOME": daemon.directory + "/config"]
        let live = try LiveBundle(path: bundle, app: "com.example.studio", options: options)
        let connected = expectation(description: "the LiveBundle follows the daemon")
        connected.assertForOverFulfill = false
        let following = live.observeConnection { if $0 { connected.fulfill() } }
        wait(for: [connected], timeout: 30)
        let events = try EventReader(port: port, token: token)
        try events.await("daemon", containing: "\"connected\":true")

        let table = try get("/api/table?bundle=\(bundle)&languages=fr&limit=10")
        XCTAssertEqual(table.status, 200)
        let french = try XCTUnwrap((table.json["languages"] as? [[String: Any]])?.first)
        XCTAssertEqual(french["writable"] as? Bool, true)
        XCTAssertEqual(french["pluralCategories"] as? [String], ["one", "many", "other"])
        let version = try XCTUnwrap(french["version"] as? String)
        XCTAssertEqual(table.json["total"] as? Int, 3)
        let welcome = try XCTUnwrap((table.json["entries"] as? [[String: Any]])?.first { $0["key"] as? String == "welcome" })
        XCTAssertEqual(welcome["comment"] as? String, "Greeting", "the development file's comment above the entry")

        let value = "<img src=x onerror=alert(1)> Page d'accueil"
        let saved = try request("PUT", "/api/entry", body: Self.body(["bundle": bundle, "language": "fr", "key": "home", "value": value, "version": version]))
        XCTAssertEqual(saved.status, 200, saved.text)
        XCTAssertEqual(try String(contentsOfFile: bundle + "/fr.lproj/Localizable.strings", encoding: .utf8),
                       "/* Greeting */\n\"welcome\" = \"Bienvenue, %@ !\";\n\"home\" = \"\(value)\";\n", "that entry's bytes, and no others")
        try events.await("table-changed", containing: "onerror=alert(1)> Page d'accueil")
        let switched = expectation(description: "the LiveBundle has the new text")
        switched.assertForOverFulfill = false
        let token = live.observe { _ in if live.localizedString(forKey: "home", value: nil, table: nil) == value { switched.fulfill() } }
        if live.localizedString(forKey: "home", value: nil, table: nil) == value { switched.fulfill() }
        wait(for: [switched], timeout: 30)
        _ = (token, following)

        // The version it was made on is stale now: 409 with the current text.
        let stale = try request("PUT", "/api/entry", body: Self.body(["bundle": bundle, "language": "fr", "key": "home", "value": "Maison", "version": version]))
        XCTAssertEqual(stale.status, 409)
        XCTAssertEqual(stale.json["current"] as? String, value)
        // A specifier English does not pass: 422 with the problem, the file untouched.
        let before = try String(contentsOfFile: bundle + "/fr.lproj/Localizable.strings", encoding: .utf8)
        let refused = try request("PUT", "/api/entry", body: Self.body(["bundle": bundle, "language": "fr", "key": "welcome", "value": "Bienvenue, %d !"]))
        XCTAssertEqual(refused.status, 422)
        let diagnostic = try XCTUnwrap((refused.json["diagnostics"] as? [[String: Any]])?.first?["message"] as? String)
        XCTAssertTrue(diagnostic.contains("(%d), but en reads it as an object (%@)"), diagnostic)
        XCTAssertEqual(try String(contentsOfFile: bundle + "/fr.lproj/Localizable.strings", encoding: .utf8), before)
        // A plural form the language does not have names the field.
        let few = try request("PUT", "/api/entry", body: Self.body(["bundle": bundle, "language": "fr", "key": "n",
                                                                      "plural": ["variable": "n", "category": "few", "value": "x"]]))
        XCTAssertEqual(few.status, 400)
        XCTAssertEqual(few.json["field"] as? String, "plural")
    }

    /// A save expects only its key and the key's source as the page saw
    /// them: another key's change meanwhile is no conflict; its own key's
    /// or its source's is a 409 saying what is there now, and a retry with
    /// those versions writes. A rule's forms and format are one save; a key
    /// a save made is removed again by its undo.
    func testASaveConflictsOnlyWhenItsKeyOrItsSourceChanged() throws {
        func row(_ key: String) throws -> [String: Any] {
            let table = try get("/api/table?bundle=\(bundle)&languages=fr")
            XCTAssertEqual(table.status, 200, table.text)
            return try XCTUnwrap((table.json["entries"] as? [[String: Any]])?.first { $0["key"] as? String == key })
        }
        func put(_ fields: [String: Any]) throws -> Response {
            try request("PUT", "/api/entry", body: Self.body(["bundle": bundle, "language": "fr"].merging(fields) { $1 }))
        }
        let french = bundle + "/fr.lproj/Localizable.strings"
        let home = try row("home")
        let homeVersion = try XCTUnwrap((home["versions"] as? [String: String])?["fr"])
        let sourceVersion = try XCTUnwrap(home["sourceVersion"] as? String)

        // Another key changes on disk: saving "home" with its own versions still writes.
        try daemon.write("App/fr.lproj/Localizable.strings", "/* Greeting */\n\"welcome\" = \"Salut, %@ !\";\n\"home\" = \"Accueil\";\n")
        let saved = try put(["key": "home", "value": "Maison", "entryVersion": homeVersion, "sourceVersion": sourceVersion])
        XCTAssertEqual(saved.status, 200, saved.text)
        XCTAssertEqual(saved.json["before"] as? String, "Accueil")
        let savedVersion = try XCTUnwrap(saved.json["entryVersion"] as? String)
        XCTAssertNotEqual(savedVersion, homeVersion)

        // The key itself changes: 409 with the text and version now; nothing written.
        try daemon.write("App/fr.lproj/Localizable.strings", "/* Greeting */\n\"welcome\" = \"Salut, %@ !\";\n\"home\" = \"Foyer\";\n")
        let conflict = try put(["key": "home", "value": "Logis", "entryVersion": savedVersion, "sourceVersion": sourceVersion])
        XCTAssertEqual(conflict.status, 409, conflict.text)
        XCTAssertEqual(conflict.json["current"] as? String, "Foyer")
        XCTAssertEqual(conflict.json["source"] as? String, "Home")
        XCTAssertEqual(conflict.json["sourceVersion"] as? String, sourceVersion)
        XCTAssertTrue(try String(contentsOfFile: french, encoding: .utf8).contains("\"Foyer\""))
        let retried = try put(["key": "home", "value": "Logis", "entryVersion": try XCTUnwrap(conflict.json["entryVersion"] as? String),
                               "sourceVersion": sourceVersion])
        XCTAssertEqual(retried.status, 200, retried.text)

        // The source text changes: 409 naming the new source.
        try daemon.write("App/en.lproj/Localizable.strings", "/* Greeting */\n\"welcome\" = \"Welcome, %@!\";\n\"home\" = \"Start\";\n\"cart\" = \"Cart\";\n")
        let moved = try put(["key": "home", "value": "Début", "entryVersion": try XCTUnwrap(retried.json["entryVersion"] as? String),
                             "sourceVersion": sourceVersion])
        XCTAssertEqual(moved.status, 409, moved.text)
        XCTAssertEqual(moved.json["source"] as? String, "Start")
        XCTAssertNotEqual(moved.json["sourceVersion"] as? String, sourceVersion)

        // A key the save made (no entry before) is removed by DELETE expecting the saved version; a stale one is refused.
        let cart = try put(["key": "cart", "value": "Panier", "entryVersion": try XCTUnwrap((try row("cart")["versions"] as? [String: String])?["fr"])])
        XCTAssertEqual(cart.status, 200, cart.text)
        XCTAssertEqual(cart.json["before"] as? NSNull, NSNull())
        let staleRemoval = try request("DELETE", "/api/entry", body: Self.body(["bundle": bundle, "language": "fr", "key": "cart", "entryVersion": homeVersion]))
        XCTAssertEqual(staleRemoval.status, 409, staleRemoval.text)
        let removal = try request("DELETE", "/api/entry", body: Self.body(["bundle": bundle, "language": "fr", "key": "cart",
                                                                           "entryVersion": try XCTUnwrap(cart.json["entryVersion"] as? String)]))
        XCTAssertEqual(removal.status, 200, removal.text)
        XCTAssertFalse(try String(contentsOfFile: french, encoding: .utf8).contains("cart"))

        // A rule's forms (its "other" made first, whatever the order sent) and format, one save.
        try daemon.write("App/en.lproj/Localizable.stringsdict", """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>posts</key><dict><key>NSStringLocalizedFormatKey</key><string>%#@n@</string>
            <key>n</key><dict><key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>
            <key>NSStringFormatValueTypeKey</key><string>d</string><key>one</key><string>%d post</string><key>other</key><string>%d posts</string></dict>
            </dict></dict></plist>
            """)
        let forms = try put(["key": "posts", "forms": [["variable": "n", "category": "one", "value": "%d article"],
                                                       ["variable": "n", "category": "other", "value": "%d articles"]],
                             "value": "En tout : %#@n@", "entryVersion": "0000000000000000"])
        XCTAssertEqual(forms.status, 200, forms.text)
        let rules = try String(contentsOfFile: bundle + "/fr.lproj/Localizable.stringsdict", encoding: .utf8)
        for text in ["<string>%d article</string>", "<string>%d articles</string>", "<string>En tout : %#@n@</string>"] {
            XCTAssertTrue(rules.contains(text), rules)
        }

        // The editor pane's view of a key: the other languages, its checks, and no history outside git (said why).
        let details = try get("/api/entry?bundle=\(bundle)&table=Localizable&key=home&language=fr")
        XCTAssertEqual(details.status, 200, details.text)
        XCTAssertEqual(details.json["value"] as? String, "Logis")
        XCTAssertEqual(details.json["source"] as? String, "Start")
        XCTAssertEqual((details.json["others"] as? [[String: Any]])?.compactMap { $0["language"] as? String }, ["ar", "en"])
        let history = try XCTUnwrap(details.json["history"] as? [String: Any])
        XCTAssertEqual((history["unavailable"] as? String).map { $0.hasSuffix("is not in a git repository") }, true, "\(history)")
    }

    /// In git, a translation whose line last changed before its source text's line is outdated: a badge and a
    /// filter; saving it (a change not committed yet is the newest) ends it. A file outside git has none.
    func testATranslationOlderThanItsSourceInGitIsOutdated() throws {
        func statuses() throws -> [String: String] {
            let entries = try XCTUnwrap(try get("/api/table?bundle=\(bundle)&languages=fr").json["entries"] as? [[String: Any]])
            var found: [String: String] = [:]
            for entry in entries { found[entry["key"] as! String] = (entry["statuses"] as? [String: String])?["fr"] }
            return found
        }
        XCTAssertEqual(try statuses(), ["cart": "missing", "home": "translated", "welcome": "translated"], "outside git")
        let environment = "GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.com GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@example.com"
        try daemon.shell("git init -q && git add -A && \(environment) GIT_AUTHOR_DATE=@1700000000 git commit -qm first", in: bundle)
        XCTAssertEqual(try statuses()["home"], "translated")
        try daemon.write("App/en.lproj/Localizable.strings", "/* Greeting */\n\"welcome\" = \"Welcome, %@!\";\n\"home\" = \"Home page\";\n\"cart\" = \"Cart\";\n")
        XCTAssertEqual(try statuses()["home"], "outdated", "the English line changed, not committed yet: newer than the French")
        try daemon.shell("\(environment) git commit -qam 'Home page'", in: bundle)
        XCTAssertEqual(try statuses(), ["cart": "missing", "home": "outdated", "welcome": "translated"])
        let listed = try get("/api/table?bundle=\(bundle)&languages=fr&filter=outdated")
        XCTAssertEqual((listed.json["entries"] as? [[String: Any]])?.map { $0["key"] as? String }, ["home"])
        // The French saved again: newer than its source now.
        try daemon.write("App/fr.lproj/Localizable.strings", "/* Greeting */\n\"welcome\" = \"Bienvenue, %@ !\";\n\"home\" = \"Page d'accueil\";\n")
        XCTAssertEqual(try statuses()["home"], "translated")
    }
}
