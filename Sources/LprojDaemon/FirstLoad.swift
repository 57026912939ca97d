#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import CLinux
import Foundation
import LprojCatalog
import LprojTables
import LprojWatch
import Synchronization

/// The first load, overlapped with the walk that sets up the watches: each
/// batch of directories the walk lists is read and parsed by a worker
/// thread at once, while the walk goes on, and taken into the catalog by
/// the same thread once the walk is over (when room for every file listed
/// is made at once).
///
/// The catalog is the first load's until `finish` returns: the workers take
/// their batches in one at a time (under a lock), so the tables go into the
/// catalog from the thread that made them (no other core touches every new
/// table once more). The workers are threads of its own that end with the
/// load (pooled threads would linger and wake an idle daemon when reaped).
final class FirstLoad: Sendable {
    private struct State {
        var pending: [[ListedDirectory]] = []
        var reading = 0
        var walked = false
        var tableFiles = 0
    }

    private let exclusions: Exclusions
    private let state = Mutex(State())
    /// Guards `catalog` while the load has it; counts the files taken in.
    private let applying = Mutex(0)
    /// Lent by the caller until `finish`; used only under `applying`.
    private nonisolated(unsafe) let catalog: Catalog
    /// Signalled for each batch listed, and once per worker when the walk is over.
    private let work = DispatchSemaphore(value: 0)
    /// Signalled when a batch has been taken in, and when the walk is over.
    private let progress = DispatchSemaphore(value: 0)
    private let workers: Int

    /// Starts one worker per processor, loading into `catalog` (which the
    /// caller must not touch until `finish` returns).
    init(into catalog: Catalog, exclusions: Exclusions) {
        self.catalog = catalog
        self.exclusions = exclusions
        workers = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        for number in 0..<workers {
            let thread = Thread { [self] in readUntilWalked() }
            thread.name = "lprojd-load-\(number)"
            thread.start()
        }
    }

    /// Has the files of `directories` read by a worker; any thread may call it.
    func read(_ directories: [ListedDirectory]) {
        let tableFiles = directories.reduce(0) { count, directory in count + directory.files.count { TableFormat(path: $0) != nil } }
        state.withLock {
            $0.pending.append(directories)
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

    /// Waits until the walk is over and every file listed is in the
    /// catalog; returns how many files were taken in. The catalog is the
    /// caller's again.
    func finish() -> Int {
        while !state.withLock({ $0.walked && $0.reading == 0 }) { progress.wait() }
        return applying.withLock { $0 }
    }

    private func readUntilWalked() {
        // The tables this thread parses stay in its malloc arena; grown a
        // page at a time, that is one mprotect per page (17,000 for 50,000
        // small tables), and trimmed whenever its top is free. Grow it once,
        // up front, and hold its top until this thread is done; then what
        // is left unused is given back.
        let heap = lproj_prepare_thread_heap(32 << 20)
        defer { lproj_release_thread_heap(heap) }
        var reader = TableFileReader(limits: applying.withLock { _ in catalog.limits })
        // Batches read but not yet taken in. They are taken in once the
        // walk is over (room for every file listed is made at once: the
        // catalog never grows step by step) and then whenever the catalog
        // is free: a worker that finds it busy reads on and takes them in
        // later (it never waits on it while there is reading to do).
        var unapplied: [[Catalog.Loaded]] = []
        while true {
            work.wait()
            let (directories, walked) = state.withLock { state -> ([ListedDirectory]?, Bool) in
                if !state.pending.isEmpty { return (state.pending.removeFirst(), state.walked) }
                return (nil, state.walked)
            }
            if let directories {
                unapplied.append(Catalog.load(directories, with: &reader, exclusions: exclusions, inParallel: false, listed: true))
                if walked, let taken = applying.withLockIfAvailable({ apply(&unapplied, counting: &$0) }) { done(taken) }
            } else if walked {
                done(applying.withLock { apply(&unapplied, counting: &$0) })
                return
            }
        }
    }

    /// Takes `batches` into the catalog (with `applying` held); returns how many batches.
    private func apply(_ batches: inout [[Catalog.Loaded]], counting count: inout Int) -> Int {
        catalog.reserveCapacity(files: state.withLock { $0.tableFiles })
        let taken = batches.count
        // Moved out in order (a batch copied would be copied again to be consumed).
        batches.reverse()
        while let batch = batches.popLast() {
            count += batch.count
            // Nobody listens yet: the state only.
            _ = catalog.apply(batch, reporting: false)
        }
        return taken
    }

    /// Says that `batches` batches are in the catalog.
    private func done(_ batches: Int) {
        guard batches > 0 else { return }
        state.withLock { $0.reading -= batches }
        progress.signal()
    }
}
