import CLinux
import Foundation
import LprojProtocol
import LprojTables
import XCTest
@testable import LprojDaemon

/// An event for a session whose queue is empty is written at once
/// (`Session.writeNow`), and only what the socket did not take is queued:
/// what the client receives is exactly what queueing everything would
/// have sent, in order.
final class DirectWriteTests: XCTestCase {
    private func publisher(queueLimit: Int = 1 << 20) -> Publisher {
        Publisher(instance: "abc", historyLength: 100, historyBytes: 1 << 20, queueLimit: queueLimit)
    }

    private func changed(_ key: String, _ value: String) -> ServedTables.Change {
        .tableChanged(TableAddress(bundle: "/r/B", localization: "en", table: "Localizable"),
                      TableDiff(from: Table(), to: Table(strings: [key: value])), deleted: false)
    }

    private func queued(_ session: Session) -> [UInt8] {
        var bytes: [UInt8] = []
        session.write { buffer in
            bytes = Array(buffer)
            return buffer.count
        }
        return bytes
    }

    /// A socket that takes at most `room` bytes in all, recording them and its calls.
    private final class FakeSocket {
        var room: Int
        var taken: [UInt8] = []
        var calls = 0
        /// Where each write's bytes were.
        var addresses: [UnsafeRawPointer?] = []

        init(room: Int) { self.room = room }

        func write(_ bytes: UnsafeRawBufferPointer) -> Int {
            calls += 1
            addresses.append(bytes.baseAddress.map(UnsafeRawPointer.init))
            let count = min(room, bytes.count)
            taken += bytes.prefix(count)
            room -= count
            return count
        }
    }

    func testOnlyWhatTheSocketDidNotTakeIsQueuedAndTheClientGetsTheSameBytes() {
        let publisher = publisher()
        // Rooms: everything, nothing, part of the first prefix, into the first body, into the second event.
        let rooms = [Int.max, 0, 5, 20, 400]
        var sockets: [FakeSocket] = []
        var sessions: [Session] = []
        for room in rooms {
            let session = publisher.openSession()
            session.subscriptions["s"] = Subscription(name: "s", bundle: nil, localizations: nil, tables: nil)
            let socket = FakeSocket(room: room)
            session.writeNow = { socket.write($0) }
            sockets.append(socket)
            sessions.append(session)
        }
        let queuedOnly = publisher.openSession()
        queuedOnly.subscriptions["s"] = Subscription(name: "s", bundle: nil, localizations: nil, tables: nil)
        publisher.publish([changed("k1", String(repeating: "v", count: 300)), changed("k2", "second")])
        let expected = queued(queuedOnly)
        XCTAssertEqual(expected.split(separator: 0x0A).count, 2)
        let firstLine = expected.firstIndex(of: 0x0A)! + 1
        var touched = publisher.takeTouched()
        XCTAssertTrue(touched.remove(queuedOnly.id) != nil)
        for (index, (session, socket)) in zip(sessions, sockets).enumerated() {
            let received = socket.taken + queued(session)
            XCTAssertEqual(String(decoding: received, as: UTF8.self), String(decoding: expected, as: UTF8.self), "room \(rooms[index])")
            // Once something is queued, later events queue behind it: the socket is not asked again.
            XCTAssertEqual(socket.calls, rooms[index] >= firstLine ? 2 : 1, "room \(rooms[index])")
            XCTAssertEqual(touched.contains(session.id), rooms[index] < expected.count, "touched: room \(rooms[index])")
        }
    }

