import Foundation
import LprojProtocol
import LprojTables
import XCTest
@testable import LprojDaemon

/// The rules behind the daemon's limits, in one process: who gets a
/// connection (`Admission`), what a request may hold (`FilterLimits`), how
/// numbers are read (`ValueRange`) and how many apps are remembered
/// (`Selections`).
final class LimitRuleTests: XCTestCase {
    func testAdmissionCapsEachUserAndKeepsReservedSlotsForRootAndItsOwnUser() {
        var configuration = Configuration()
        configuration.limits.maximumClients = 5
        configuration.limits.maximumClientsPerUser = 3
        configuration.limits.reservedClients = 2
        var admission = Admission(configuration, ownUser: 999)
        for _ in 0..<3 {
            XCTAssertNil(admission.refusal(for: 1000))
            admission.admit(1000)
        }
        XCTAssertEqual(admission.refusal(for: 1000)?.code, .busy, "the per-user cap")
        XCTAssertTrue(admission.refusal(for: 1000)?.message.contains("MaxClientsPerUser") == true)
        for _ in 0..<2 { admission.admit(1001) }
        XCTAssertTrue(admission.refusal(for: 1002)?.message.contains("MaxClients)") == true, "every ordinary slot taken")
        XCTAssertNil(admission.refusal(for: 0), "root takes a reserved slot")
        admission.admit(0)
        XCTAssertNil(admission.refusal(for: 999), "so does the daemon's own user")
        admission.admit(999)
        XCTAssertTrue(admission.refusal(for: 0)?.message.contains("reserved") == true, "and no more")
        admission.release(1000)
        admission.release(0)
        admission.release(999)
        XCTAssertNil(admission.refusal(for: 1000), "a slot freed is a slot again")
        configuration.limits.maximumClientsPerUser = 2
        admission.apply(configuration)
        XCTAssertNotNil(admission.refusal(for: 1000), "a reload's tighter cap holds for connections held")
    }

    func testFilterLimitsNameTheFieldAndCountSubscriptionsAgainstTheBudget() {
        var configuration = Configuration()
        configuration.limits.maximumFilterNames = 3
        configuration.limits.maximumSubscriptions = 2
        let limits = FilterLimits(configuration)
        XCTAssertNil(limits.problem(with: nil, field: "languages"))
        XCTAssertNil(limits.problem(with: ["a", "b", "c"], field: "languages"))
        XCTAssertEqual(limits.problem(with: ["a", "b", "c", "d"], field: "tables")?.field, "tables")
        XCTAssertEqual(limits.problem(with: ["a", "b", "c", "d"], field: "tables")?.code, .limit)
        XCTAssertEqual(limits.problem(with: ["a", String(repeating: "x", count: 256)], field: "languages")?.field, "languages[1]")
        XCTAssertEqual(limits.problem(with: ["a\u{0}b"], field: "languages")?.code, .invalidField)
        let session = Session(id: 1, queueLimit: 8192)
        let small = Subscription(name: "s", bundle: nil, localizations: ["en"], tables: nil)
        XCTAssertNil(limits.problem(adding: small, to: session))
        session.subscriptions["s"] = small
        XCTAssertEqual(session.subscriptionBytes, small.footprint)
        let big = Subscription(name: "b", bundle: nil, localizations: (0..<40).map { String(repeating: "x", count: 60) + "\($0)" }, tables: nil)
        XCTAssertTrue(limits.problem(adding: big, to: session)?.message.contains("half its 8192-byte budget") == true)
        session.subscriptions["t"] = small
        XCTAssertTrue(limits.problem(adding: small, to: session)?.message.contains("at most 2 subscriptions") == true)
        // What subscriptions hold counts toward a full queue.
        XCTAssertFalse(session.isFull)
        session.enqueue([UInt8](repeating: 0x20, count: 8192 - session.subscriptionBytes))
        XCTAssertTrue(session.isFull)
    }

    func testDescriptorsInFlightAreBudgetedPerConnectionPerUserAndInAll() {
        let budget = DescriptorBudget(limit: 1000)
        XCTAssertEqual(budget.perUser, 250)
        XCTAssertNil(budget.refusal(toSend: 200, unread: 0, user: 7))
        XCTAssertTrue(budget.refusal(toSend: 1, unread: 200, user: 7)?.contains("200 descriptors sent to this connection are not read yet") == true)
        budget.sent(200, to: 7)
        XCTAssertTrue(budget.refusal(toSend: 51, unread: 0, user: 7)?.contains("connections of uid 7 hold 200") == true, "the user's quarter")
        XCTAssertNil(budget.refusal(toSend: 50, unread: 0, user: 7))
        for user: UInt32 in 8...10 { budget.sent(200, to: user) }
        XCTAssertTrue(budget.refusal(toSend: 100, unread: 0, user: 11)?.contains("800 descriptors are in flight") == true, "all but an eighth")
        XCTAssertNil(budget.refusal(toSend: 75, unread: 0, user: 11))
        budget.settled(200, of: 7)
        XCTAssertEqual(budget.inFlight, 600)
        XCTAssertNil(budget.refusal(toSend: 200, unread: 0, user: 7))
        budget.settled(5000, of: 8)
        XCTAssertEqual(budget.inFlight, 400, "never below what was sent")
    }

