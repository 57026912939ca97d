#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import CLinux
import Foundation
import LprojFormats
import LprojPaths
import LprojTables
import LprojWatch
import Synchronization

/// The first load, overlapped with the walk that sets up the watches: each
/// batch of directories the walk lists is read and parsed by a worker at
/// once, while the walk goes on, and handed back; the owner (the daemon's
/// thread, once its walk is over) takes the batches into the served tables as
/// they come, after making room for every file listed at once.
///
/// The workers share nothing with the served tables: what they make is theirs
/// until `nextBatch` hands it over. They are `ReadingThreads`' kind —
/// threads of the load's own that end with it (pooled threads would linger
/// and wake an idle daemon when reaped).
final class FirstLoad: Sendable {
    private struct State {
        var pending: [[ListedDirectory]] = []
        var finished: [[ServedTables.Loaded]] = []
        /// Batches handed to `read` and not yet handed back.
        var outstanding = 0
        var walked = false
    }

    private let exclusions: Exclusions
    private let links: LinkPolicy
    private let keys: KeyShelf
    private let limits: TableLimits
    private let state = Mutex(State())
    /// Signalled for each batch listed, and once per worker when the walk is over.
    private let work = DispatchSemaphore(value: 0)
    /// Signalled for each batch finished.
    private let progress = DispatchSemaphore(value: 0)
    /// Signalled once per worker when the owner has taken every batch.
    private let taken = DispatchSemaphore(value: 0)
    /// Signalled by each worker as it ends.
    private let ended = DispatchSemaphore(value: 0)
    private let workers: Int

    /// Starts one worker per processor.
    init(limits: TableLimits, exclusions: Exclusions, links: LinkPolicy, keys: KeyShelf) {
        self.keys = keys
        self.limits = limits
        self.exclusions = exclusions
        self.links = links
        workers = ReadingThreads.count
        for number in 0..<workers {
            let thread = Thread { [self] in readUntilWalked() }
            thread.name = "lprojd-load-\(number)"
            thread.start()
        }
    }

    /// Has the files of `directories` read by a worker; any thread may call it.
    func read(_ directories: [ListedDirectory]) {
        state.withLock {
            $0.pending.append(directories)
            $0.outstanding += 1
        }
        work.signal()
    }

    /// Says that no more `read` calls will come: the workers end once done.
    func walkFinished() {
        state.withLock { $0.walked = true }
        for _ in 0..<workers { work.signal() }
    }

    /// Says that every batch was taken in (`nextBatch` returned nil): the
    /// workers let go of the paths they made, give back what their heaps
    /// hold unused and end; returns once they have.
    func batchesTaken() {
        for _ in 0..<workers { taken.signal() }
        for _ in 0..<workers { ended.wait() }
    }

    /// The next batch read, waiting for one; nil once every batch has been
    /// handed back (call after `walkFinished`).
    func nextBatch() -> [ServedTables.Loaded]? {
        while true {
            let (batch, done) = state.withLock { state -> ([ServedTables.Loaded]?, Bool) in
                if !state.finished.isEmpty {
                    state.outstanding -= 1
                    return (state.finished.removeFirst(), false)
                }
                return (nil, state.outstanding == 0)
            }
            if let batch { return batch }
            if done { return nil }
            progress.wait()
        }
    }

    private func readUntilWalked() {
        // The tables this thread parses stay in its malloc arena; grown a
        // page at a time, that is one mprotect per page (17,000 for 50,000
        // small tables), and trimmed whenever its top is free. Grow it once,
        // up front, and hold its top until this thread is done; then what
        // is left unused is given back.
        let heap = lproj_prepare_thread_heap(32 << 20)
        defer {
            lproj_release_thread_heap(heap)
            ended.signal()
        }
        var reader = TableFileReader(limits: limits)
        // Each file's path is made here and, once the served tables has taken the
        // file in, needed no more: the last release of a string frees it,
        // and a free on another thread than the one whose arena it came
        // from takes that arena's lock while this thread allocates in it.
        // So this thread keeps its paths until every batch is taken, and
        // frees them itself.
        var made: [[ExactName]] = []
        while true {
            work.wait()
            let (directories, walked) = state.withLock { state -> ([ListedDirectory]?, Bool) in
                if !state.pending.isEmpty { return (state.pending.removeFirst(), state.walked) }
                return (nil, state.walked)
            }
            if let directories {
                let loaded = TableReading.load(directories, with: &reader, exclusions: exclusions, links: links, keys: keys, inParallel: false, listed: true)
                made.append(loaded.map(\.path))
                state.withLock { $0.finished.append(loaded) }
                progress.signal()
            } else if walked {
                taken.wait()
                made.removeAll()
                return
            }
        }
    }
}