    /// Subscriptions alike (one filter, one prefix) are sent one line from
    /// one buffer; another prefix gets a line of its own, and every client
    /// gets the bytes queueing would have sent.
    func testSubscriptionsAlikeAreSentOneBuffer() {
        let publisher = publisher()
        var sockets: [FakeSocket] = []
        for name in ["s", "s", "other", "s"] {
            let session = publisher.openSession()
            session.subscriptions[name] = Subscription(name: name, bundle: nil, localizations: nil, tables: nil)
            let socket = FakeSocket(room: .max)
            session.writeNow = { socket.write($0) }
            sockets.append(socket)
        }
        let queuedOnly = publisher.openSession()
        queuedOnly.subscriptions["s"] = Subscription(name: "s", bundle: nil, localizations: nil, tables: nil)
        publisher.publish([changed("k", "v")])
        let expected = String(decoding: queued(queuedOnly), as: UTF8.self)
        XCTAssertEqual(sockets.map(\.calls), [1, 1, 1, 1])
        XCTAssertEqual(sockets[0].addresses, sockets[1].addresses, "two sessions alike: one buffer")
        XCTAssertEqual(sockets[0].addresses, sockets[3].addresses, "after another prefix's line, the first prefix's line again")
        XCTAssertNotEqual(sockets[0].addresses, sockets[2].addresses)
        for index in [0, 1, 3] { XCTAssertEqual(String(decoding: sockets[index].taken, as: UTF8.self), expected) }
        XCTAssertEqual(String(decoding: sockets[2].taken, as: UTF8.self), expected.replacingOccurrences(of: "{\"sub\":\"s\",", with: "{\"sub\":\"other\","))
    }

    func testARepliesQueueIsNeverOvertakenAndImagesAreAlwaysQueued() {
        let publisher = publisher()
        let session = publisher.openSession()
        session.subscriptions["s"] = Subscription(name: "s", bundle: nil, localizations: nil, tables: nil, images: true)
        let socket = FakeSocket(room: .max)
        session.writeNow = { socket.write($0) }
        publisher.send(Array("{\"reply\":1}\n".utf8), to: session)
        publisher.publish([changed("k", "v")])
        XCTAssertEqual(socket.calls, 0, "a reply was queued first")
        let lines = queued(session).split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
        XCTAssertEqual(lines.first, "{\"reply\":1}")
        XCTAssertEqual(lines.count, 2)
        // An event that carries an image goes with its descriptors, which only the shell's flush attaches.
        let table = Table(strings: ["k": "v"])
        publisher.publish([.tableChanged(TableAddress(bundle: "/r/B", localization: "en", table: "Localizable"),
                                         TableDiff(from: Table(), to: table), deleted: false)],
                          served: { _ in table })
        XCTAssertEqual(socket.calls, 0)
        XCTAssertTrue(session.needsFlush)
        var images = 0
        session.write { bytes, attached in
            images += attached.count
            return bytes.count
        }
        XCTAssertEqual(images, 1)
    }

    /// A real socket pair whose peer does not read: events go straight out
    /// until its buffer is full, then queue; once the peer reads, the
    /// shell's writes deliver the rest. Every line arrives once, in order.
    func testARealSocketFillsThenTheQueueTakesOverWithoutLosingALine() throws {
        var pair: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &pair), 0)
        defer { close(pair[0]); close(pair[1]) }
        var small: Int32 = 4096
        setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let publisher = publisher(queueLimit: 64 << 20)
        let session = publisher.openSession()
        session.subscriptions["s"] = Subscription(name: "s", bundle: nil, localizations: nil, tables: nil)
        let descriptor = pair[0]
        session.writeNow = { lproj_send_now(descriptor, $0.baseAddress, $0.count) }
        let count = 2_000
        for index in 0..<count {
            publisher.publish([changed("k\(index)", String(repeating: "x", count: index % 700))])
        }
        XCTAssertTrue(session.needsFlush, "the peer read nothing: the socket filled and the rest was queued")
        var received: [UInt8] = []
        var newlines = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let deadline = ContinuousClock.now + .seconds(60)
        while newlines < count, ContinuousClock.now < deadline {
            session.write { bytes, _ in max(0, send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))) }
            let got = recv(pair[1], &buffer, buffer.count, 0)
            guard got > 0 else { continue }
            received += buffer.prefix(got)
            newlines += buffer.prefix(got).count { $0 == 0x0A }
        }
        let lines = received.split(separator: 0x0A)
        XCTAssertEqual(lines.count, count)
        for (index, line) in lines.enumerated() {
            guard case .event(let event)? = Wire.Incoming(line: Array(line)) else { return XCTFail("line \(index) is not an event") }
            XCTAssertEqual(event.subscription, "s")
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            XCTAssertEqual((object["added"] as? [String: String])?.keys.first, "k\(index)", "line \(index) out of order")
        }
        XCTAssertFalse(session.needsFlush)
    }
}
