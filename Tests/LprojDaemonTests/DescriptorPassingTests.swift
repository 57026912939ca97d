import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import XCTest

/// Image descriptors in flight are budgeted (`DescriptorBudget`): clients
/// that pipeline `images` requests and never read cannot spend the
/// kernel's limit for a daemon that is not root (ETOOMANYREFS), which once
/// closed every other client's `images` connection and dropped image
/// subscribers at the next save.
final class DescriptorPassingTests: XCTestCase {
    func testClientsThatNeverReadTheirImagesCannotStarveOthers() throws {
        try requirement(getuid() == 0, "a daemon that is not root needs setpriv")
        let daemon = try DaemonProcess(config: "[Socket]\nMode=0666\n")
        for index in 0..<50 { try daemon.write("App/en.lproj/T\(index).strings", "\"k\" = \"v\(index)\";\n") }
        chmod(daemon.directory, 0o755)
        try daemon.shell("chown -R 65534:65534 \(daemon.directory)")
        daemon.binary = daemon.directory + "/lprojd"
        try FileManager.default.copyItem(atPath: binaryDirectory().appendingPathComponent("lprojd").path, toPath: daemon.binary!)
        // The kernel then lets the daemon have 512 descriptors in flight.
        daemon.wrapper = ["/usr/bin/prlimit", "--nofile=512:512", "/usr/bin/setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]
        try daemon.start()
        let bundle = daemon.root + "/App"
        let subscriber = try daemon.connect()
        _ = try subscriber.send(Subscribe(name: "s", bundle: bundle, tables: ["T0"], images: true))

        // Another user's four connections each pipeline 40 requests for 50 images (8,000 descriptors) and read nothing.
        let hoarders = try Hoarders(uid: 1234, socket: daemon.socket, bundle: bundle)
        XCTAssertEqual(try hoarders.lines(1), ["sent"])
        let tool = try daemon.connect()
        let deadline = ContinuousClock.now + .seconds(20)
        // Each try is a round trip (requests are answered in order), never a sleep.
        while try tool.send(Status()).counters["images-requests", default: 0] < 160
                || tool.send(Status()).counters["images-withheld", default: 0] < 4 * 40 - 4 {
            guard ContinuousClock.now < deadline else { throw DaemonTestError("the hoarders' requests were not all answered: \(try tool.send(Status()).counters)") }
        }

        // Another user's client still gets its images, again and again (it reads them).
        for _ in 0..<3 {
            let reply = try tool.images(Images(bundle: bundle))
            XCTAssertEqual(reply.tables.count, 50)
            XCTAssertEqual(try reply.tables.first { $0.image.table == "T7" }?.table.get()["k"]?.text, "v7")
        }
        // The image subscriber is not dropped at a save: its event comes with the table's image.
        try daemon.write("App/en.lproj/T0.strings", "\"k\" = \"saved\";\n")
        let event = try subscriber.awaitEvent(TableChanged.name)
        XCTAssertEqual(try event.decode(TableChanged.self).image, true)
        XCTAssertEqual(try subscriber.takeImage(of: event)?.get()["k"]?.text, "saved")

        // The hoarders are told why and stay connected; together they held at most their user's share
        // (a quarter of the kernel's 512, at least one reply's worth: 200). Once one has read, it gets images again.
        hoarders.proceed()
        let replies = try hoarders.lines(161)
        let refused = replies.filter { $0.contains("\"ok\":false") }
        XCTAssertTrue(refused.allSatisfy { $0.contains("images withheld") && $0.contains("read, then ask again") }, "\(refused)")
        XCTAssertTrue(refused.contains { $0.contains("connections of uid 1234 hold") }, "\(refused)")
        XCTAssertEqual(replies.count - refused.count - 1, 4, "\(replies.filter { !$0.contains("\"ok\":false") })")
        XCTAssertEqual(replies.last, "again: 50 descriptors")
        XCTAssertEqual(try tool.send(Status()).counters["images-withheld"], 4 * 40 - 4)
        hoarders.finish()
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }
}

/// Four connections of another user (`setpriv`) that each pipeline 40
/// `images` requests and read nothing until told (`proceed`); then they
/// report each reply line as `N: line`, and the first asks once more and
/// reports how many descriptors came (`again: N descriptors`).
private final class Hoarders {
    private let script: UserScript

    private static let script = #"""
    import socket, sys
    path, bundle = sys.argv[1], sys.argv[2]
    connections = []
    for index in range(4):
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        s.sendall(b"".join(b'{"id":%d,"op":"images","bundle":"%s"}\n' % (n, bundle.encode()) for n in range(1, 41)))
        connections.append(s)
    print("sent", flush=True)
    sys.stdin.readline()
    for index, s in enumerate(connections):
        data = b""
        while data.count(b"\n") < 40:
            more = s.recv(65536)  # descriptors that came are closed (no room for them)
            if not more:
                sys.exit(f"{index}: closed")
            data += more
        for line in data.split(b"\n")[:40]:
            print(f"{index}: {line.decode()}", flush=True)
    first = connections[0]
    first.sendall(b'{"id":41,"op":"images","bundle":"%s"}\n' % bundle.encode())
    _, descriptors, _, _ = socket.recv_fds(first, 65536, 256)
    print(f"again: {len(descriptors)} descriptors", flush=True)
    sys.stdin.readline()
    """#

    init(uid: UInt32, socket: String, bundle: String) throws {
        script = try UserScript(uid: uid, Self.script, arguments: [socket, bundle])
    }

    /// Lets the connections read.
    func proceed() {
        script.send("")
    }

    /// The next `count` lines it reports.
    func lines(_ count: Int) throws -> [String] {
        try script.lines(count)
    }

    /// Closes its connections and waits for it to end.
    func finish() {
        script.finish()
    }
}
