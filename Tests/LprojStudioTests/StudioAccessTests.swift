import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import LprojTables
import XCTest

/// The studio's guards: its address, who may ask, what it may write, a hostile peer.
final class StudioAccessTests: StudioTestCase {
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
}
