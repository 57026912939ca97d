import Foundation
import XCTest
@testable import LprojWatch

/// Collects what a watcher delivers and lets a test wait for an event with a deadline.
final class EventLog: @unchecked Sendable {
    private let condition = NSCondition()
    private var events: [FileEvent] = []
    private var batches = 0

    func append(_ batch: [FileEvent]) {
        condition.lock()
        events += batch
        batches += 1
        condition.broadcast()
        condition.unlock()
    }

    var all: [FileEvent] {
        condition.lock()
        defer { condition.unlock() }
        return events
    }

    /// Waits until `predicate` holds for the events so far, or the deadline passes.
    @discardableResult
    func wait(seconds: Double = 10, until predicate: ([FileEvent]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(events) {
            if !condition.wait(until: deadline) { return predicate(events) }
        }
        return true
    }

    func clear() {
        condition.lock()
        events = []
        condition.unlock()
    }
}

final class WatcherTests: XCTestCase {
    var root: URL!
    var log: EventLog!
    var watcher: Watcher?

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(UUID().uuidString)").resolvingSymlinksInPath()
        try FileManager.default.createDirectory(at: root.appendingPathComponent("en.lproj"), withIntermediateDirectories: true)
        log = EventLog()
        let log = self.log!
        watcher = try Watcher(roots: [root.path]) { log.append($0) }
    }

    override func tearDownWithError() throws {
        watcher?.stop()
        watcher = nil
        try? FileManager.default.removeItem(at: root)
    }

