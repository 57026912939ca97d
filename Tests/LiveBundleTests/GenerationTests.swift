import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import XCTest

/// Acknowledged generations against the real daemon: every published change
/// of a bundle is its next generation (persisted: a restart continues it),
/// LiveBundle acknowledges each once swapped in, and `lprojctl wait` is a
/// barrier — once it returns, every following process shows the disk.
final class GenerationTests: XCTestCase {
    private var daemon: DaemonProcess!
    private var config: String { daemon.directory + "/config" }
    private var app: String { daemon.root + "/App" }

    override func setUpWithError() throws {
        daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Home\";\n")
        try daemon.write("App/fr.lproj/Localizable.strings", "\"home_title\" = \"Accueil\";\n")
        try daemon.start()
    }

    override func tearDown() {
        if let daemon { XCTAssertEqual(daemon.stop(), 0) }
        daemon = nil
    }

    func testOnceWaitReturnsEveryLiveBundleShowsTheSave() throws {
        let bundles = try ["fr", "en", "fr"].map(make)
        defer { bundles.forEach { $0.close() } }
        for bundle in bundles { try awaitState(of: bundle) { bundle.isConnected } }
        let first = try generation()
        XCTAssertGreaterThanOrEqual(first.number, 1)
        XCTAssertEqual(first.hash.count, 16)
        // Connected bundles acknowledge the generation they subscribed at.
        XCTAssertEqual(try lprojctl(["wait", "--bundle", app, "--timeout", "10"]).status, 0)

        for round in 1...5 {
            try daemon.write("App/fr.lproj/Localizable.strings", "\"home_title\" = \"Accueil \(round)\";\n")
            try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Home \(round)\";\n")
            // Straight after the writes, as a deploy script does: lprojctl wait has the daemon read them first.
            let wait = try lprojctl(["wait", "--bundle", app, "--timeout", "10"])
            XCTAssertEqual(wait.status, 0, wait.output)
            XCTAssertTrue(wait.output.hasPrefix("shown everywhere: \(app) generation "), wait.output)
            // The barrier: no polling here — every bundle already shows the disk.
            XCTAssertEqual(bundles[0].localizedString(forKey: "home_title", value: nil, table: nil), "Accueil \(round)")
            XCTAssertEqual(bundles[1].localizedString(forKey: "home_title", value: nil, table: nil), "Home \(round)")
            XCTAssertEqual(bundles[2].localizedString(forKey: "home_title", value: nil, table: nil), "Accueil \(round)")
        }
        let last = try generation()
        XCTAssertGreaterThan(last.number, first.number)
        XCTAssertLessThanOrEqual(last.number, first.number + 10, "one generation per published change: two saves a round at most")
        XCTAssertNotEqual(last.hash, first.hash)
        let list = try lprojctl(["list"])
        XCTAssertTrue(list.output.contains("  generation \(last.number) (\(last.hash)): 3 processes following, 3 of 3 acknowledging show it"),
                      list.output)
    }

    /// Who lags is named at the timeout: a process that says nothing yet, one that could not take the generation; one
    /// that never acknowledges is listed and not waited on.
    func testAtTheTimeoutEachLaggingProcessIsNamed() throws {
        let silent = try daemon.connect()
        _ = try silent.send(Hello(client: "silent", app: "com.example.silent"))
        _ = try silent.send(Subscribe(name: "s", bundle: app, acknowledges: true))
        let old = try daemon.connect()
        _ = try old.send(Hello(client: "older-client"))
        _ = try old.send(Subscribe(name: "s", bundle: app))
        let current = try generation().number

        let timedOut = try lprojctl(["wait", "--bundle", app, "--timeout", "0.3"])
        XCTAssertEqual(timedOut.status, 1, timedOut.output)
        let pid = getpid()
        XCTAssertTrue(timedOut.output.contains("timed out after 0.3 s waiting for \(app) generation \(current)"), timedOut.output)
        XCTAssertTrue(timedOut.output.contains("pid \(pid) uid \(getuid()) (com.example.silent) silent: has acknowledged no generation of \(app) yet"),
                      timedOut.output)
        XCTAssertTrue(timedOut.output.contains("pid \(pid) uid \(getuid()) older-client: follows \(app) but does not acknowledge generations (not waited on)"),
                      timedOut.output)

        _ = try silent.send(Ack(bundle: app, generation: current, refused: "an image that could not be mapped: EPERM"))
        let refused = try lprojctl(["wait", "--bundle", app, "--timeout", "0.3"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.output.contains("silent: could not take generation \(current) of \(app): an image that could not be mapped: EPERM"),
                      refused.output)

        // The acknowledgement ends a wait already waiting.
        let waiting = try daemon.connect()
        _ = try waiting.send(Hello(client: "tests"))
        try waiting.sendRequest(Wait(bundles: [app], timeout: 20))
        _ = try silent.send(Ack(bundle: app, generation: current))
        let reply = try JSONDecoder().decode(Wait.Reply.self, from: Data(waiting.nextReplyLine(timeout: .seconds(10))))
        XCTAssertTrue(reply.done)
        XCTAssertEqual(reply.generations, [Wait.BundleGeneration(bundle: app, generation: current)])
        XCTAssertEqual(reply.lagging.map(\.client), ["older-client"])

        // A generation not published yet is waited for, even by nobody.
        let future = try lprojctl(["wait", "--bundle", app, "--generation", "\(current + 1)", "--timeout", "0.2"])
        XCTAssertEqual(future.status, 1, future.output)
    }

    func testTheGenerationContinuesAcrossRestarts() throws {
        let before = try generation()
        XCTAssertEqual(daemon.stop(), 0)
        try daemon.start()
        let again = try generation()
        XCTAssertEqual(again.number, before.number, "the same tables: the same generation")
        XCTAssertEqual(again.hash, before.hash)
        XCTAssertEqual(daemon.stop(), 0)
        try daemon.write("App/fr.lproj/Localizable.strings", "\"home_title\" = \"Changé pendant l'arrêt\";\n")
        try daemon.start()
        let after = try generation()
        XCTAssertEqual(after.number, before.number + 1, "changed while down: the next generation")
        XCTAssertNotEqual(after.hash, before.hash)
        // Restoring the bytes restores the hash (the number only grows).
        try daemon.write("App/fr.lproj/Localizable.strings", "\"home_title\" = \"Accueil\";\n")
        _ = try daemon.connect().send(Sync())
        let restored = try generation()
        XCTAssertEqual(restored.number, after.number + 1)
        XCTAssertEqual(restored.hash, before.hash)
    }

    /// A hold keeps a bundle's changes back however far apart they are saved, and the release publishes them as one
    /// generation: a LiveBundle swaps both tables in with one observer call, never a mix.
    func testAHeldBundlesChangesArriveTogether() throws {
        try daemon.write("App/fr.lproj/Second.strings", "\"other\" = \"Autre\";\n")
        _ = try daemon.connect().send(Sync())
        let bundle = try make("fr")
        defer { bundle.close() }
        try awaitState(of: bundle) { bundle.isConnected }
        XCTAssertEqual(try lprojctl(["wait", "--bundle", app, "--timeout", "10"]).status, 0)
        let changes = ChangeLog()
        let token = bundle.observe { changes.append($0) }
        defer { token.cancel() }
        let before = try generation().number

        var holder: DaemonConnection! = try daemon.connect()
        _ = try holder.send(Hello(client: "deploy"))
        let held = try holder.send(Hold(bundle: app))
        XCTAssertEqual(held.seconds, 60)
        try daemon.write("App/fr.lproj/Localizable.strings", "\"home_title\" = \"Accueil 2\";\n")
        _ = try holder.send(Sync())
        XCTAssertEqual(try generation().number, before, "read, kept back")
        XCTAssertEqual(try lprojctl(["wait", "--bundle", app, "--timeout", "10"]).status, 0)
        XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Accueil", "nothing published yet")
        try daemon.write("App/fr.lproj/Second.strings", "\"other\" = \"Autre 2\";\n")
        _ = try holder.send(Sync())
        let released = try holder.send(Release(bundle: app))
        XCTAssertEqual(released.generation, before + 1)
        XCTAssertEqual(released.tables, 2)
        XCTAssertEqual(try lprojctl(["wait", "--bundle", app, "--timeout", "10"]).status, 0)
        XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Accueil 2")
        XCTAssertEqual(bundle.localizedString(forKey: "other", value: nil, table: "Second"), "Autre 2")
        XCTAssertEqual(changes.changes.map(\.changedKeys), [["Localizable": ["home_title"], "Second": ["other"]]], "one swap, both tables")

        // Another connection cannot hold it meanwhile; a closed holder's changes are published.
        _ = try holder.send(Hold(bundle: app))
        let other = try daemon.connect()
        XCTAssertThrowsError(try other.send(Hold(bundle: app))) { XCTAssertTrue("\($0)".contains("is held by pid \(getpid())"), "\($0)") }
        try daemon.write("App/fr.lproj/Localizable.strings", "\"home_title\" = \"Accueil 3\";\n")
        _ = try holder.send(Sync())
        holder = nil
        _ = try other.send(Sync())
        XCTAssertEqual(try generation().number, before + 2)
        XCTAssertThrowsError(try other.send(Release(bundle: app))) { XCTAssertTrue("\($0)".contains("holds no"), "\($0)") }
    }

    /// `lprojctl batch` runs a command under a hold and exits with its status.
    func testLprojctlBatchPublishesACommandsChangesAsOneGeneration() throws {
        let before = try generation().number
        let script = "printf '\"home_title\" = \"Batch fr\";\\n' > \(app)/fr.lproj/Localizable.strings && "
            + "printf '\"home_title\" = \"Batch en\";\\n' > \(app)/en.lproj/Localizable.strings && exit 3"
        let batch = try lprojctl(["batch", "--bundle", app, "--socket", daemon.socket, "--", "/bin/sh", "-c", script], socket: false)
        XCTAssertEqual(batch.status, 3, batch.output)
        XCTAssertEqual(batch.output, "\(app): generation \(before + 1) (2 table files read)\n")
        XCTAssertEqual(try generation().number, before + 1)
        let missing = try lprojctl(["batch", "--bundle", app, "--socket", daemon.socket, "--", "/no/such/command"], socket: false)
        XCTAssertEqual(missing.status, 127)
        XCTAssertEqual(missing.output, "\(app): nothing changed\n")
        XCTAssertEqual(try lprojctl(["batch", "--bundle", app, "--socket", daemon.socket], socket: false).status, 2)
        // A bundle a deploy is about to make may be held; one outside every root may not.
        XCTAssertEqual(try lprojctl(["batch", "--bundle", daemon.root + "/New", "--socket", daemon.socket, "--", "true"], socket: false).status, 0)
        XCTAssertEqual(try lprojctl(["batch", "--bundle", "/elsewhere", "--socket", daemon.socket, "--", "true"], socket: false).status, 1)
    }

    /// A hold is bounded: past `MaxHold=` its changes are published anyway and the log says so — never wedged.
    func testAHoldPastMaxHoldIsPublishedAnyway() throws {
        XCTAssertEqual(daemon.stop(), 0)
        daemon = try DaemonProcess(config: "[Limits]\nMaxHold=300ms\n")
        try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Home\";\n")
        try daemon.start()
        let before = try generation().number
        let holder = try daemon.connect()
        XCTAssertEqual(try holder.send(Hold(bundle: app)).seconds, 0.3)
        try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Held too long\";\n")
        _ = try holder.send(Sync())
        let wait = try lprojctl(["wait", "--bundle", app, "--generation", "\(before + 1)", "--timeout", "20"])
        XCTAssertEqual(wait.status, 0, wait.output)
        XCTAssertTrue(daemon.log.contains("held past [Limits] MaxHold (300 ms): its changes are published"), daemon.log)
        _ = holder
    }

    /// `lprojctl rollback` writes a kept generation's tables back through the one writer — texts, plural forms, keys added
    /// since removed — publishes them as one new generation whose hash is the old one's, and refuses a generation no longer kept.
    func testRollbackRestoresAKeptGenerationAsOneNewGeneration() throws {
        XCTAssertEqual(daemon.stop(), 0)
        daemon = try DaemonProcess(config: "[Limits]\nRollbackGenerations=3\n")
        let rules = { (one: String) in """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>files</key><dict>
            <key>NSStringLocalizedFormatKey</key><string>%#@n@</string>
            <key>n</key><dict><key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>
            <key>NSStringFormatValueTypeKey</key><string>d</string>
            <key>one</key><string>\(one)</string><key>other</key><string>%d files</string></dict>
            </dict></dict></plist>

            """ }
        try daemon.write("App/en.lproj/Localizable.strings", "/* The title */\n\"home_title\" = \"Home\";\n")
        try daemon.write("App/en.lproj/Localizable.stringsdict", rules("%d file"))
        try daemon.write("App/fr.lproj/Localizable.strings", "\"home_title\" = \"Accueil\";\n")
        try daemon.start()
        let before = try generation()
        let bundle = try make("fr")
        defer { bundle.close() }
        try awaitState(of: bundle) { bundle.isConnected }

        try daemon.write("App/fr.lproj/Localizable.strings", "\"home_title\" = \"Mauvais\";\n\"added\" = \"Ajouté\";\n")
        try daemon.write("App/en.lproj/Localizable.stringsdict", rules("%d wrong file"))
        _ = try daemon.connect().send(Sync())
        let bad = try generation()
        XCTAssertGreaterThan(bad.number, before.number)

        // (Two saves: perhaps two generations. The one before both is named.)
        let rollback = try lprojctl(["rollback", "--bundle", app, "--to", "\(before.number)"])
        XCTAssertEqual(rollback.status, 0, rollback.output)
        let restored = try generation()
        XCTAssertEqual(restored.number, bad.number + 1, "one new generation")
        XCTAssertEqual(restored.hash, before.hash, "the tables of the generation rolled back to")
        XCTAssertTrue(rollback.output.contains("fr/Localizable: 1 set, 1 removed"), rollback.output)
        XCTAssertTrue(rollback.output.contains("en/Localizable: 1 set, 0 removed"), rollback.output)
        XCTAssertTrue(rollback.output.contains("\(app): generation \(restored.number), the tables of generation \(before.number)"), rollback.output)
        XCTAssertEqual(try String(contentsOfFile: app + "/fr.lproj/Localizable.strings", encoding: .utf8), "\"home_title\" = \"Accueil\";\n")
        XCTAssertEqual(try String(contentsOfFile: app + "/en.lproj/Localizable.strings", encoding: .utf8),
                       "/* The title */\n\"home_title\" = \"Home\";\n", "a file with nothing to restore is not touched")
        XCTAssertEqual(try lprojctl(["wait", "--bundle", app, "--timeout", "10"]).status, 0)
        XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Accueil")
        XCTAssertEqual(bundle.localization(preferences: ["en"]).localizedString(format: "files", 1), "1 file")

        // Past RollbackGenerations=3, the first is no longer kept: refused, nothing written.
        for round in 1...3 {
            try daemon.write("App/fr.lproj/Localizable.strings", "\"home_title\" = \"Accueil \(round)\";\n")
            _ = try daemon.connect().send(Sync())
        }
        let gone = try lprojctl(["rollback", "--bundle", app, "--to", "\(before.number)"])
        XCTAssertEqual(gone.status, 1, gone.output)
        XCTAssertTrue(gone.output.isEmpty, gone.output)
        XCTAssertEqual(try String(contentsOfFile: app + "/fr.lproj/Localizable.strings", encoding: .utf8), "\"home_title\" = \"Accueil 3\";\n")
        XCTAssertEqual(try daemon.connect().send(List()).bundles.first?.generation, try generation().number)
        let refused = try daemon.connect()
        XCTAssertThrowsError(try refused.send(GenerationTables(bundle: app, generation: before.number))) {
            XCTAssertTrue("\($0)".contains("generation \(before.number) of \(app) is no longer kept (kept: "), "\($0)")
        }
    }

    func testBadRequestsAreRefusedByField() throws {
        let connection = try daemon.connect()
        _ = try connection.send(Hello(client: "tests"))
        func refusal<R: Request>(_ request: R) -> String {
            do {
                _ = try connection.send(request)
                return "accepted"
            } catch {
                return error.description
            }
        }
        XCTAssertTrue(refusal(Ack(bundle: app, generation: 1)).contains("no subscription of this connection acknowledges"))
        _ = try connection.send(Subscribe(name: "s", bundle: app, acknowledges: true))
        XCTAssertTrue(refusal(Ack(bundle: app, generation: UInt64.max)).contains("has no generation 18446744073709551615 yet"))
        XCTAssertTrue(refusal(Wait(bundles: [daemon.root + "/Nothing"])).contains("no bundle at"))
        XCTAssertTrue(refusal(Wait(bundles: ["/elsewhere"])).contains("outside"))
        // A path not served is answered and not kept: the list of what the connection shows stays the bundles served.
        _ = try connection.send(Subscribe(name: "every bundle", acknowledges: true))
        XCTAssertEqual(refusal(Ack(bundle: daemon.root + "/Made-up", generation: 1)), "accepted")
        XCTAssertEqual(try daemon.connect().send(List()).bundles.flatMap { $0.followers ?? [] }.compactMap(\.generation).count, 0)
        XCTAssertTrue(refusal(Wait(timeout: -1)).contains("timeout"))
        XCTAssertTrue(refusal(Wait(timeout: .infinity)).contains("timeout"))
        // A connection holds at most 16 waits (each is kept until answered).
        let waiter = try daemon.connect()
        let future = try generation().number + 1
        for _ in 0..<16 { try waiter.sendRequest(Wait(bundles: [app], generation: future, timeout: 60)) }
        XCTAssertThrowsError(try waiter.send(Wait(bundles: [app], generation: future, timeout: 60))) {
            XCTAssertTrue("\($0)".contains("already waits 16 times"), "\($0)")
        }
        let usage = try lprojctl(["wait", "--generation", "0"])
        XCTAssertEqual(usage.status, 2)
        let unknown = try lprojctl(["wait", "--bundle", daemon.root + "/Nothing", "--timeout", "1"])
        XCTAssertEqual(unknown.status, 1)
    }

    // MARK: - Helpers

    private func make(_ language: String) throws -> LiveBundle {
        var options = LiveBundle.Options()
        options.socketPath = daemon.socket
        options.environment = ["LANG": "\(language).UTF-8", "LANGUAGE": language, "XDG_CONFIG_HOME": config]
        return try LiveBundle(path: app, options: options)
    }

    private func generation() throws -> (number: UInt64, hash: String) {
        let list = try daemon.connect().send(List())
        let bundle = try XCTUnwrap(list.bundles.first { $0.path == app })
        return (try XCTUnwrap(bundle.generation), try XCTUnwrap(bundle.hash))
    }

    private func lprojctl(_ arguments: [String], socket: Bool = true) throws -> (status: Int32, output: String) {
        let output = daemon.directory + "/lprojctl-output"
        let status = try runToEnd(binaryDirectory().appendingPathComponent("lprojctl").path, arguments + (socket ? ["--socket", daemon.socket] : []),
                                  output: output)
        return (status, try String(contentsOfFile: output, encoding: .utf8))
    }
}

private final class ChangeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [LiveBundle.Change] = []
    var changes: [LiveBundle.Change] { lock.withLock { recorded } }
    func append(_ change: LiveBundle.Change) { lock.withLock { recorded.append(change) } }
}
