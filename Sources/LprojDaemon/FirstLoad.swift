#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import CLinux
import Foundation
import LprojTables
import Synchronization

/// The first load, overlapped with the walk that sets up the watches: each
/// batch of files the watcher lists is read and parsed by a worker thread
/// at once, and the daemon's thread takes each batch in as it is ready,
/// while the walk and the reading go on.
///
/// The workers are threads of its own that end with the load (pooled
/// threads would linger and wake an idle daemon when they are reaped).
final class FirstLoad: Sendable {
    private struct State {
        var pending: [[String]] = []
        var ready: [[Catalog.Loaded]] = []
        var reading = 0
        var walked = false
        var tableFiles = 0
    }

    private let limits: TableLimits
    private let exclusions: Exclusions
    private let state = Mutex(State())
    /// Signalled for each batch listed, and once per worker when the walk is over.
    private let work = DispatchSemaphore(value: 0)
    /// Signalled when a batch has been read, and when the walk is over.
    private let progress = DispatchSemaphore(value: 0)
    private let workers: Int

    /// Starts one worker per processor.
    init(limits: TableLimits, exclusions: Exclusions) {
        self.limits = limits
        self.exclusions = exclusions
        workers = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        for number in 0..<workers {
            let thread = Thread { [self] in readUntilWalked() }
            thread.name = "lprojd-load-\(number)"
            thread.start()
        }
    }

    /// Has `paths` read by a worker; any thread may call it.
    func read(_ paths: [String]) {
        let tableFiles = paths.count { TableFormat(path: $0) != nil }
        state.withLock {
            $0.pending.append(paths)
            $0.reading += 1
            $0.tableFiles += tableFiles
        }
        work.signal()
    }

    /// Says that no more `read` calls will come: the workers end once done.
    func walkFinished() {
        state.withLock { $0.walked = true }
        for _ in 0..<workers { work.signal() }
        progress.signal()
    }

    /// How many of the files listed so far are table files (by their names).
    var tableFilesListed: Int { state.withLock { $0.tableFiles } }

    /// The next batch read (waiting for one), or nil once the walk is over
    /// and every batch has been taken.
    func next() -> [Catalog.Loaded]? {
        while true {
            let (batch, finished) = state.withLock { state -> ([Catalog.Loaded]?, Bool) in
                if !state.ready.isEmpty { return (state.ready.removeFirst(), false) }
                return (nil, state.walked && state.reading == 0)
            }
            if let batch { return batch }
            if finished { return nil }
            progress.wait()
        }
    }

    private func readUntilWalked() {
        // The tables this thread parses stay in its malloc arena; grown a
        // page at a time, that is one mprotect per page (17,000 for 50,000
        // small tables). Grow it once, up front (the pages go back at once).
        lproj_prepare_thread_heap(32 << 20)
        while true {
            work.wait()
            let (paths, finished) = state.withLock { state -> ([String]?, Bool) in
                if !state.pending.isEmpty { return (state.pending.removeFirst(), false) }
                return (nil, state.walked)
            }
            if let paths {
                let batch = Catalog.load(paths, limits: limits, exclusions: exclusions, inParallel: false, listed: true)
                state.withLock {
                    $0.ready.append(batch)
                    $0.reading -= 1
                }
                progress.signal()
            } else if finished {
                return
            }
        }
    }
}
