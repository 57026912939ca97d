import Foundation
@testable import LprojClient
import LprojTables
import Synchronization
import XCTest

/// The table of request views (`RequestViews`), in process: found by the
/// bytes of its key, full at half its capacity, grown with its views,
/// bounded, and releasing what it held.
final class RequestViewsTests: XCTestCase {
    private let seed = TableHash.seed

    func testAViewIsFoundByTheBytesOfItsKey() throws {
        let table = RequestViews(capacity: 64, limit: 32)
        let long = "fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, it;q=0.6, es;q=0.5, *;q=0.1"
        XCTAssertGreaterThan(long.utf8.count, 48, "longer than a slot holds: kept out of line")
        let composed = "fr-\u{00C9}", decomposed = "fr-E\u{0301}"
        let keys = [long, "", "ja", composed, decomposed, RequestViews.key(preferences: ["ja", "en"])]
        let views = keys.map { Self.view($0) }
        for (key, view) in zip(keys, views) {
            XCTAssertTrue(table.keep(view, for: key, hash: RequestViews.hash(key, seed: seed)) === view, key)
        }
        XCTAssertEqual(table.count, keys.count)
        for (key, view) in zip(keys, views) {
            XCTAssertTrue(table.view(for: key, hash: RequestViews.hash(key, seed: seed)) === view, "found: \(key)")
        }
        XCTAssertFalse(table.view(for: composed, hash: RequestViews.hash(composed, seed: seed))
                       === table.view(for: decomposed, hash: RequestViews.hash(decomposed, seed: seed)),
                       "canonically equivalent keys are two keys: their bytes differ")
        XCTAssertNil(table.view(for: "de", hash: RequestViews.hash("de", seed: seed)))
        XCTAssertNil(table.view(for: long + " ", hash: RequestViews.hash(long + " ", seed: seed)))
        // A second view for a kept key: the first stays (two requests for one header share one view).
        let other = Self.view("ja")
        XCTAssertTrue(table.keep(other, for: "ja", hash: RequestViews.hash("ja", seed: seed)) === views[2])
        XCTAssertEqual(table.count, keys.count)
        // One hash for two keys: both kept, each found by its bytes.
        let sameHash = RequestViews.hash("x", seed: seed)
        let x = Self.view("x"), y = Self.view("y")
        XCTAssertTrue(table.keep(x, for: "x", hash: sameHash) === x)
        XCTAssertTrue(table.keep(y, for: "y", hash: sameHash) === y)
        XCTAssertTrue(table.view(for: "x", hash: sameHash) === x)
        XCTAssertTrue(table.view(for: "y", hash: sameHash) === y)
    }

    func testATableIsFullAtHalfItsCapacityAndGrowsWithItsViews() throws {
        let table = RequestViews(capacity: 16, limit: 100)
        let keys = (0..<8).map { "header \($0)" + String(repeating: "-", count: $0 * 10) }
        let views = keys.map { Self.view($0) }
        for (key, view) in zip(keys, views) { XCTAssertNotNil(table.keep(view, for: key, hash: RequestViews.hash(key, seed: seed))) }
        XCTAssertNil(table.keep(Self.view("ninth"), for: "ninth", hash: RequestViews.hash("ninth", seed: seed)), "8 of 16 slots: full")
        let grown = try XCTUnwrap(table.grown())
        XCTAssertEqual(grown.capacity, 32)
        XCTAssertEqual(grown.count, 8)
        for (key, view) in zip(keys, views) {
            XCTAssertTrue(grown.view(for: key, hash: RequestViews.hash(key, seed: seed)) === view, key)
            XCTAssertTrue(table.view(for: key, hash: RequestViews.hash(key, seed: seed)) === view, "the old table is unchanged: \(key)")
        }
        XCTAssertNotNil(grown.keep(Self.view("ninth"), for: "ninth", hash: RequestViews.hash("ninth", seed: seed)))
    }

