import Foundation
import Glibc
import LprojClient
import XCTest

/// A connection that cannot be made leaves no descriptor behind and
/// closes none but its own: a `LiveBundle` retries while the daemon is
/// down, on its own thread, beside whatever the app is opening.
final class DaemonConnectionTests: XCTestCase {
    func testAFailedConnectClosesItsSocketOnceAndOnlyItsOwn() throws {
        let missing = NSTemporaryDirectory() + "/no-daemon-\(UUID().uuidString).sock"
        let attempts = 3_000
        let done = DispatchSemaphore(value: 0)
        let connecting = Thread {
            for _ in 0..<attempts {
                guard case .unreachable? = (Result { () throws(DaemonConnection.Failure) in try DaemonConnection(path: missing) }).failure else {
                    fatalError("a connection to \(missing) was made")
                }
            }
            done.signal()
        }
        let before = openDescriptors()
        connecting.start()
        // Descriptors opened meanwhile, each likely the number a failed connect just let go of:
        // a second close of that number (its `deinit` after the init's own) would close ours.
        var checked = 0
        while done.wait(timeout: .now()) == .timedOut {
            var ends: [Int32] = [0, 0]
            XCTAssertEqual(pipe(&ends), 0)
            for _ in 0..<50 { _ = sched_yield() }
            for end in ends {
                XCTAssertNotEqual(fcntl(end, F_GETFD), -1, "descriptor \(end), opened by this thread, was closed by another")
                close(end)
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 0)
        XCTAssertEqual(openDescriptors(), before, "a failed connect left a descriptor open")
    }

    /// The descriptors this process has open.
    private func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let failure) = self { failure } else { nil }
    }
}
