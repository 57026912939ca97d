#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// The one threading policy for reading many files (the first load, the
/// rescan after an overflow, a big checkout): threads of the daemon's own,
/// one per core, that end when the reading does. Pooled threads (GCD's)
/// stay behind after the work and wake an idle daemon when they are reaped
/// (`IdleTests` caught it). The owner's thread does a share itself.
enum ReadingThreads {
    /// One per online core.
    static var count: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// Runs `body(0..<iterations)` spread over `count` threads (this one
    /// included), each index once; returns when every one is done.
    static func perform(iterations: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let threads = min(count, iterations)
        guard threads > 1 else {
            for index in 0..<iterations { body(index) }
            return
        }
        let next = Counter()
        let done = DispatchSemaphore(value: 0)
        @Sendable func work() {
            while case let index = next.take(), index < iterations { body(index) }
        }
        for number in 1..<threads {
            let thread = Thread {
                work()
                done.signal()
            }
            thread.name = "lprojd-read-\(number)"
            thread.start()
        }
        work()
        for _ in 1..<threads { done.wait() }
    }

    /// Hands out indices, each once.
    private final class Counter: Sendable {
        private let value = Atomic(0)

        func take() -> Int {
            value.wrappingAdd(1, ordering: .relaxed).oldValue
        }
    }
}