    func testPastItsLimitATableDoesNotGrow() {
        let table = RequestViews(capacity: 16, limit: 4)
        for index in 0..<4 { XCTAssertNotNil(table.keep(Self.view("\(index)"), for: "\(index)", hash: RequestViews.hash("\(index)", seed: seed))) }
        XCTAssertNil(table.keep(Self.view("4"), for: "4", hash: RequestViews.hash("4", seed: seed)), "at the limit, with room left")
        XCTAssertNil(table.grown(), "the core starts over with an empty table")
    }

    func testATableReleasesItsViewsWhenItGoes() {
        weak var inline: LiveBundle.Localization?
        weak var outOfLine: LiveBundle.Localization?
        weak var copied: LiveBundle.Localization?
        do {
            let table = RequestViews(capacity: 16, limit: 100)
            let short = Self.view("ja"), long = Self.view(String(repeating: "de, ", count: 20))
            inline = short
            outOfLine = long
            _ = table.keep(short, for: "ja", hash: RequestViews.hash("ja", seed: seed))
            let key = String(repeating: "de, ", count: 20)
            _ = table.keep(long, for: key, hash: RequestViews.hash(key, seed: seed))
            let grown = table.grown()
            copied = grown?.view(for: key, hash: RequestViews.hash(key, seed: seed))
            XCTAssertNotNil(copied)
        }
        XCTAssertNil(inline, "released with the tables")
        XCTAssertNil(outOfLine)
        XCTAssertNil(copied)
    }

    /// A view only a table holds (the core's views are held by its snapshots too).
    static func view(_ name: String) -> LiveBundle.Localization {
        LiveBundle.Localization(tables: [:], searchList: [name], development: nil, developmentFallback: false, bundlePath: "/views")
    }
}

/// What a thread runs (`pthread_create` takes a context pointer, not a closure).
private final class ThreadBody: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

