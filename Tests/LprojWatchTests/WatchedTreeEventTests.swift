import Foundation
import LprojPaths
import LprojTables
import XCTest
@testable import LprojWatch

/// A `WatchedTree` read as the daemon reads it (its descriptor polled,
/// batches read without waiting), with `MarkerSync` for "every change made
/// so far has been read". Every wait has a deadline.
final class TreeProbe {
    let tree: WatchedTree
    private var markers: MarkerSync<Int>
    private var requests = 0
    /// Every event read so far (`modified` left out: a write in progress is not what these tests look at).
    private(set) var all: [FileEvent] = []
    private(set) var modified: [FileEvent] = []

    init(roots: [String]) throws {
        tree = try WatchedTree(roots: roots)
        markers = MarkerSync(tree: tree)
    }

    /// Reads until every change made before the call has been read.
    func sync(file: StaticString = #filePath, line: UInt = #line) {
        requests += 1
        let wanted = requests
        markers.request(wanted)
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            var ready = pollfd(fd: tree.descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) == 1 || tree.hasQueuedEvents, let batch = tree.readBatch(waiting: false) else { continue }
            for event in batch.events {
                if case .modified = event { modified.append(event) } else { all.append(event) }
            }
            if markers.settle(batch).contains(wanted) { return }
        }
        XCTFail("sync never completed", file: file, line: line)
    }

    func clear() {
        all = []
        modified = []
    }

    func close() { tree.close() }
}

