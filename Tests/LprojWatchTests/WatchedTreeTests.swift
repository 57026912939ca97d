import Foundation
import LprojPaths
import XCTest
import LprojTables
@testable import LprojWatch

/// A `WatchedTree` owned by the test's thread, its descriptor polled as an
/// event loop would: the daemon's way of reading inotify.
final class WatchedTreeTests: XCTestCase {
    func testThePolledDescriptorReportsSavesAndMarkers() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tree-\(UUID().uuidString)").resolvingSymlinksInPath()
        try FileManager.default.createDirectory(at: root.appendingPathComponent("en.lproj"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let existing = root.appendingPathComponent("en.lproj/Old.strings").path
        try Data("\"a\" = \"b\";\n".utf8).write(to: URL(fileURLWithPath: existing))
        var listed: [String] = []
        let tree = try WatchedTree(roots: [root.path], listed: { listed += $0.flatMap(\.paths) })
        defer { tree.close() }
        XCTAssertEqual(listed, [existing], "the walk lists what is already there")
        XCTAssertEqual(tree.watchCount, 2)

        // Idle: nothing to read, and the descriptor says so.
        XCTAssertNil(tree.readBatch(waiting: false))
        XCTAssertFalse(Self.isReadable(tree.descriptor, waitingMilliseconds: 0))

        // A save makes the descriptor readable; one batch holds it, and nothing is kept back.
        let saved = root.appendingPathComponent("en.lproj/Localizable.strings").path
        // Written in place (open, write, close), as an editor saving over the file does.
        let descriptor = open(saved, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        XCTAssertEqual(write(descriptor, "\"x\" = \"y\";\n", 11), 11)
        close(descriptor)
        XCTAssertTrue(Self.isReadable(tree.descriptor, waitingMilliseconds: 10_000))
        let batch = try XCTUnwrap(tree.readBatch(waiting: false))
        XCTAssertEqual(batch.events, [.written(saved)])
        XCTAssertFalse(batch.overflowed)
        XCTAssertFalse(Self.isReadable(tree.descriptor, waitingMilliseconds: 0), "a batch reads the queue until it is empty")

        // A marker comes back after every change made before it.
        try FileManager.default.removeItem(atPath: existing)
        var markers = MarkerSync<String>(tree: tree)
        markers.request("first")
        var events: [FileEvent] = [], settled: [String] = []
        while settled.isEmpty {
            XCTAssertTrue(Self.isReadable(tree.descriptor, waitingMilliseconds: 10_000), "the marker never came back")
            guard let next = tree.readBatch(waiting: false) else { continue }
            events += next.events
            settled += markers.settle(next)
        }
        XCTAssertEqual(events, [.removed(existing)])
        XCTAssertEqual(settled, ["first"])
    }

    /// A write still going on is `modified`; what is queued after a read can
    /// be looked at (`queuedPaths`) and still comes in the next batch.
    func testAWriteInProgressIsSeenAndQueuedPathsKeepTheirEvents() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tree-\(UUID().uuidString)").resolvingSymlinksInPath()
        try FileManager.default.createDirectory(at: root.appendingPathComponent("en.lproj"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let tree = try WatchedTree(roots: [root.path])
        defer { tree.close() }
        let saved = root.appendingPathComponent("en.lproj/Localizable.strings").path
        let descriptor = open(saved, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertEqual(write(descriptor, "\"x\" = ", 7), 7)
        XCTAssertTrue(Self.isReadable(tree.descriptor, waitingMilliseconds: 10_000))
        XCTAssertEqual(tree.readBatch(waiting: false)?.events, [.modified(saved)])
        XCTAssertEqual(write(descriptor, "\"y\";\n", 5), 5)
        close(descriptor)
        let deadline = ContinuousClock.now + .seconds(10)
        var queued = Set<ExactName>()
        while !queued.contains(ExactName(saved)), ContinuousClock.now < deadline { queued = tree.queuedPaths() }
        XCTAssertEqual(queued, [ExactName(saved)])
        XCTAssertTrue(tree.hasQueuedEvents)
        XCTAssertEqual(tree.readBatch(waiting: false)?.events, [.written(saved)], "held events start the next batch")
        XCTAssertFalse(tree.hasQueuedEvents)
    }

    func testOnlyOneTreeAtATime() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tree-\(UUID().uuidString)").resolvingSymlinksInPath().path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let tree = try WatchedTree(roots: [root])
        XCTAssertThrowsError(try WatchedTree(roots: [root])) { error in
            XCTAssertTrue("\(error)".contains("only one watcher"), "\(error)")
        }
        tree.close()
        let again = try WatchedTree(roots: [root])
        again.close()
    }

    private static func isReadable(_ descriptor: Int32, waitingMilliseconds: Int32) -> Bool {
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&ready, 1, waitingMilliseconds) == 1
    }
}