/// Request views read by many threads without the bundle's lock, each
/// thread holding the table it read last (`ThreadRequestViews`): a new
/// state of the bundle is what the next request on every thread sees, a
/// thread never goes back to an older one, and a thread's hold ends with
/// its next request or with the thread.
final class RequestThreadsTests: XCTestCase {
    private var directory: String!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "/request-threads-\(UUID().uuidString)"
        for localization in ["en", "fr", "de", "ja"] {
            let path = directory + "/Resources/\(localization).lproj/Localizable.strings"
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data("\"which\" = \"\(localization) 0\";\n".utf8).write(to: URL(fileURLWithPath: path))
        }
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Rounds: the bundle's tables replaced, then four threads each ask for
    /// 40 headers (hits in their own table, and new headers): every answer
    /// is the round's.
    func testEveryThreadSeesANewStateOnItsNextRequest() throws {
        let bundle = try make()
        let threads = 4, rounds = 60
        let start = (0..<threads).map { _ in DispatchSemaphore(value: 0) }
        let done = DispatchSemaphore(value: 0)
        let round = Mutex(0)
        let wrong = Mutex<[String]>([])
        for thread in 0..<threads {
            Thread.detachNewThread {
                for _ in 0..<rounds {
                    start[thread].wait()
                    let expected = round.withLock { $0 }
                    for index in 0..<40 {
                        let language = ["fr", "de", "ja", "en"][(index + thread) % 4]
                        // Half the headers are asked every round, half are new in each.
                        let header = index % 2 == 0 ? "\(language), en;q=0.\(index % 9 + 1)" : "\(language)-X\(expected)-\(index), en;q=0.5"
                        let answer = bundle.localization(acceptLanguage: header).localizedString(forKey: "which", value: nil, table: nil)
                        if answer != "\(language) \(expected)" {
                            wrong.withLock { $0.append("thread \(thread), round \(expected), \(header): \(answer)") }
                        }
                    }
                    done.signal()
                }
            }
        }
        for next in 1...rounds {
            round.withLock { $0 = next }
            bundle.core.replaceTables(Self.tables(round: next))
            for semaphore in start { semaphore.signal() }
            for _ in 0..<threads {
                XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "round \(next): a thread did not finish")
            }
        }
        XCTAssertEqual(wrong.withLock { $0 }, [], "every request after a swap answers from the new state")
    }

    /// Threads ask while the tables are replaced under them: what a thread
    /// is told never goes back to an earlier state.
    func testAThreadNeverGoesBackToAnOlderState() throws {
        let bundle = try make()
        let threads = 3
        let stop = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        let backwards = Mutex<[String]>([])
        let asked = Atomic<Int>(0)
        for thread in 0..<threads {
            Thread.detachNewThread {
                var seen = 0
                var index = 0
                while !stop.load(ordering: .acquiring) {
                    index += 1
                    let header = "fr-\(thread), de;q=0.\(index % 7 + 1)"
                    let answer = bundle.localization(acceptLanguage: header).localizedString(forKey: "which", value: nil, table: nil)
                    guard let round = Int(answer.split(separator: " ").last ?? "") else {
                        backwards.withLock { $0.append("unexpected answer \(answer)") }
                        break
                    }
                    if round < seen { backwards.withLock { $0.append("thread \(thread): \(seen) then \(round)") } }
                    seen = round
                    asked.add(1, ordering: .relaxed)
                }
                done.signal()
            }
        }
        for next in 1...300 { bundle.core.replaceTables(Self.tables(round: next)) }
        stop.store(true, ordering: .releasing)
        for _ in 0..<threads { XCTAssertEqual(done.wait(timeout: .now() + 60), .success) }
        XCTAssertGreaterThan(asked.load(ordering: .relaxed), 0)
        XCTAssertEqual(backwards.withLock { $0 }, [])
    }

    /// A thread's hold on a replaced table (and its views) ends when the
    /// thread ends, or at its next request on the bundle.
    func testAThreadsHoldEndsWithTheThreadOrWithItsNextRequest() throws {
        let bundle = try make()
        struct Weak: Sendable { weak var view: LiveBundle.Localization? }
        let heldByAThread = Mutex(Weak())
        try Self.runOnAThreadOfItsOwn {
            let view = bundle.localization(acceptLanguage: "ja-JP, ja")
            heldByAThread.withLock { $0.view = view }
        }
        XCTAssertNotNil(heldByAThread.withLock { $0.view }, "the bundle's table holds it")
        bundle.core.replaceTables(Self.tables(round: 1))
        XCTAssertNil(heldByAThread.withLock { $0.view }, "replaced, and the ended thread's hold on the table was released with the thread")

        weak var heldHere: LiveBundle.Localization?
        heldHere = bundle.localization(acceptLanguage: "de-CH, de")
        bundle.core.replaceTables(Self.tables(round: 2))
        XCTAssertNotNil(heldHere, "this thread holds the replaced table until its next request on the bundle")
        XCTAssertEqual(bundle.localization(acceptLanguage: "fr").localizedString(forKey: "which", value: nil, table: nil), "fr 2")
        XCTAssertNil(heldHere, "its next request let the replaced table go")
    }

    /// Runs `body` on a thread of its own and returns once that thread has
    /// ended, its thread-local values released (joined; the body's end is
    /// waited for with a deadline first).
    private static func runOnAThreadOfItsOwn(_ body: @escaping @Sendable () -> Void) throws {
        let finished = DispatchSemaphore(value: 0)
        let context = Unmanaged.passRetained(ThreadBody {
            body()
            finished.signal()
        }).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, context)
        XCTAssertEqual(status, 0, "pthread_create")
        guard status == 0 else { return }
        XCTAssertEqual(finished.wait(timeout: .now() + 60), .success, "the thread's body did not finish")
        pthread_join(thread, nil)
    }

    private static func tables(round: Int) -> [String: [String: Table]] {
        Dictionary(uniqueKeysWithValues: ["en", "fr", "de", "ja"].map { ($0, ["Localizable": Table(strings: ["which": "\($0) \(round)"])]) })
    }

    private func make() throws -> LiveBundle {
        var options = LiveBundle.Options()
        options.connects = false
        options.environment = ["LANG": "en_US.UTF-8", "HOME": directory]
        return try LiveBundle(path: directory + "/Resources", app: "com.example.threads", options: options)
    }
}
