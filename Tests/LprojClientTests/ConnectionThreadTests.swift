import Foundation
@testable import LprojClient
import XCTest

/// The thread a following `LiveBundle` runs its connection on: started
/// once the bundle is listed — never for a bundle that cannot be made —
/// and named.
final class ConnectionThreadTests: XCTestCase {
    private var directory: String!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "/connection-thread-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// This process's threads, from `/proc/self/task`.
    private func threadCount() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).count
    }

    func testABundleThatCannotBeMadeStartsNoThread() {
        var options = LiveBundle.Options()
        options.socketPath = directory + "/nobody.sock"
        options.reportsMisses = false
        options.environment = ["LANG": "en_US.UTF-8", "XDG_CONFIG_HOME": directory + "/config"]
        let before = threadCount()
        for _ in 0..<50 {
            XCTAssertThrowsError(try LiveBundle(path: directory + "/Missing", options: options))
        }
        // Checked at once: a thread started for a failed bundle would still be there (or ending).
        XCTAssertEqual(threadCount(), before, "a bundle that could not be listed started no connection thread")
    }

    func testAPlainThreadRunsItsBodyUnderItsName() {
        let ran = DispatchSemaphore(value: 0)
        let name = LockedName()
        XCTAssertTrue(PlainThread.start(named: "lproj-test-thread-name") {
            let buffer = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            name.set(buffer.trimmingCharacters(in: .newlines))
            ran.signal()
        })
        XCTAssertEqual(ran.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(name.get(), "lproj-test-thre", "a thread's name keeps its first 15 bytes")
    }
}

private final class LockedName: @unchecked Sendable {
    private let lock = NSLock()
    private var value = ""
    func set(_ name: String) { lock.withLock { value = name } }
    func get() -> String { lock.withLock { value } }
}
