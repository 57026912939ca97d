import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import XCTest

/// What an attacker who can write a table or connect to the socket tried,
/// against the built daemon: a binary-plist reference bomb, running out of
/// file descriptors, unbounded subscription filters, one user filling every
/// slot, connections that never send a request, 20,000 apps selecting a
/// language. Each once took the service down; each now gets a bounded,
/// named refusal while everyone else is served.
final class HostileInputTests: XCTestCase {
    private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/hostile").path

    func testAReferenceBombNeitherStopsTheStartNorReplacesAGoodTable() throws {
        let daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"good\";\n")
        try daemon.write("App/de.lproj/Localizable.strings", "\"k\" = \"gut\";\n")
        try FileManager.default.copyItem(atPath: fixtures + "/reference-bomb.strings", toPath: daemon.path("App/en.lproj/Bomb.strings"))
        try daemon.start()   // once, the daemon never listened with this file present
        let connection = try daemon.subscriber()
        XCTAssertTrue(daemon.log.contains("Bomb.strings:1:1: error: the binary property list decodes into more than 1000000 objects"),
                      daemon.log)
        // A good table replaced by the bomb keeps its last good version, and says why.
        try FileManager.default.removeItem(atPath: daemon.path("App/de.lproj/Localizable.strings"))
        try FileManager.default.copyItem(atPath: fixtures + "/reference-bomb.strings", toPath: daemon.path("App/de.lproj/Localizable.strings"))
        let invalid = try connection.awaitEvent(TableInvalid.name).decode(TableInvalid.self)
        XCTAssertEqual(invalid.kept, .lastGood)
        XCTAssertTrue(invalid.diagnostics.first?.message.contains("referenced many times over") == true, "\(invalid.diagnostics)")
        let lookup = try connection.send(Lookup(bundle: daemon.root + "/App", key: "k", languages: ["de"]))
        XCTAssertEqual(lookup.text, "gut")
        // MaxTableObjects= is the daemon's bound: a reload with a tighter one refuses a table it took.
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    func testOutOfFileDescriptorsClientsAreToldBusyAndTheLogSaysSoOnce() throws {
        let daemon = try DaemonProcess(config: "[Limits]\nMaxClients=1000\n")
        daemon.wrapper = ["/usr/bin/prlimit", "--nofile=64:64", "--"]
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"v\";\n")
        try daemon.start()
        XCTAssertTrue(daemon.log.contains("[Limits] MaxClients: 1000 clients (+4 reserved) and 1024 SharedImages need about 2156 file descriptors, but this process "
                                          + "may open 64"), daemon.log)
        var connections: [DaemonConnection] = []
        var busy = 0
        for _ in 0..<120 {
            let connection = try daemon.connect()
            do {
                _ = try connection.send(Status(), timeout: .seconds(10))
                connections.append(connection)
            } catch DaemonConnection.Failure.refused(let refusal) {
                XCTAssertEqual(refusal.code, .busy)
                XCTAssertTrue(refusal.message.contains("out of file descriptors"), refusal.message)
                busy += 1
            }
        }
        XCTAssertGreaterThan(connections.count, 20, "clients up to the limit are served")
        XCTAssertGreaterThan(busy, 50, "the rest hear busy, none hangs")
        XCTAssertEqual(connections.count + busy, 120)
        let status = try connections[0].send(Status())
        XCTAssertTrue(status.warnings?.contains { $0.hasPrefix("out of file descriptors") } == true, "\(status.warnings ?? [])")
        XCTAssertEqual(daemon.log.components(separatedBy: "out of file descriptors").count - 1, 1, "said once: \(daemon.log.suffix(2000))")
        XCTAssertLessThan(daemon.log.utf8.count, 20_000, "no line per refused accept")
        // Descriptors come back: connections are accepted again, and the log says so.
        connections.removeLast(10)
        let again = try daemon.connect()
        XCTAssertEqual(try again.send(Status()).pid, status.pid)
        XCTAssertTrue(daemon.log.contains("file descriptors are available again: connections are accepted"), daemon.log)
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    func testSubscriptionFiltersAreBoundedInNamesSizeCountAndMemory() throws {
        let daemon = try DaemonProcess(config: "[Limits]\nMaxFilterNames=100\nMaxSubscriptions=8\nClientQueueBytes=64K\n")
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"v\";\n")
        try daemon.start()
        let connection = try daemon.connect()
        _ = try connection.send(Hello(client: "tests"))
        func refusal<R: Request>(_ request: R) -> ProtocolError? { refusalOf(request, on: connection) }
        let many = (0..<101).map { "l\($0)" }
        for (request, field) in [(refusal(Subscribe(name: "a", languages: many)), "languages"), (refusal(Subscribe(name: "b", tables: many)), "tables"),
                                 (refusal(Snapshot(languages: many)), "languages"),
                                 (refusal(Lookup(bundle: daemon.root + "/App", key: "k", languages: many)), "languages")] {
            XCTAssertEqual(request?.code, .limit)
            XCTAssertEqual(request?.field, field)
            XCTAssertTrue(request?.message.contains("at most 100 ([Limits] MaxFilterNames)") == true, "\(String(describing: request))")
        }
        let long = refusal(Subscribe(name: "c", languages: [String(repeating: "x", count: 256)]))
        XCTAssertEqual(long?.code, .invalidField)
        XCTAssertEqual(long?.field, "languages[0]")
        XCTAssertEqual(refusal(Subscribe(name: String(repeating: "n", count: 300)))?.field, "name")
        // Half of the 64 KiB budget: 100 names of 200 bytes (~25 KiB a subscription) fit once.
        let big = (0..<100).map { String(repeating: "x", count: 190) + "\($0)" }
        XCTAssertNil(refusal(Subscribe(name: "big1", languages: big)))
        let over = refusal(Subscribe(name: "big2", languages: big))
        XCTAssertEqual(over?.code, .limit)
        XCTAssertTrue(over?.message.contains("half its 65536-byte budget") == true, "\(String(describing: over))")
        for index in 0..<7 { XCTAssertNil(refusal(Subscribe(name: "s\(index)", tables: ["Localizable"])), "\(index)") }
        let ninth = refusal(Subscribe(name: "s9"))
        XCTAssertEqual(ninth?.code, .limit)
        XCTAssertTrue(ninth?.message.contains("at most 8 subscriptions per connection") == true, "\(String(describing: ninth))")
        // The connection is unharmed, and its subscriptions still hear events.
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"w\";\n")
        XCTAssertEqual(try connection.awaitEvent(TableChanged.name).decode(TableChanged.self).changed["k"]?.text, "w")
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    func testTheDaemonsMemoryStaysBoundedUnderMaximalFiltersAtTheDefaults() throws {
        let daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"v\";\n")
        try daemon.start()
        let before = try daemon.residentBytes()
        // Two connections, each trying 64 subscriptions of 1,024 names of 255 bytes (16 MiB each, unbounded).
        let names = (0..<1024).map { String(repeating: "l", count: 250) + String($0) }
        var accepted = 0
        var connections: [DaemonConnection] = []
        for _ in 0..<2 {
            let connection = try daemon.connect()
            _ = try connection.send(Hello(client: "tests"))
            for index in 0..<64 {
                if let refusal = refusalOf(Subscribe(name: "s\(index)", languages: names), on: connection) {
                    XCTAssertEqual(refusal.code, .limit)
                } else {
                    accepted += 1
                }
            }
            connections.append(connection)
        }
        XCTAssertLessThan(accepted, 64, "each connection's subscriptions stop at half of ClientQueueBytes")
        let grown = try daemon.residentBytes() - before
        XCTAssertLessThan(grown, 64 << 20, "the daemon grew by \(grown >> 20) MiB")
        XCTAssertEqual(try connections[0].send(Status()).clients.count, 2)
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    func testOneUserCannotLockEveryoneOut() throws {
        let daemon = try daemonOpenToOtherUsers(limits: "MaxClients=20\nMaxClientsPerUser=10\nReservedClients=2\n")
        // nobody holds 15 idle connections: 10 are kept, 5 hear of the per-user cap.
        let nobody = try UserConnections(uid: 65534, socket: daemon.socket, count: 15, mode: "idle")
        let nobodyRefusals = try nobody.lines(10)   // the reason, then the close, for each
        XCTAssertEqual(nobodyRefusals.filter { $0.hasSuffix(": closed") }.count, 5, "\(nobodyRefusals)")
        XCTAssertEqual(nobodyRefusals.filter { $0.contains("\"busy\"") && $0.contains("user 65534 has its maximum of 10 connections") }.count,
                       5, "\(nobodyRefusals)")
        // Another user gets the other 10 of MaxClients; its next ones are busy.
        let other = try UserConnections(uid: 4321, socket: daemon.socket, count: 12, mode: "half")
        let otherRefusals = try other.lines(4)
        XCTAssertEqual(otherRefusals.filter { $0.contains("maximum of 20 clients") }.count, 2, "\(otherRefusals)")
        // Every ordinary slot is taken: root still gets `status`, from the reserved ones.
        let root = try daemon.connect()
        let status = try root.send(Status())
        XCTAssertEqual(status.clients.count, 21)
        XCTAssertEqual(status.counters["connections-refused"], 7)
        nobody.finish()
        other.finish()
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    func testConnectionsThatSendNoCompleteRequestAreClosedAtTheirDeadline() throws {
        let daemon = try daemonOpenToOtherUsers(limits: "FirstRequestTimeout=300ms\n")
        // A client that said hello first is never closed by the deadline.
        let talker = try daemon.subscriber()
        let idle = try UserConnections(uid: 65534, socket: daemon.socket, count: 5, mode: "idle")
        let half = try UserConnections(uid: 65534, socket: daemon.socket, count: 5, mode: "half")
        for group in [idle, half] {
            let lines = try group.lines(10)   // the reason, then the close, for each
            XCTAssertEqual(lines.filter { $0.contains("\"limit\"") && $0.contains("no complete request within 300 ms") }.count, 5, "\(lines)")
            XCTAssertEqual(lines.filter { $0.hasSuffix(": closed") }.count, 5, "\(lines)")
        }
        let status = try talker.send(Status())
        XCTAssertEqual(status.clients.count, 1)
        XCTAssertEqual(status.counters["connections-timed-out"], 10)
        idle.finish()
        half.finish()
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    /// A started daemon whose socket any user may open, with these `[Limits]` (connecting as other users needs root: setpriv).
    private func daemonOpenToOtherUsers(limits: String) throws -> DaemonProcess {
        try requirement(getuid() == 0, "connecting as other users needs root (setpriv)")
        let daemon = try DaemonProcess(config: "[Socket]\nMode=0666\n\n[Limits]\n" + limits)
        chmod(daemon.directory, 0o755)
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"v\";\n")
        try daemon.start()
        return daemon
    }

    func testABindMountInsideARootIsServedAfterAReload() throws {
        try requirement(getuid() == 0, "a bind mount needs root")
        let daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"v\";\n")
        let elsewhere = daemon.directory + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere + "/Mounted/de.lproj", withIntermediateDirectories: true)
        try Data("\"k\" = \"gemountet\";\n".utf8).write(to: URL(fileURLWithPath: elsewhere + "/Mounted/de.lproj/Localizable.strings"))
        try FileManager.default.createDirectory(atPath: daemon.path("Mount"), withIntermediateDirectories: true)
        try daemon.start()
        let connection = try daemon.subscriber()
        try daemon.shell("mount --bind \(elsewhere) Mount")
        defer { _ = try? daemon.shell("umount Mount") }
        _ = try connection.send(Sync())
        XCTAssertEqual(try connection.send(Snapshot()).tables.map(\.bundle), [daemon.root + "/App"], "inotify says nothing of a mount")
        daemon.signal(SIGHUP)
        try daemon.awaitNotification("READY=1")
        let added = try connection.awaitEvent(TableChanged.name).decode(TableChanged.self)
        XCTAssertEqual(added.bundle, daemon.root + "/Mount/Mounted")
        XCTAssertEqual(added.added["k"]?.text, "gemountet")
        // And an edit under it arrives: it is watched now.
        try Data("\"k\" = \"neu\";\n".utf8).write(to: URL(fileURLWithPath: elsewhere + "/Mounted/de.lproj/Localizable.strings"))
        XCTAssertEqual(try connection.awaitEvent(TableChanged.name).decode(TableChanged.self).changed["k"]?.text, "neu")
        try daemon.shell("umount Mount")
        daemon.signal(SIGHUP)
        try daemon.awaitNotification("READY=1")
        _ = try connection.send(Sync())
        XCTAssertEqual(try connection.send(Snapshot()).tables.map(\.bundle), [daemon.root + "/App"], "unmounted: gone after a reload")
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    func testRememberedAppsAreBoundedTheLeastRecentlyUsedForgotten() throws {
        let daemon = try DaemonProcess(config: "[State]\nMaxApps=5\n")
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"v\";\n")
        try daemon.start()
        let connection = try daemon.connect()
        _ = try connection.send(Hello(client: "tests"))
        for index in 0..<5 { _ = try connection.send(SelectLanguage(app: "com.example.app\(index)", language: "fr")) }
        // app0 is used (its hello) and so outlives app1, the least recently used, when a sixth app selects.
        _ = try daemon.connect().send(Hello(client: "app0", app: "com.example.app0"))
        _ = try connection.send(SelectLanguage(app: "com.example.app5", language: "de"))
        let files = try FileManager.default.contentsOfDirectory(atPath: daemon.state + "/languages").filter { !$0.hasPrefix(".") }.sorted()
        XCTAssertEqual(files, ["com.example.app0", "com.example.app2", "com.example.app3", "com.example.app4", "com.example.app5"])
        XCTAssertEqual(try daemon.connect().send(Hello(client: "app1", app: "com.example.app1")).language, nil, "app1 forgotten")
        // Many more apps than the bound leave the bound on disk.
        for index in 0..<200 { _ = try connection.send(SelectLanguage(app: "com.example.flood\(index)", language: "ja")) }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: daemon.state + "/languages").filter { !$0.hasPrefix(".") }.count, 5)
        // A restart with a lower bound forgets the oldest at once.
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
        try daemon.rewriteConfig("[State]\nMaxApps=2\n")
        try daemon.start()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: daemon.state + "/languages").filter { !$0.hasPrefix(".") }.sorted(),
                       ["com.example.flood198", "com.example.flood199"])
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    func testSpecialFilesAndUnreadableDirectoriesAreSaidOnceAtStartAndLater() throws {
        try requirement(getuid() == 0, "an unreadable directory needs a daemon that is not root (setpriv)")
        let daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"v\";\n")
        XCTAssertEqual(mkfifo(daemon.path("App/en.lproj/Start.strings"), 0o644), 0)
        try FileManager.default.createDirectory(atPath: daemon.path("Locked/en.lproj"), withIntermediateDirectories: true)
        chmod(daemon.directory, 0o755)
        try daemon.shell("chown -R 65534:65534 \(daemon.directory) && chmod 000 Locked")
        daemon.binary = daemon.directory + "/lprojd"
        try FileManager.default.copyItem(atPath: binaryDirectory().appendingPathComponent("lprojd").path, toPath: daemon.binary!)
        daemon.wrapper = ["/usr/bin/setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]
        try daemon.start()
        let connection = try daemon.subscriber()
        XCTAssertTrue(daemon.log.contains("App/en.lproj/Start.strings: a FIFO, not a regular file: not read"), daemon.log)
        XCTAssertTrue(daemon.log.contains("/Locked: directory skipped: permission denied"), daemon.log)
        // Later: a FIFO made in place, one moved over a table, a directory made unreadable.
        XCTAssertEqual(mkfifo(daemon.path("App/en.lproj/Later.strings"), 0o644), 0)
        XCTAssertEqual(mkfifo(daemon.path("App/en.lproj/Moved.tmp"), 0o644), 0)
        XCTAssertEqual(rename(daemon.path("App/en.lproj/Moved.tmp"), daemon.path("App/en.lproj/Localizable.strings")), 0)
        try daemon.shell("mkdir -m 000 Locked2")
        let removed = try connection.awaitEvent(TableChanged.name).decode(TableChanged.self)
        XCTAssertEqual(removed.deleted, true, "a table replaced by a FIFO is gone, not read")
        _ = try connection.send(Sync())
        for said in ["Later.strings: a FIFO", "Localizable.strings: a FIFO", "/Locked2: directory skipped: permission denied"] {
            XCTAssertEqual(daemon.log.components(separatedBy: said).count - 1, 1, "\(said) said once: \(daemon.log)")
        }
        XCTAssertFalse(daemon.log.contains("error(s)"), "no table-invalid for a special file: \(daemon.log)")
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }
}

/// The error a request got, or nil when it was answered (anything else fails the test).
func refusalOf<R: Request>(_ request: R, on connection: DaemonConnection, file: StaticString = #filePath, line: UInt = #line) -> ProtocolError? {
    do {
        _ = try connection.send(request)
        return nil
    } catch {
        guard case .refused(let refusal) = error else {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
        return refusal
    }
}
