import Foundation
@testable import LprojDaemon
import XCTest

/// The list of what is published, kept for the next start: read back as
/// written, bounded, and written at most once an interval — at once when
/// the daemon stops.
final class PublishedAddressesTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "published-addresses-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func testAddressesAreReadBackAsWrittenUpToTheLimit() throws {
        let addresses = (0..<5).map { TableAddress(bundle: "/srv/Caf\u{E9}/App", localization: "fr", table: "T\($0)") }
            + [TableAddress(bundle: "/srv/Cafe\u{301}/App", localization: "fr", table: "T0")]
        let kept = PublishedAddresses(stateDirectory: directory, limit: 100)
        XCTAssertEqual(try kept.load(), [], "no file: nothing")
        kept.noteChanged(at: .now)
        try kept.writeIfDue(addresses, now: nil)
        XCTAssertEqual(Set(try kept.load()), Set(addresses), "NFC and NFD bundles stay two")
        XCTAssertEqual(try PublishedAddresses(stateDirectory: directory, limit: 2).load().count, 2)
        XCTAssertEqual(try PublishedAddresses(stateDirectory: nil, limit: 2).load(), [], "no state directory: nothing kept")
    }

    func testAChangeIsWrittenAtOnceThenAtMostOnceAnInterval() throws {
        let kept = PublishedAddresses(stateDirectory: directory, limit: 100)
        let start = ContinuousClock.now
        XCTAssertNil(kept.deadline, "nothing to write")
        kept.noteChanged(at: start)
        XCTAssertEqual(kept.deadline, start, "the first change is due at once")
        try kept.writeIfDue([address("A")], now: start)
        XCTAssertNil(kept.deadline)
        kept.noteChanged(at: start + .milliseconds(10))
        XCTAssertEqual(kept.deadline, start + PublishedAddresses.interval)
        try kept.writeIfDue([address("A"), address("B")], now: start + .milliseconds(500))
        XCTAssertEqual(try kept.load(), [address("A")], "not due yet: not written")
        try kept.writeIfDue([address("A"), address("B")], now: start + PublishedAddresses.interval)
        XCTAssertEqual(try kept.load().count, 2)
        // Stopping writes what is pending whatever the time.
        kept.noteChanged(at: start + PublishedAddresses.interval + .milliseconds(1))
        try kept.writeIfDue([address("C")], now: nil)
        XCTAssertEqual(try kept.load(), [address("C")])
        try kept.writeIfDue([address("D")], now: nil)
        XCTAssertEqual(try kept.load(), [address("C")], "nothing pending: nothing written")
    }

    func testAFileThatIsNotTheListIsNamed() throws {
        let kept = PublishedAddresses(stateDirectory: directory, limit: 1)
        let file = directory + "/published-images"
        for (bytes, problem) in [("[[\"/App\", \"fr\"", "not a list of [bundle, localization, table]"),
                                 ("{\"bundle\": \"/App\"}", "not a list of [bundle, localization, table]"),
                                 (String(repeating: " ", count: 3 * 4096 * 6 + 1), "more than a list of 1 addresses takes")] {
            try Data(bytes.utf8).write(to: URL(fileURLWithPath: file))
            XCTAssertThrowsError(try kept.load()) { error in
                XCTAssertTrue("\(error)".hasPrefix(file + ": "), "\(error)")
                XCTAssertTrue("\(error)".contains(problem), "\(error)")
            }
        }
        unlink(file)
        XCTAssertEqual(mkfifo(file, 0o600), 0)
        XCTAssertThrowsError(try kept.load()) { XCTAssertTrue("\($0)".contains("not a regular file"), "\($0)") }
    }

    private func address(_ table: String) -> TableAddress {
        TableAddress(bundle: "/srv/App", localization: "fr", table: table)
    }
}
