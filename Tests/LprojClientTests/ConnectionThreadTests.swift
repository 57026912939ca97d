import Foundation
@testable import LprojClient
import XCTest

/// The thread a following `LiveBundle` runs its connection on: started
/// first thing in the bundle's making, named, and never left behind.
final class ConnectionThreadTests: XCTestCase {
    private var directory: String!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "/connection-thread-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/Resources/en.lproj", withIntermediateDirectories: true)
        try Data("\"k\" = \"v\";\n".utf8).write(to: URL(fileURLWithPath: directory + "/Resources/en.lproj/Localizable.strings"))
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The names of this process's threads, from `/proc/self/task/*/comm`.
    private func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .newlines) }
    }

    private func count(_ name: String) -> Int { threadNames().filter { $0 == name }.count }

    /// Waits (10 s at most) until `condition` holds.
    private func waitUntil(_ what: String, _ condition: () -> Bool, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date() + 10
        while !condition() {
            guard Date() < deadline else { return XCTFail("timed out: \(what); threads: \(threadNames())", file: file, line: line) }
            usleep(2_000)
        }
    }

    private func options() -> LiveBundle.Options {
        var options = LiveBundle.Options()
        // A socket nobody listens on: the thread connects, fails, and waits to try again until the bundle goes.
        options.socketPath = directory + "/nobody.sock"
        options.reportsMisses = false
        options.environment = ["LANG": "en_US.UTF-8", "XDG_CONFIG_HOME": directory + "/config"]
        return options
    }

    func testAFollowingBundleRunsItsConnectionOnANamedThreadThatEndsWithIt() throws {
        let before = count("lprojd-client")
        var bundle: LiveBundle? = try LiveBundle(path: directory + "/Resources", options: options())
        XCTAssertEqual(bundle?.localizedString(forKey: "k", value: nil, table: nil), "v", "the files answer while no daemon does")
        waitUntil("the connection's thread runs") { count("lprojd-client") == before + 1 }
        bundle = nil
        waitUntil("the connection's thread ends with its bundle") { count("lprojd-client") == before }
    }

    func testABundleThatCannotBeMadeLeavesNoThreadBehind() {
        let before = threadNames().count
        // The thread is started before the bundle is read: a bundle that cannot be read must end it.
        for _ in 0..<50 {
            XCTAssertThrowsError(try LiveBundle(path: directory + "/Missing", options: options()))
        }
        waitUntil("every thread started for a failed bundle ends") { threadNames().count <= before }
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