final class WatchedTreeEventTests: XCTestCase {
    var root: URL!
    var log: TreeProbe!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(UUID().uuidString)").resolvingSymlinksInPath()
        try FileManager.default.createDirectory(at: root.appendingPathComponent("en.lproj"), withIntermediateDirectories: true)
        log = try TreeProbe(roots: [root.path])
    }

    override func tearDownWithError() throws {
        log?.close()
        log = nil
        try? FileManager.default.removeItem(at: root)
    }

    func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    func write(_ relative: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path(relative)))
    }

    func sync() { log.sync() }

    func testInPlaceWriteIsOneWrittenEvent() throws {
        try write("en.lproj/Localizable.strings", "\"a\" = \"b\";")
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
        // Files written before the watch existed are listed; later ones are written (some may be both).
        let seen = Set(log.all.compactMap { event -> String? in
            switch event {
            case .written(let path), .listed(let path): path
            default: nil
            }
        })
        XCTAssertEqual(seen, Set((0..<20).map { deep.appendingPathComponent("T\($0).strings").path }))
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
        XCTAssertEqual(log.all, [.directoryAppeared(path("en.lproj")), .listed(path("en.lproj/L.strings"))])
    }

    func testRemovingADirectoryTree() throws {
        try FileManager.default.createDirectory(atPath: path("fr.lproj/sub"), withIntermediateDirectories: true)
        try write("fr.lproj/sub/X.strings", "x")
        sync()
        log.clear()
        try FileManager.default.removeItem(atPath: path("fr.lproj"))
        sync()
        XCTAssertTrue(log.all.contains(.directoryGone(path("fr.lproj"))), "\(log.all)")
        XCTAssertEqual(log.tree.watchCount, 2, "root and en.lproj")
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
        XCTAssertTrue(log.all.contains(.written(path("de.lproj/L.strings"))) || log.all.contains(.listed(path("de.lproj/L.strings"))),
                      "\(log.all)")
    }

    /// Markers go to memory-backed directories first, skipping any that is
    /// missing or not writable.
    func testControlDirectoryPrefersRuntimeDirectories() throws {
        let runtime = root.path
        XCTAssertEqual(WatchedTree.controlParent(environment: ["RUNTIME_DIRECTORY": runtime + ":/elsewhere", "XDG_RUNTIME_DIR": "/nonexistent"]), runtime)
        XCTAssertEqual(WatchedTree.controlParent(environment: ["XDG_RUNTIME_DIR": runtime]), runtime)
        let fallback = WatchedTree.controlParent(environment: ["XDG_RUNTIME_DIR": "/nonexistent", "TMPDIR": runtime])
        XCTAssertTrue(fallback == "/dev/shm" || fallback == runtime, fallback)
        XCTAssertNotEqual(WatchedTree.controlParent(environment: ["XDG_RUNTIME_DIR": root.path + "/missing"]), root.path + "/missing")
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
        WatchedTree.removeStaleControlDirectories(in: parent)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale))
        XCTAssertTrue(FileManager.default.fileExists(atPath: live))
        XCTAssertTrue(FileManager.default.fileExists(atPath: other))
    }

    func testOnlyOneTreePerProcess() {
        XCTAssertThrowsError(try WatchedTree(roots: [root.path]))
    }

    func testNotADirectory() throws {
        log.close()
        XCTAssertThrowsError(try WatchedTree(roots: [path("nope")])) { error in
            XCTAssertTrue("\(error)".contains("not a directory"), "\(error)")
        }
    }

    func testCoalescingKeepsTheLastWordPerPath() {
        XCTAssertEqual(WatchedTree.coalesce([.removed("/a"), .written("/a"), .written("/b"), .overflow, .written("/b"), .overflow]),
                       [.written("/a"), .overflow, .written("/b")])
        // A write begun after a complete one overtakes it; a listed file written is written.
        XCTAssertEqual(WatchedTree.coalesce([.written("/a"), .modified("/a"), .listed("/b"), .written("/b")]), [.modified("/a"), .written("/b")])
        // Names are bytes: the NFC and NFD spellings of one name are two files.
        XCTAssertEqual(WatchedTree.coalesce([.written("/Caf\u{E9}"), .removed("/Cafe\u{301}")]), [.written("/Caf\u{E9}"), .removed("/Cafe\u{301}")])
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

/// The kernel queue overflows while nobody reads the tree: the next batch says so, and settles every sync.
final class WatchedTreeOverflowTests: XCTestCase {
    func testOverflowIsReportedAndSettlesEverySync() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("overflow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let limit = Int((try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "16384") ?? 16384
        let tree = try WatchedTree(roots: [root.path])
        defer { tree.close() }
        var markers = MarkerSync<String>(tree: tree)
        markers.request("before")
        // Nobody reads: fill the kernel queue past its limit.
        for index in 0..<(limit + 2000) {
            let descriptor = open(root.appendingPathComponent("f\(index)").path, O_WRONLY | O_CREAT, 0o600)
            if descriptor >= 0 { close(descriptor) }
        }
        var overflowed = false, settled: [String] = []
        let deadline = ContinuousClock.now + .seconds(60)
        while !overflowed, ContinuousClock.now < deadline, let batch = tree.readBatch(waiting: false) {
            overflowed = batch.overflowed && batch.events.contains(.overflow)
            settled += markers.settle(batch)
        }
        XCTAssertTrue(overflowed, "no overflow")
        XCTAssertEqual(settled, ["before"])
        XCTAssertEqual(markers.pending, 0)
    }
}

final class MarkerSyncTests: XCTestCase {
    /// A marker settles its own request and every one before it, in order; later ones wait.
    func testMarkersSettleInOrder() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("markers-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let tree = try WatchedTree(roots: [root])
        defer { tree.close() }
        var markers = MarkerSync<Int>(tree: tree)
        markers.request(1)
        markers.request(2)
        var settled: [Int] = []
        let deadline = ContinuousClock.now + .seconds(10)
        while settled.count < 2, ContinuousClock.now < deadline {
            var ready = pollfd(fd: tree.descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) == 1, let batch = tree.readBatch(waiting: false) else { continue }
            settled += markers.settle(batch)
        }
        XCTAssertEqual(settled, [1, 2])
        XCTAssertEqual(markers.pending, 0)
        XCTAssertEqual(markers.settle(WatchBatch(events: [], signals: ["sync-1"], overflowed: false)), [], "a marker settles once")
    }
}
