import LprojProtocol
import Synchronization

extension LiveBundle {
    /// A key that was looked up and not found in the table the view chose.
    public struct Miss: Hashable, Sendable {
        public var key: String
        public var table: String
        /// The localization the view chose first, nil when the bundle has none.
        public var language: String?
        /// The localizations the view searched, best first.
        public var languages: [String]
        /// What answered instead: the development localization, the caller's default, or the key.
        public var answer: MissAnswer
    }

    /// The misses of a bundle, recorded by every view of it (the active one
    /// and each request's): kept for `misses`, and what is new since the
    /// last report handed to the daemon (`takeReport`). Bounded: at most
    /// `capacity` distinct misses; past it, misses are only counted.
    final class MissLog: Sendable {
        /// Distinct misses kept at most (the rest counted as dropped).
        static let capacity = 10_000

        private struct State {
            var counts: [Miss: Int] = [:]
            var pending: [Miss: Int] = [:]
            var dropped = 0
            var pendingDropped = 0
        }

        private let state = Mutex(State())
        /// Called when a miss arrives while nothing waited to be reported (the connection's wake-up).
        private let onFirstPending = Mutex<(@Sendable () -> Void)?>(nil)

        func record(key: String, table: String, language: String?, languages: [String], answer: MissAnswer) {
            let miss = Miss(key: key, table: table, language: language, languages: languages, answer: answer)
            let wasIdle = state.withLock { state -> Bool in
                let wasIdle = state.pending.isEmpty && state.pendingDropped == 0
                if state.counts[miss] == nil, state.counts.count >= Self.capacity {
                    state.dropped += 1
                    state.pendingDropped += 1
                } else {
                    state.counts[miss, default: 0] += 1
                    state.pending[miss, default: 0] += 1
                }
                return wasIdle
            }
            if wasIdle, let wake = onFirstPending.withLock({ $0 }) { wake() }
        }

        /// Every miss kept, with how often it was met.
        var all: [Miss: Int] { state.withLock { $0.counts } }

        /// Misses met but not kept (the bound was reached).
        var dropped: Int { state.withLock { $0.dropped } }

        /// Whether some misses wait to be reported.
        var hasPending: Bool { state.withLock { !$0.pending.isEmpty || $0.pendingDropped > 0 } }

        /// What was met since the last report, as a report (nil: nothing); the next report starts empty.
        func takeReport(bundle: String) -> ReportMisses? {
            let (pending, dropped) = state.withLock { state in
                defer { (state.pending, state.pendingDropped) = ([:], 0) }
                return (state.pending, state.pendingDropped)
            }
            guard !pending.isEmpty || dropped > 0 else { return nil }
            let misses = pending.map { miss, count in
                MissReport(table: miss.table, key: miss.key, language: miss.language, languages: miss.languages, answer: miss.answer, count: count)
            }.sorted { ($0.table, $0.key, $0.language ?? "") < ($1.table, $1.key, $1.language ?? "") }
            return ReportMisses(bundle: bundle, misses: misses, dropped: dropped > 0 ? dropped : nil)
        }

        /// `wake` runs whenever a miss arrives with nothing waiting to be reported.
        func whenFirstPending(_ wake: @escaping @Sendable () -> Void) {
            onFirstPending.withLock { $0 = wake }
        }
    }
}