    func testAWithheldLineGoesWithoutItsImagesAndTheLinesAfterItAreKept() {
        let session = Session(id: 1, queueLimit: 1 << 20)
        session.subscriptions["s"] = Subscription(name: "s", bundle: nil, localizations: nil, tables: nil, images: true)
        let image = AttachedImage(address: TableAddress(bundle: "/b", localization: "en", table: "T"), table: Table(strings: ["k": "v"]))
        session.enqueue(Array(#"{"id":1,"images":[{"table":"T"}],"ok":true}"#.utf8) + [0x0A], attaching: [image]) { reason in
            Array(#"{"id":1,"ok":false,"reason":"\#(reason)"}"#.utf8) + [0x0A]
        }
        var addressed = AddressedLines(body: Array(#"{"event":"table-changed","x":1}"#.utf8) + [0x0A])
        _ = session.enqueueEvent(about: .everyone, &addressed) {
            (Array(#"{"event":"table-changed","image":true,"x":1}"#.utf8) + [0x0A], [image])
        }
        session.enqueue(Array("{\"id\":2}\n".utf8))
        var lines: [String] = []
        var attached: [Int] = []
        while session.queuedBytes > 0 {
            var images = 0
            session.write { bytes, withImages in
                if !withImages.isEmpty { images = withImages.count }
                guard withImages.isEmpty else { return 0 }
                lines.append(String(decoding: bytes, as: UTF8.self))
                return bytes.count
            }
            if images > 0 {
                attached.append(images)
                session.withholdImages(because: "no room")
            }
        }
        XCTAssertEqual(attached, [1, 1])
        XCTAssertEqual(lines.joined(), #"{"id":1,"ok":false,"reason":"no room"}"# + "\n" + #"{"sub":"s","event":"table-changed","x":1}"# + "\n{\"id\":2}\n")
    }

    func testNumbersAreReadWithTheirUnitAndNeverOverflow() {
        let grace = ValueRange.of("RemovalGrace")
        XCTAssertEqual(grace.parse("250ms"), 250)
        XCTAssertEqual(grace.parse("2s"), 2000)
        XCTAssertEqual(grace.parse("0"), 0)
        XCTAssertNil(grace.parse("9223372036854776s"), "milliseconds past 64 bits")
        XCTAssertNil(grace.parse("99999999999999999999ms"))
        XCTAssertNil(grace.parse("-1s"))
        XCTAssertNil(grace.parse("1.5s"))
        XCTAssertNil(grace.parse("s"))
        XCTAssertEqual(grace.description, "from 0 to 60s")
        let bytes = ValueRange.of("MaxTableBytes")
        XCTAssertEqual(bytes.parse("16M"), 16 << 20)
        XCTAssertEqual(bytes.parse("512k"), 512 << 10)
        XCTAssertEqual(bytes.parse("4096"), 4096)
        XCTAssertNil(bytes.parse("9999999999999G"))
        XCTAssertNil(bytes.parse("0x10"))
        XCTAssertEqual(bytes.description, "from 1 to 1G")
        XCTAssertEqual(ValueRange.of("MaxClients").parse("+5"), nil, "digits only")
        XCTAssertEqual(ValueRange.of("FirstRequestTimeout").description, "from 100ms to 3600s")
        for (key, range) in ValueRange.keys {
            XCTAssertLessThanOrEqual(range.minimum, range.maximum, key)
            XCTAssertTrue(range.contains(range.minimum) && range.contains(range.maximum) && !range.contains(range.maximum + 1), key)
        }
    }

    func testSelectionsForgetTheAppUnusedLongest() throws {
        let directory = NSTemporaryDirectory() + "lprojd-selections-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var selections = try Selections(stateDirectory: directory, maximumApps: 3)
        for app in ["a", "b", "c"] { try selections.select("fr", for: app) }
        selections.use("a")
        try selections.select("de", for: "d")
        XCTAssertEqual(Set(selections.languages.keys), ["a", "c", "d"], "b was used least recently")
        try selections.select(nil, for: "c")
        try selections.select("ja", for: "e")
        XCTAssertEqual(Set(selections.languages.keys), ["a", "d", "e"], "a cleared selection frees its place")
        let again = try Selections(stateDirectory: directory, maximumApps: 1)
        XCTAssertEqual(Array(again.languages.keys), ["e"], "a lower bound at start keeps the newest")
    }
}
