import Foundation
import LprojClient

/// Waits until `condition` holds, re-checking it whenever the bundle
/// changes or connects or disconnects (its own events), until the deadline.
public func awaitState(of bundle: LiveBundle, timeout: Duration = .seconds(10), _ condition: () -> Bool) throws {
    let signal = DispatchSemaphore(value: 0)
    let tokens = [bundle.observe { _ in signal.signal() }, bundle.observeConnection { _ in signal.signal() }]
    defer { tokens.forEach { $0.cancel() } }
    let deadline = DispatchTime.now() + .nanoseconds(Int(timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000))
    while !condition() {
        guard signal.wait(timeout: deadline) == .success else {
            if condition() { return }
            throw DaemonTestError("state not reached in \(timeout)")
        }
    }
}
