import Foundation
@testable import LprojClient
import LprojTables
import Synchronization
import XCTest

/// What a thread runs (`pthread_create` takes a context pointer, not a closure).
private final class ThreadBody: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

/// A bundle read by many threads without its lock, each thread holding the
/// snapshot and the request views it read last (`ThreadHolds`): a new state
/// of the bundle is what the next read on every thread sees, a thread never
/// goes back to an older one, and a thread's hold ends with its next read
/// or with the thread.
final class ThreadHoldsTests: XCTestCase {
    private var directory: String!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "/thread-holds-\(UUID().uuidString)"
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
    /// 40 headers (hits in their own table, and new headers) and look up
    /// through the bundle and its active view: every answer is the round's.
    func testEveryThreadSeesANewStateOnItsNextRead() throws {
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
                        let active = [bundle.localizedString(forKey: "which", value: nil, table: nil),
                                      bundle.current.localizedString(forKey: "which", value: nil, table: nil)]
                        if active != ["en \(expected)", "en \(expected)"] {
                            wrong.withLock { $0.append("thread \(thread), round \(expected), the active language: \(active)") }
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
                    let answer = index % 2 == 0 ? bundle.localization(acceptLanguage: header).localizedString(forKey: "which", value: nil, table: nil)
                        : bundle.localizedString(forKey: "which", value: nil, table: nil)
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

    /// A thread's hold on a replaced table (and its views) and on a
    /// replaced snapshot ends when the thread ends, or at its next read of
    /// that kind on the bundle.
    func testAThreadsHoldEndsWithTheThreadOrWithItsNextRead() throws {
        let bundle = try make()
        struct Held: Sendable {
            weak var view: LiveBundle.Localization?
            weak var snapshot: LiveSnapshot?
        }
        let heldByAThread = Mutex(Held())
        try Self.runOnAThreadOfItsOwn {
            let view = bundle.localization(acceptLanguage: "ja-JP, ja")
            XCTAssertEqual(bundle.localizedString(forKey: "which", value: nil, table: nil), "en 0")
            let snapshot = bundle.core.snapshot
            heldByAThread.withLock { $0 = Held(view: view, snapshot: snapshot) }
        }
        XCTAssertNotNil(heldByAThread.withLock { $0.view }, "the bundle's table holds it")
        XCTAssertNotNil(heldByAThread.withLock { $0.snapshot }, "the bundle's current snapshot")
        bundle.core.replaceTables(Self.tables(round: 1))
        XCTAssertNil(heldByAThread.withLock { $0.view }, "replaced, and the ended thread's hold on the table was released with the thread")
        XCTAssertNil(heldByAThread.withLock { $0.snapshot }, "the same for the snapshot")

        weak var viewHeldHere: LiveBundle.Localization?
        weak var snapshotHeldHere: LiveSnapshot?
        viewHeldHere = bundle.localization(acceptLanguage: "de-CH, de")
        XCTAssertEqual(bundle.localizedString(forKey: "which", value: nil, table: nil), "en 1")
        snapshotHeldHere = bundle.core.snapshot
        bundle.core.replaceTables(Self.tables(round: 2))
        XCTAssertNotNil(viewHeldHere, "this thread holds the replaced table until its next request on the bundle")
        XCTAssertNotNil(snapshotHeldHere, "and the replaced snapshot until its next read of the active view")
        XCTAssertEqual(bundle.current.language, "en")
        XCTAssertNil(snapshotHeldHere, "its next read of the active view let the replaced snapshot go")
        XCTAssertNotNil(viewHeldHere, "the replaced table, still held, holds its views")
        XCTAssertEqual(bundle.localization(acceptLanguage: "fr").localizedString(forKey: "which", value: nil, table: nil), "fr 2")
        XCTAssertNil(viewHeldHere, "its next request let the replaced table go")
    }

    /// A thread holds for 4 bundles at once: reading a fifth lets go of
    /// what it held for the one it read least recently.
    func testAThreadHoldsForFourBundlesAndLetsTheLeastRecentGo() throws {
        let bundles = try (0..<5).map { _ in try make() }
        weak var first: LiveBundle.Localization?
        first = bundles[0].localization(acceptLanguage: "ja")
        for bundle in bundles[1..<4] { _ = bundle.localization(acceptLanguage: "ja") }
        bundles[0].core.replaceTables(Self.tables(round: 1))
        XCTAssertNotNil(first, "held by this thread for the first bundle")
        _ = bundles[1].localization(acceptLanguage: "de")
        XCTAssertNotNil(first, "reading a bundle held already evicts nothing")
        _ = bundles[4].localization(acceptLanguage: "ja")
        XCTAssertNil(first, "a fifth bundle: the least recent one's hold is let go")
        XCTAssertEqual(bundles[0].localization(acceptLanguage: "ja").localizedString(forKey: "which", value: nil, table: nil), "ja 1")
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
