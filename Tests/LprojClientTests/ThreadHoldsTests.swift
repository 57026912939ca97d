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
/// snapshot it read last with its own copies of views and tables
/// (`ThreadHolds`, `HeldSnapshot`): a new state of the bundle is what the
/// next read on every thread sees, a thread never goes back to an older
/// one, a thread's hold ends with its next read or with the thread, and
/// what a thread is handed is its own.
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

    /// A thread's hold on a snapshot — with its copies of the views it was
    /// handed — ends when the thread ends, or at its next read of the
    /// bundle after a swap.
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
        XCTAssertNil(heldByAThread.withLock { $0.view }, "the ended thread's copy of the view went with its hold")
        XCTAssertNotNil(heldByAThread.withLock { $0.snapshot }, "the bundle's current snapshot")
        bundle.core.replaceTables(Self.tables(round: 1))
        XCTAssertNil(heldByAThread.withLock { $0.snapshot }, "replaced, and no thread holds it")

        weak var viewHeldHere: LiveBundle.Localization?
        weak var snapshotHeldHere: LiveSnapshot?
        viewHeldHere = bundle.localization(acceptLanguage: "de-CH, de")
        XCTAssertEqual(bundle.localizedString(forKey: "which", value: nil, table: nil), "en 1")
        snapshotHeldHere = bundle.core.snapshot
        bundle.core.replaceTables(Self.tables(round: 2))
        XCTAssertNotNil(viewHeldHere, "this thread holds the replaced snapshot and its copies until its next read of the bundle")
        XCTAssertNotNil(snapshotHeldHere)
        XCTAssertEqual(bundle.current.language, "en")
        XCTAssertNil(snapshotHeldHere, "its next read let the replaced snapshot go")
        XCTAssertNil(viewHeldHere, "and the copies made from it")
        XCTAssertEqual(bundle.localization(acceptLanguage: "fr").localizedString(forKey: "which", value: nil, table: nil), "fr 2")
    }

    /// Each thread is handed views of its own and strings of its own (a
    /// reference count written by one thread is on no line another thread
    /// writes), the same object again on the same thread; the answers are
    /// the same.
    func testEachThreadLooksUpItsOwnCopies() throws {
        let bundle = try make()
        bundle.core.replaceTables(Self.tables(round: 1, sentence: true))
        struct Seen: Sendable { var view: ObjectIdentifier; var texts: [String]; var addresses: [UInt] }
        @Sendable func look() -> Seen {
            let view = bundle.localization(acceptLanguage: "fr-CH, fr")
            XCTAssertTrue(view === bundle.localization(acceptLanguage: "fr, de;q=0.5"), "one chain, one view on a thread")
            let texts = [view.localizedString(forKey: "which", value: nil, table: nil),
                         bundle.current.localizedString(forKey: "which", value: nil, table: nil),
                         bundle.localizedString(forKey: "which", value: nil, table: nil)]
            let again = [view.localizedString(forKey: "which", value: nil, table: nil),
                         bundle.current.localizedString(forKey: "which", value: nil, table: nil)]
            XCTAssertEqual(again.map(Self.address), texts.prefix(2).map(Self.address), "made once on a thread, returned again")
            return Seen(view: ObjectIdentifier(view), texts: texts, addresses: texts.map(Self.address))
        }
        let here = look()
        let there = Mutex<Seen?>(nil)
        try Self.runOnAThreadOfItsOwn { there.withLock { $0 = look() } }
        let other = try XCTUnwrap(there.withLock { $0 })
        XCTAssertEqual(here.texts, [Self.sentence("fr", 1), Self.sentence("en", 1), Self.sentence("en", 1)])
        XCTAssertEqual(other.texts, here.texts)
        XCTAssertNotEqual(other.view, here.view, "each thread its own view")
        XCTAssertTrue(zip(here.addresses, other.addresses).allSatisfy { $0 != $1 }, "and its own strings: \(here.addresses) \(other.addresses)")
        XCTAssertEqual(here.addresses[1], here.addresses[2], "bundle.current and the bundle's own lookups read one copy")
    }

    /// A view handed to one thread and passed to others answers right on
    /// all of them at once (the others read the snapshot's tables, not the
    /// thread's own, which have no lock), keys looked up first there among them.
    func testAViewPassedToOtherThreadsAnswersThere() throws {
        let bundle = try make()
        let keys = (0..<3_000).map { "key.\($0)" }
        var tables = Self.tables(round: 1)
        for localization in tables.keys {
            tables[localization] = ["Localizable": Table(strings: Dictionary(uniqueKeysWithValues: keys.map { ($0, "\(localization) \($0) in a sentence") }))]
        }
        bundle.core.replaceTables(tables)
        let view = bundle.localization(acceptLanguage: "de")
        let wrong = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            // The view's own thread (this one, as iteration 0 may run here) and others, each in its own order.
            for index in 0..<keys.count {
                let key = keys[(index * (thread + 1) * 7) % keys.count]
                if view.localizedString(forKey: key, value: nil, table: nil) != "de \(key) in a sentence" { wrong.add(1, ordering: .relaxed) }
            }
        }
        XCTAssertEqual(wrong.load(ordering: .relaxed), 0)
    }

    /// A swap that changes one table leaves a thread's copies of the others
    /// as they were (their strings not made again); the changed one is new.
    func testAThreadKeepsItsCopyOfATableTheSwapLeftAlone() throws {
        let bundle = try make()
        bundle.core.replaceTables(Self.tables(round: 1, sentence: true))
        let before = (fr: Self.address(bundle.localization(acceptLanguage: "fr").localizedString(forKey: "which", value: nil, table: nil)),
                      de: Self.address(bundle.localization(acceptLanguage: "de").localizedString(forKey: "which", value: nil, table: nil)))
        bundle.core.replaceLocalizations { old in
            var new = old
            new["de"] = LocalizationTables("de", ["Localizable": Table(strings: ["which": Self.sentence("de", 2)])])
            return new
        }
        XCTAssertEqual(bundle.localization(acceptLanguage: "de").localizedString(forKey: "which", value: nil, table: nil), Self.sentence("de", 2))
        let french = bundle.localization(acceptLanguage: "fr").localizedString(forKey: "which", value: nil, table: nil)
        XCTAssertEqual(french, Self.sentence("fr", 1))
        XCTAssertEqual(Self.address(french), before.fr, "the French table's copy passed to the new hold")
        XCTAssertNotEqual(before.de, 0)
        XCTAssertEqual(bundle.core.heldTableCount, 3, "en (the active view's, and the others' fallback), the new de and fr: not the old de")
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

    private static func tables(round: Int, sentence: Bool = false) -> [String: [String: Table]] {
        Dictionary(uniqueKeysWithValues: ["en", "fr", "de", "ja"].map {
            ($0, ["Localizable": Table(strings: ["which": sentence ? Self.sentence($0, round) : "\($0) \(round)"])])
        })
    }

    /// A value long enough to be stored apart from its `String`, in an object of its own.
    private static func sentence(_ localization: String, _ round: Int) -> String {
        "\(localization): the answer of round \(round), in a sentence"
    }

    /// The address of a string's bytes: the same object twice, or two.
    private static func address(_ text: String) -> UInt {
        text.utf8.withContiguousStorageIfAvailable { UInt(bitPattern: $0.baseAddress) } ?? 0
    }

    private func make() throws -> LiveBundle {
        var options = LiveBundle.Options()
        options.connects = false
        options.environment = ["LANG": "en_US.UTF-8", "HOME": directory]
        return try LiveBundle(path: directory + "/Resources", app: "com.example.threads", options: options)
    }
}