    func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    func write(_ relative: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path(relative)))
    }

    /// Waits until every change made so far has been delivered.
    func sync() {
        let done = DispatchSemaphore(value: 0)
        watcher!.sync { done.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "sync never completed")
    }

    func testInPlaceWriteIsOneWrittenEvent() throws {
        try write("en.lproj/Localizable.strings", "\"a\" = \"b\";")
        XCTAssertTrue(log.wait { $0.contains(.written(self.path("en.lproj/Localizable.strings"))) })
        sync()
        XCTAssertEqual(log.all.filter { $0.path == self.path("en.lproj/Localizable.strings") }, [.written(path("en.lproj/Localizable.strings"))])
    }

    func testAtomicRenameAndTemporariesAreIgnored() throws {
        try write("en.lproj/.Localizable.strings.Ab12Cd", "x")
        try FileManager.default.moveItem(atPath: path("en.lproj/.Localizable.strings.Ab12Cd"), toPath: path("en.lproj/Localizable.strings"))
        try write("en.lproj/Localizable.strings~", "backup")
        try write("en.lproj/.Localizable.strings.swp", "vim")
        try write("en.lproj/4913", "vim probe")
        sync()
        XCTAssertEqual(log.all, [.written(path("en.lproj/Localizable.strings"))])
    }

    func testRemoval() throws {
        try write("en.lproj/A.strings", "x")
        sync()
        log.clear()
        try FileManager.default.removeItem(atPath: path("en.lproj/A.strings"))
        sync()
        XCTAssertEqual(log.all, [.removed(path("en.lproj/A.strings"))])
    }

    func testNewDirectoryBurstIsFullySeen() throws {
        // mkdir -p a/b/c.lproj && cp: the files land before any watch on the new directories exists.
        let deep = root.appendingPathComponent("a/b/c.lproj")
        try FileManager.default.createDirectory(at: deep, withIntermediateDirectories: true)
        for index in 0..<20 { try Data("\"k\" = \"\(index)\";".utf8).write(to: deep.appendingPathComponent("T\(index).strings")) }
        sync()
        let written = Set(log.all.compactMap { if case .written(let path) = $0 { path } else { nil } })
        XCTAssertEqual(written, Set((0..<20).map { deep.appendingPathComponent("T\($0).strings").path }))
        XCTAssertTrue(log.all.contains(.directoryAppeared(path("a"))))
        XCTAssertTrue(log.all.contains(.directoryAppeared(deep.path)))
        // And the new directories are watched from now on.
        log.clear()
        try Data("x".utf8).write(to: deep.appendingPathComponent("Later.strings"))
        sync()
        XCTAssertEqual(log.all, [.written(deep.appendingPathComponent("Later.strings").path)])
    }

    func testDirectoryMovedOutAndBack() throws {
        try write("en.lproj/L.strings", "x")
        sync()
        let outside = root.deletingLastPathComponent().appendingPathComponent("outside-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: outside) }
        log.clear()
        try FileManager.default.moveItem(atPath: path("en.lproj"), toPath: outside.path)
        sync()
        XCTAssertEqual(log.all, [.directoryGone(path("en.lproj"))])
        // Writes in the moved-out directory are not reported under the old name.
        log.clear()
        try Data("y".utf8).write(to: outside.appendingPathComponent("L.strings"))
        try FileManager.default.moveItem(atPath: outside.path, toPath: path("en.lproj"))
        sync()
        XCTAssertEqual(log.all, [.directoryAppeared(path("en.lproj")), .written(path("en.lproj/L.strings"))])
    }

    func testRemovingADirectoryTree() throws {
        try FileManager.default.createDirectory(atPath: path("fr.lproj/sub"), withIntermediateDirectories: true)
        try write("fr.lproj/sub/X.strings", "x")
        sync()
        log.clear()
        try FileManager.default.removeItem(atPath: path("fr.lproj"))
        sync()
        XCTAssertTrue(log.all.contains(.directoryGone(path("fr.lproj"))), "\(log.all)")
        XCTAssertEqual(watcher!.watchCount, 2, "root and en.lproj")
    }

    func testRootThatDisappearsAndComesBack() throws {
        let moved = root.deletingLastPathComponent().appendingPathComponent("moved-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: moved) }
        try FileManager.default.moveItem(at: root, to: moved)
        sync()
        XCTAssertTrue(log.all.contains(.directoryGone(root.path)), "\(log.all)")
        log.clear()
        try FileManager.default.moveItem(at: moved, to: root)
        sync()
        XCTAssertTrue(log.all.contains(.directoryAppeared(root.path)), "\(log.all)")
        log.clear()
        try write("en.lproj/Back.strings", "x")
        sync()
        XCTAssertEqual(log.all, [.written(path("en.lproj/Back.strings"))])
    }

    func testRootDeletedAndRecreated() throws {
        try FileManager.default.removeItem(at: root)
        sync()
        XCTAssertTrue(log.all.contains(.directoryGone(root.path)), "\(log.all)")
        log.clear()
        try FileManager.default.createDirectory(at: root.appendingPathComponent("de.lproj"), withIntermediateDirectories: true)
        try write("de.lproj/L.strings", "x")
        sync()
        XCTAssertTrue(log.all.contains(.written(path("de.lproj/L.strings"))), "\(log.all)")
    }

    /// Markers go to memory-backed directories first, skipping any that is
    /// missing or not writable.
    func testControlDirectoryPrefersRuntimeDirectories() throws {
        let runtime = root.path
        XCTAssertEqual(Watcher.controlParent(environment: ["RUNTIME_DIRECTORY": runtime + ":/elsewhere", "XDG_RUNTIME_DIR": "/nonexistent"]), runtime)
        XCTAssertEqual(Watcher.controlParent(environment: ["XDG_RUNTIME_DIR": runtime]), runtime)
        let fallback = Watcher.controlParent(environment: ["XDG_RUNTIME_DIR": "/nonexistent", "TMPDIR": runtime])
        XCTAssertTrue(fallback == "/dev/shm" || fallback == runtime, fallback)
        XCTAssertNotEqual(Watcher.controlParent(environment: ["XDG_RUNTIME_DIR": root.path + "/missing"]), root.path + "/missing")
    }

    /// A control directory left by a process that no longer runs is
    /// removed; one of a live process, or not named as ours, is kept.
    func testStaleControlDirectoriesOfDeadProcessesAreRemoved() throws {
        let parent = root.path + "/runtime"
        let dead = Process()
        dead.executableURL = URL(fileURLWithPath: "/bin/true")
        try dead.run()
        dead.waitUntilExit()
        let stale = parent + "/lprojd-watch-\(dead.processIdentifier)-abc123"
        let live = parent + "/lprojd-watch-\(getpid())-def456"
        let other = parent + "/lprojd-watch-notapid"
        for directory in [stale, live, other] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        XCTAssertTrue(FileManager.default.createFile(atPath: stale + "/flush-3", contents: nil))
        Watcher.removeStaleControlDirectories(in: parent)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale))
        XCTAssertTrue(FileManager.default.fileExists(atPath: live))
        XCTAssertTrue(FileManager.default.fileExists(atPath: other))
    }

    func testOnlyOneWatcherPerProcess() {
        XCTAssertThrowsError(try Watcher(roots: [root.path]) { _ in })
    }

    func testNotADirectory() throws {
        watcher?.stop()
        XCTAssertThrowsError(try Watcher(roots: [path("nope")]) { _ in }) { error in
            XCTAssertTrue("\(error)".contains("not a directory"), "\(error)")
        }
    }

    func testCoalescingKeepsTheLastWordPerPath() {
        XCTAssertEqual(Watcher.coalesce([.removed("/a"), .written("/a"), .written("/b"), .overflow, .written("/b"), .overflow]),
                       [.written("/a"), .overflow, .written("/b")])
    }

    func testTemporaryNames() {
        for name in ["L.strings~", ".L.strings.swp", ".L.strings.swx", "4913", ".#L.strings", "#L.strings#", ".L.strings.Ab12Cd", "x.tmp"] {
            XCTAssertTrue(TemporaryFiles.isTemporary(name), name)
        }
        for name in ["Localizable.strings", "InfoPlist.strings", ".hidden", "a.stringsdict", ".Ab12Cd"] {
            XCTAssertFalse(TemporaryFiles.isTemporary(name), name)
        }
    }
}

/// The kernel queue overflows while the watcher is busy: it must say so.
final class WatcherOverflowTests: XCTestCase {
    func testOverflowIsReported() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("overflow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let limit = Int((try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "16384") ?? 16384
        let gate = DispatchSemaphore(value: 0)
        let log = EventLog()
        let firstBatch = NSLock()
        nonisolated(unsafe) var blocked = false
        let watcher = try Watcher(roots: [root.path]) { batch in
            firstBatch.lock()
            let block = !blocked
            blocked = true
            firstBatch.unlock()
            if block { gate.wait() }   // hold the watcher's thread while the queue fills
            log.append(batch)
        }
        defer { watcher.stop() }
        try Data("x".utf8).write(to: root.appendingPathComponent("first"))
        // The watcher is now stuck in its callback; fill the kernel queue past its limit.
        for index in 0..<(limit + 2000) {
            let descriptor = open(root.appendingPathComponent("f\(index)").path, O_WRONLY | O_CREAT, 0o600)
            if descriptor >= 0 { close(descriptor) }
        }
        gate.signal()
        XCTAssertTrue(log.wait(seconds: 60) { $0.contains(.overflow) }, "no overflow among \(log.all.count) events")
    }
}
