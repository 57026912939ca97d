import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import LprojTables
import XCTest

/// `lprojctl studio` over real HTTP against a real daemon: who may ask, what
/// the API answers, and a write that reaches the file, the daemon, a
/// subscribed LiveBundle and every page's event stream.
final class StudioTests: XCTestCase {
    private var daemon: DaemonProcess!
    private var studio: Process!
    private var port: UInt16 = 0
    private var token = ""
    private var bundle: String { daemon.root + "/App" }

    override func setUpWithError() throws {
        daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "/* Greeting */\n\"welcome\" = \"Welcome, %@!\";\n\"home\" = \"Home\";\n\"cart\" = \"Cart\";\n")
        try daemon.write("App/fr.lproj/Localizable.strings", "/* Greeting */\n\"welcome\" = \"Bienvenue, %@ !\";\n\"home\" = \"Accueil\";\n")
        try daemon.write("App/ar.lproj/Localizable.strings", "\"home\" = \"الرئيسية\";\n")
        try daemon.start()
        let started = try startStudio()
        studio = started.process
        let address = try XCTUnwrap(URLComponents(string: started.address))
        port = UInt16(try XCTUnwrap(address.port))
        token = try XCTUnwrap(address.queryItems?.first { $0.name == "token" }?.value)
        XCTAssertEqual(address.host, "127.0.0.1")
        XCTAssertEqual(token.count, 32)
    }

    /// `lprojctl studio` with `arguments`, keeping its address in the test's own state directory: the process,
    /// the address it printed first, and where its standard error goes.
    private func startStudio(_ arguments: [String] = [], state: String? = nil) throws -> (process: Process, address: String, errors: String) {
        let process = Process()
        process.executableURL = binaryDirectory().appendingPathComponent("lprojctl")
        process.arguments = ["studio", "--socket", daemon.socket] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_STATE_HOME": state ?? daemon.directory + "/state"]) { $1 }
        let output = Pipe()
        let errors = daemon.directory + "/studio-errors-\(UUID().uuidString)"
        XCTAssertTrue(FileManager.default.createFile(atPath: errors, contents: nil))
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: errors)
        try process.run()
        // The first line is the address to open.
        return (process, try Self.firstLine(of: output.fileHandleForReading, timeout: 30), errors)
    }

    /// The address stays the same from run to run (a bookmark keeps working): the port and token are kept in the
    /// user's state directory, readable only by the user; a kept port that is taken gives way to a free one, said
    /// so; a kept file others may read is not trusted; --new-token and --port choose.
    func testTheAddressStaysTheSameFromRunToRun() throws {
        let state = daemon.directory + "/kept-state"
        func stop(_ process: Process) {
            process.interrupt()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
        }
        let first = try startStudio(state: state)
        stop(first.process)
        let kept = state + "/lprojd/studio"
        var status = stat()
        XCTAssertEqual(stat(kept, &status), 0)
        XCTAssertEqual(status.st_mode & 0o777, 0o600)
        let second = try startStudio(state: state)
        XCTAssertEqual(second.address, first.address, "the same port and token")
        // While it runs, its port is taken: another run takes a free one, says so, and keeps that.
        let third = try startStudio(state: state)
        XCTAssertNotEqual(URLComponents(string: third.address)?.port, URLComponents(string: first.address)?.port)
        XCTAssertEqual(URLComponents(string: third.address)?.queryItems, URLComponents(string: first.address)?.queryItems, "the same token")
        XCTAssertTrue(try String(contentsOfFile: third.errors, encoding: .utf8).contains("cannot be used"), "said on standard error")
        stop(third.process)
        stop(second.process)
        let fourth = try startStudio(state: state)
        XCTAssertEqual(fourth.address, third.address)
        stop(fourth.process)
        // A token others may read is no secret: a new one is made.
        XCTAssertEqual(chmod(kept, 0o644), 0)
        let fifth = try startStudio(state: state)
        XCTAssertNotEqual(URLComponents(string: fifth.address)?.queryItems, URLComponents(string: first.address)?.queryItems)
        stop(fifth.process)
        let sixth = try startStudio(["--new-token"], state: state)
        XCTAssertNotEqual(URLComponents(string: sixth.address)?.queryItems, URLComponents(string: fifth.address)?.queryItems)
        stop(sixth.process)
        // --port chooses; a port asked for that is taken is an error, not another port.
        let free = URLComponents(string: sixth.address)!.port!
        let chosen = try startStudio(["--port", String(free)], state: state)
        XCTAssertEqual(URLComponents(string: chosen.address)?.port, free)
        let taken = Process()
        taken.executableURL = binaryDirectory().appendingPathComponent("lprojctl")
        taken.arguments = ["studio", "--socket", daemon.socket, "--port", String(free)]
        taken.environment = ["XDG_STATE_HOME": state, "PATH": "/usr/bin:/bin"]
        taken.standardOutput = FileHandle.nullDevice
        taken.standardError = FileHandle.nullDevice
        try taken.run()
        taken.waitUntilExit()
        XCTAssertEqual(taken.terminationStatus, 2)
        stop(chosen.process)
    }

    override func tearDown() {
        if let studio, studio.isRunning {
            studio.interrupt()
            studio.waitUntilExit()
            XCTAssertEqual(studio.terminationStatus, 0)
        }
        if let daemon { XCTAssertEqual(daemon.stop(), 0, daemon.log) }
        daemon = nil
    }

    func testTheTokenTheHostAndTheOriginGuardEveryRequest() throws {
        XCTAssertEqual(try get("/api/bundles", authenticated: false).status, 401)
        XCTAssertEqual(try get("/", authenticated: false).status, 401)
        XCTAssertEqual(try get("/api/bundles", headers: ["Authorization": "Bearer 00000000000000000000000000000000"], authenticated: false).status, 401)
        let rebound = try get("/api/bundles", headers: ["Host": "attacker.example:\(port)"])
        XCTAssertEqual(rebound.status, 403)
        XCTAssertEqual(rebound.json["field"] as? String, "Host")
        let foreign = try request("PUT", "/api/entry", headers: ["Origin": "http://attacker.example"], body: "{}")
        XCTAssertEqual(foreign.status, 403)
        XCTAssertEqual(foreign.json["field"] as? String, "Origin")
        // The token in an address is the page's first load only, never an API's or another file's.
        XCTAssertEqual(try get("/api/bundles?token=\(token)", authenticated: false).status, 401)
        XCTAssertEqual(try get("/studio.js?token=\(token)", authenticated: false).status, 401)
        // The page's way in: ?token= sets the cookie and leaves the address.
        let entry = try get("/?token=\(token)", authenticated: false)
        XCTAssertEqual(entry.status, 303)
        XCTAssertEqual(entry.headers["location"], "/")
        let cookie = try XCTUnwrap(entry.headers["set-cookie"])
        XCTAssertTrue(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), cookie)
        let pair = String(cookie.split(separator: ";")[0])
        let page = try get("/", headers: ["Cookie": pair], authenticated: false)
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.headers["content-security-policy"]?.contains("default-src 'self'") == true)
        XCTAssertTrue(page.text.contains("<script src=\"/studio.js\" defer></script>"))
        XCTAssertFalse(page.text.contains("<script>"), "no inline script")
        XCTAssertEqual(try get("/studio.js", headers: ["Cookie": pair], authenticated: false).status, 200)
        // A change by cookie needs the page's own origin.
        let withoutOrigin = try request("PUT", "/api/entry", headers: ["Cookie": pair], body: "{}", authenticated: false)
        XCTAssertEqual(withoutOrigin.status, 403)
        let ownOrigin = try request("PUT", "/api/entry", headers: ["Cookie": pair, "Origin": "http://127.0.0.1:\(port)"], body: "{}", authenticated: false)
        XCTAssertEqual(ownOrigin.status, 400, "past the gate: the body is checked")
        XCTAssertEqual(ownOrigin.json["field"] as? String, "bundle")
    }

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

    func testBadRequestsGetAJSONErrorNamingTheField() throws {
        let cases: [(String, String, String?, Int, String)] = [
            ("GET", "/api/table", nil, 400, "bundle"),
            ("GET", "/api/table?bundle=/etc", nil, 404, "bundle"),
            ("GET", "/api/table?bundle=\(bundle)&limit=0", nil, 400, "limit"),
            ("GET", "/api/table?bundle=\(bundle)&filter=everything", nil, 400, "filter"),
            ("PUT", "/api/entry", "not json", 400, "body"),
            ("PUT", "/api/entry", Self.body(["bundle": bundle, "language": "fr"]), 400, "key"),
            ("PUT", "/api/entry", Self.body(["bundle": bundle, "language": "fr", "key": "k"]), 400, "value"),
            ("POST", "/api/entry", nil, 405, "method"),
            ("DELETE", "/api/entry", "[]", 400, "body"),
            ("GET", "/api/entry?bundle=\(bundle)&language=fr", nil, 400, "key"),
            ("GET", "/api/entry?bundle=\(bundle)&key=home", nil, 400, "language"),
            ("GET", "/api/entry?bundle=/etc&key=home&language=fr", nil, 404, "bundle"),
            ("PUT", "/api/entry", Self.body(["bundle": bundle, "language": "fr", "key": "k", "forms": "one"]), 400, "forms"),
            ("PUT", "/api/entry", Self.body(["bundle": bundle, "language": "fr", "key": "k", "forms": [["category": "one"]]]), 400, "forms"),
            ("PUT", "/api/entry", Self.body(["bundle": bundle, "language": "fr", "key": "k", "value": "v", "entryVersion": 7]), 400, "entryVersion"),
            ("GET", "/api/suggestions?bundle=\(bundle)&key=k&language=fr", nil, 400, "q"),
            ("GET", "/api/suggestions?bundle=/etc&key=k&language=fr&q=x", nil, 404, "bundle"),
            ("GET", "/api/nothing", nil, 404, "path"),
            ("PUT", "/api/entry", String(repeating: "x", count: 2 << 20), 413, "body"),
        ]
        for (method, path, body, status, field) in cases {
            let response = try request(method, path, body: body)
            XCTAssertEqual(response.status, status, "\(method) \(path)")
            XCTAssertEqual(response.json["field"] as? String, field, "\(method) \(path)")
        }
        let search = try get("/api/table?bundle=\(bundle)&languages=fr&filter=missing&q=cart")
        XCTAssertEqual((search.json["entries"] as? [[String: Any]])?.map { $0["key"] as? String }, ["cart"])
    }

    func testTheStudioWritesOnlyInsideTheRootsAndTheBundlesTheDaemonServes() throws {
        let outside = daemon.directory + "/outside"
        try FileManager.default.createDirectory(atPath: outside + "/Evil/en.lproj", withIntermediateDirectories: true)
        try Data("\"home\" = \"Outside\";\n".utf8).write(to: URL(fileURLWithPath: outside + "/Evil/en.lproj/Localizable.strings"))
        try Data("\"home\" = \"Draußen\";\n".utf8).write(to: URL(fileURLWithPath: outside + "/de.strings"))
        XCTAssertEqual(symlink(outside + "/Evil", daemon.root + "/Linked"), 0)
        try FileManager.default.createDirectory(atPath: daemon.root + "/Plain", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: bundle + "/de.lproj", withIntermediateDirectories: true)
        XCTAssertEqual(symlink(outside + "/de.strings", bundle + "/de.lproj/Localizable.strings"), 0)
        try daemon.write("Shared/it.strings", "\"home\" = \"Casa\";\n")
        try FileManager.default.createDirectory(atPath: bundle + "/it.lproj", withIntermediateDirectories: true)
        XCTAssertEqual(symlink("../../Shared/it.strings", bundle + "/it.lproj/Localizable.strings"), 0)
        _ = try daemon.connect().send(Sync())
        func put(_ bundle: String, _ language: String, _ value: String) throws -> Response {
            try request("PUT", "/api/entry", body: Self.body(["bundle": bundle, "language": language, "key": "home", "value": value]))
        }

        // A link under a root to a directory outside every root is no bundle of the studio's (the daemon does not serve it).
        XCTAssertEqual(try get("/api/table?bundle=\(daemon.root)/Linked").status, 404)
        XCTAssertEqual(try put(daemon.root + "/Linked", "en", "Pwned").status, 404)
        // Nor is a directory that is not a bundle: no en.lproj is made in it.
        XCTAssertEqual(try put(daemon.root + "/Plain", "en", "Home").status, 404)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: daemon.root + "/Plain"), [])
        // Preview columns are read-only: no en-XA.lproj, and no Base.lproj, is made.
        let preview = try put(bundle, "en-XA", "[Ĥöɱé]")
        XCTAssertEqual(preview.status, 403, preview.text)
        XCTAssertEqual(preview.json["field"] as? String, "language")
        XCTAssertEqual(try put(bundle, "Base", "Home").status, 403)
        XCTAssertFalse(FileManager.default.fileExists(atPath: bundle + "/en-XA.lproj"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: bundle + "/Base.lproj"))
        // A typo in the languages box ("dee") is no new localization: read-only, with why, and a PUT is refused.
        let typo = try put(bundle, "dee", "Heim")
        XCTAssertEqual(typo.status, 403, typo.text)
        XCTAssertTrue((typo.json["message"] as? String)?.contains("no language is called dee") == true, typo.text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: bundle + "/dee.lproj"))
        let typoColumn = try XCTUnwrap((try get("/api/table?bundle=\(bundle)&languages=dee").json["languages"] as? [[String: Any]])?.first)
        XCTAssertEqual(typoColumn["writable"] as? Bool, false)
        // A real language the bundle does not have yet is made by its first save.
        XCTAssertEqual(try put(bundle, "haw", "Home").status, 200)
        XCTAssertTrue(FileManager.default.fileExists(atPath: bundle + "/haw.lproj"))
        // A table that links outside the roots is shown read-only, with why, and a PUT is refused.
        let table = try get("/api/table?bundle=\(bundle)&languages=de,it")
        let columns = try XCTUnwrap(table.json["languages"] as? [[String: Any]])
        XCTAssertEqual(columns[0]["writable"] as? Bool, false)
        XCTAssertTrue((columns[0]["reason"] as? String)?.contains("is a symbolic link to \(outside)/de.strings, outside") == true, "\(columns[0])")
        XCTAssertEqual(columns[1]["writable"] as? Bool, true)
        let refused = try put(bundle, "de", "Pwned")
        XCTAssertEqual(refused.status, 403, refused.text)
        XCTAssertEqual(try String(contentsOfFile: outside + "/de.strings", encoding: .utf8), "\"home\" = \"Draußen\";\n")
        // One that links inside them is written through: the link stays, its file gets the text.
        let through = try put(bundle, "it", "Home page")
        XCTAssertEqual(through.status, 200, through.text)
        XCTAssertEqual(try String(contentsOfFile: daemon.root + "/Shared/it.strings", encoding: .utf8), "\"home\" = \"Home page\";\n")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: bundle + "/it.lproj/Localizable.strings"), "../../Shared/it.strings")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside).sorted(), ["Evil", "de.strings"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside + "/Evil").sorted(), ["en.lproj"])
    }

    /// Another local user's 64 connections whose headers never end, one header line a second (well inside
    /// libmicrohttpd's idle timeout): past 32 they are cut off at once (one peer, one user), the owner is still
    /// served, and each of the rest is cut off at the headers' deadline however often it sends.
    func testASlowSenderOfAnotherUserCannotTakeTheStudio() throws {
        try requirement(getuid() == 0, "another user's connections need root (setpriv)")
        let script = #"""
        import socket, sys, time, selectors
        port = int(sys.argv[1])
        chooser = selectors.DefaultSelector()
        open_ = {}
        for index in range(64):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"GET /api/bundles HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            open_[index] = (s, 0)
            chooser.register(s, selectors.EVENT_READ, index)
        print("open", flush=True)
        while open_:
            for key, _ in chooser.select(timeout=1):
                index = key.data
                try:
                    data = key.fileobj.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    print(f"{index}: closed after {open_[index][1]} lines", flush=True)
                    chooser.unregister(key.fileobj)
                    del open_[index]
            for index, (s, lines) in list(open_.items()):
                try:
                    s.sendall(b"X-Slow: %d\r\n" % lines)
                    open_[index] = (s, lines + 1)
                except OSError:
                    pass
        sys.stdin.readline()
        """#
        let slow = try UserScript(uid: 65534, script, arguments: ["\(port)"])
        defer { slow.finish() }
        XCTAssertEqual(try slow.lines(1), ["open"])
        // Past one peer's 32, the rest are cut off at once.
        let cut = try slow.lines(32)
        XCTAssertTrue(cut.allSatisfy { $0.contains(": closed after") }, "\(cut)")
        // The owner is served while the slow sender's 32 are open.
        XCTAssertEqual(try get("/api/bundles").status, 200)
        // The 32 that keep sending are cut off at the headers' deadline, not left open for as long as they send.
        let late = try slow.lines(32, timeout: .seconds(60))
        XCTAssertTrue(late.allSatisfy { $0.contains(": closed after") }, "\(late)")
        XCTAssertEqual(try get("/api/bundles").status, 200)
    }

    // MARK: - HTTP

    struct Response {
        var status: Int
        var headers: [String: String]
        var text: String
        var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]) ?? [:] }
    }

    private func get(_ path: String, headers: [String: String] = [:], authenticated: Bool = true) throws -> Response {
        try request("GET", path, headers: headers, authenticated: authenticated)
    }

    /// One request on its own connection (`Connection: close`), with the studio's token unless said.
    private func request(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil, authenticated: Bool = true) throws -> Response {
        let bearer = authenticated ? token : nil
        var lines = ["\(method) \(path.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? path) HTTP/1.1", "Connection: close"]
        if headers["Host"] == nil { lines.append("Host: 127.0.0.1:\(port)") }
        if let bearer { lines.append("Authorization: Bearer \(bearer)") }
        for (name, value) in headers { lines.append("\(name): \(value)") }
        let bytes = Array((body ?? "").utf8)
        if body != nil { lines += ["Content-Type: application/json", "Content-Length: \(bytes.count)"] }
        let socket = try Self.connect(port: port)
        defer { close(socket) }
        try Self.send(socket, Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + bytes)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer.prefix(count)
        }
        return try Self.parse(received)
    }

    static func connect(port: UInt16) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(descriptor); throw DaemonTestError("cannot connect to the studio") }
        return descriptor
    }

    static func send(_ socket: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            // The server may answer (413) and close before a large body is all sent.
            if count <= 0 { return }
            offset += count
        }
    }

    static func parse(_ received: [UInt8]) throws -> Response {
        let text = String(decoding: received, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw DaemonTestError("no HTTP response: \(text)") }
        let head = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = String(text[split.upperBound...])
        if headers["transfer-encoding"] == "chunked" {
            // Chunks: a hex size line, the bytes, CRLF; 0 ends.
            var decoded = "", rest = Substring(body)
            while let line = rest.range(of: "\r\n"), let size = Int(rest[..<line.lowerBound], radix: 16), size > 0 {
                let start = line.upperBound
                let bytes = Array(rest[start...].utf8)
                decoded += String(decoding: bytes.prefix(size), as: UTF8.self)
                rest = Substring(String(decoding: bytes.dropFirst(size + 2), as: UTF8.self))
            }
            body = decoded
        }
        return Response(status: status, headers: headers, text: body)
    }

    static func body(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    private static func firstLine(of handle: FileHandle, timeout: TimeInterval) throws -> String {
        let deadline = Date(timeIntervalSinceNow: timeout)
        var text = ""
        while !text.contains("\n") {
            guard Date() < deadline else { throw DaemonTestError("the studio printed no address: \(text)") }
            var poll = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&poll, 1, 1000) >= 0 else { continue }
            if poll.revents != 0 {
                let data = handle.availableData
                if data.isEmpty { throw DaemonTestError("the studio ended: \(text)") }
                text += String(decoding: data, as: UTF8.self)
            }
        }
        return String(text.prefix { $0 != "\n" })
    }

    private func runLprojctl(_ arguments: [String]) throws -> String {
        let output = daemon.directory + "/lprojctl-output"
        XCTAssertEqual(try runToEnd(binaryDirectory().appendingPathComponent("lprojctl").path, arguments, output: output), 0)
        return try String(contentsOfFile: output, encoding: .utf8)
    }
}

/// A page's event stream, read with deadlines.
private final class EventReader {
    private let socket: Int32
    private var received = ""

    init(port: UInt16, token: String) throws {
        socket = try StudioTests.connect(port: port)
        try StudioTests.send(socket, Array("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\n\r\n".utf8))
    }

    deinit { close(socket) }

    /// Waits for an event `name` whose data holds `text`.
    func await(_ name: String, containing text: String, timeout: TimeInterval = 30) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            for block in received.components(separatedBy: "\n\n") where block.contains("event: \(name)\n") && block.contains(text) { return }
            guard Date() < deadline else { throw DaemonTestError("no \(name) event with \(text); got: \(received)") }
            var poll = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            if Glibc.poll(&poll, 1, 1000) > 0 {
                var buffer = [UInt8](repeating: 0, count: 65536)
                let count = recv(socket, &buffer, buffer.count, 0)
                guard count > 0 else { throw DaemonTestError("the event stream ended: \(received)") }
                received += String(decoding: buffer.prefix(count), as: UTF8.self)
            }
        }
    }
}
