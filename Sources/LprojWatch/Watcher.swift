import Foundation
import Synchronization

/// Watches directory trees with inotify on one thread of its own, and hands
/// batches of `FileEvent`s to a callback: a `WatchedTree` and the thread
/// that reads it. (A program with an event loop of its own can own a
/// `WatchedTree` directly and poll its descriptor: the daemon does.)
public final class Watcher: Sendable {
    public typealias StartError = WatchedTree.StartError

    /// The directories watched, as given.
    public let roots: [String]
    private let control: String
    private let state = Shared()

    /// State the watcher's thread and its callers share, behind one lock.
    fileprivate final class Shared: Sendable {
        struct Fields {
            var nextSync = 0
            var syncs: [String: @Sendable () -> Void] = [:]
            var watchCount = 0
            var stopped = false
            var finished = false
        }

        private let mutex = Mutex(Fields())
        /// Signalled once when the thread has finished.
        let done = DispatchSemaphore(value: 0)

        func withLock<Result>(_ body: (inout Fields) -> Result) -> Result {
            mutex.withLock { body(&$0) }
        }
    }

    /// Starts watching `roots` (which must be directories): see
    /// `WatchedTree.init` for `isIgnored`, `isExcluded` and `listed`.
    /// `deliver` is called on the watcher's thread with each batch, in order.
    public init(roots: [String], isIgnored: @escaping @Sendable (String) -> Bool = TemporaryFiles.isTemporary,
                isExcluded: @escaping @Sendable (String) -> Bool = { _ in false },
                listed: @escaping @Sendable ([ListedDirectory]) -> Void = { _ in },
                deliver: @escaping @Sendable ([FileEvent]) -> Void) throws(StartError) {
        self.roots = roots
        let started = Mutex<Result<String, StartError>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let state = state
        // The tree is made on the thread that reads it: libinotifytools is used from one thread only.
        let thread = Thread {
            let tree: WatchedTree
            do throws(StartError) {
                tree = try WatchedTree(roots: roots, isIgnored: isIgnored, isExcluded: isExcluded, listed: listed)
            } catch {
                started.withLock { $0 = .failure(error) }
                state.withLock { $0.finished = true }
                state.done.signal()
                ready.signal()
                return
            }
            state.withLock { $0.watchCount = tree.watchCount }
            started.withLock { $0 = .success(tree.controlDirectory) }
            ready.signal()
            Self.run(tree, deliver: deliver, state: state)
        }
        thread.name = "lprojd-watch"
        thread.start()
        ready.wait()
        switch started.withLock({ $0 })! {
        case .success(let control): self.control = control
        case .failure(let error): throw error
        }
    }

    deinit {
        stop()
    }

    /// Where the private control directory goes (see `WatchedTree.controlParent`).
    public static func controlParent(environment: [String: String]) -> String {
        WatchedTree.controlParent(environment: environment)
    }

    /// Removes control directories left by processes that no longer run (see `WatchedTree`).
    public static func removeStaleControlDirectories(in parent: String) {
        WatchedTree.removeStaleControlDirectories(in: parent)
    }

    /// How many directories are watched.
    public var watchCount: Int { state.withLock { $0.watchCount } }

    /// Calls `completion` (on the watcher's thread) once every change made
    /// before this call has been delivered.
    public func sync(_ completion: @escaping @Sendable () -> Void) {
        let name = state.withLock { state -> String? in
            guard !state.finished else { return nil }
            state.nextSync += 1
            let name = "sync-\(state.nextSync)"
            state.syncs[name] = completion
            return name
        }
        guard let name else { return completion() }
        WatchedTree.signal(name, in: control)
    }

    /// Stops the thread and releases inotify. Idempotent.
    public func stop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped && !state.finished
        }
        guard first else { return }
        // The thread finishes as soon as it reads a stop marker; a full
        // kernel queue may drop one, so drop another each second until then.
        var attempt = 0
        repeat {
            attempt += 1
            WatchedTree.signal("stop-\(attempt)", in: control)
        } while state.done.wait(timeout: .now() + 1) == .timedOut
    }

    private static func run(_ tree: WatchedTree, deliver: ([FileEvent]) -> Void, state: Shared) {
        var stop = false
        while !stop {
            guard let batch = tree.readBatch(waiting: true) else { break }
            if batch.signals.contains(where: { $0.hasPrefix("stop-") }) { stop = true }
            let count = tree.watchCount
            state.withLock { $0.watchCount = count }
            if !batch.events.isEmpty { deliver(batch.events) }
            // After an overflow a sync's marker may have been dropped; the
            // overflow (a full rescan) answers every sync asked before it.
            let completions = state.withLock { state -> [@Sendable () -> Void] in
                if batch.overflowed {
                    defer { state.syncs = [:] }
                    return Array(state.syncs.values)
                }
                return batch.signals.compactMap { state.syncs.removeValue(forKey: $0) }
            }
            for completion in completions { completion() }
        }
        tree.close()
        let pending = state.withLock { state -> [@Sendable () -> Void] in
            state.finished = true
            defer { state.syncs = [:] }
            return Array(state.syncs.values)
        }
        for completion in pending { completion() }
        state.done.signal()
    }
}
