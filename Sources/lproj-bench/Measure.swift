#if canImport(Glibc)
import Glibc
#endif

/// Timing helpers: CPU time per call. Peers are measured in alternating
/// rounds so that machine noise hits both alike, and each keeps its best round.
enum Measure {
    /// Seconds on the monotonic clock.
    static func now() -> Double {
        read(CLOCK_MONOTONIC)
    }

    /// CPU seconds this thread has run: unlike wall time, it does not count
    /// time the virtual machine spent running someone else.
    static func threadCPUTime() -> Double {
        read(CLOCK_THREAD_CPUTIME_ID)
    }

    /// CPU seconds per call of `body`, repeating it until at least `minimum`
    /// CPU seconds were spent. What `body` returns is released outside the
    /// timed part, so teardown is not counted (for either peer).
    static func secondsPerCall(minimum: Double = 0.3, _ body: () -> Any) -> Double {
        var calls = 0
        var total = 0.0
        repeat {
            let start = threadCPUTime()
            let result = body()
            total += threadCPUTime() - start
            calls += 1
            withExtendedLifetime(result) {}
        } while total < minimum
        return total / Double(calls)
    }

    /// Sleeps until `deadline` on the monotonic clock (pacing a workload; never to wait for a result).
    static func sleep(until deadline: Double) {
        var time = timespec(tv_sec: Int(deadline), tv_nsec: Int((deadline - deadline.rounded(.down)) * 1e9))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
    }

    private static func read(_ clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// `value` with `digits` decimals.
    static func format(_ value: Double, _ digits: Int = 1) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        var text = "\(rounded)"
        if digits == 0, text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}
