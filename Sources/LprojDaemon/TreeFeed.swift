import LprojFormats
import LprojTables
import LprojWatch

/// The watched tree's side of the core: reads batches, reads the table
/// files the core asks for (and what the watcher queued meanwhile), lists
/// polled directories, crawls for a rescan, drops and settles `sync`
/// markers — the I/O the core's decisions need, and no decision of its own.
/// The shell's loop and the tests that drive a core in one process both
/// feed the core through one.
final class TreeFeed {
    let tree: WatchedTree
    private var markers: MarkerSync<DaemonCore.PendingSync>
    /// Reads what the core asks for (its buffer kept from one save to the next).
    private var reader: TableFileReader

    /// Watches the roots of `core` and reads every table file under them
    /// into its served tables (nothing is published: nobody listens yet). The tree
    /// is watched a directory at a time, each watched and then listed: a
    /// change made meanwhile is seen twice (listed and as an event), never
    /// missed. What is listed is read on worker threads while the walk goes
    /// on. Returns the files read; throws when inotify cannot start.
    init(core: DaemonCore, noteSkipped: @escaping (String, String) -> Void) throws(WatchedTree.StartError) {
        let tables = core.tables
        let exclusions = tables.exclusions
        TableReading.warmUp()
        reader = TableFileReader(limits: core.configuration.limits.tableLimits)
        let firstLoad = FirstLoad(limits: core.configuration.limits.tableLimits, exclusions: exclusions, links: tables.links, keys: tables.keyShelf)
        let walked: Result<WatchedTree, WatchedTree.StartError>
        do throws(WatchedTree.StartError) {
            walked = .success(try WatchedTree(roots: core.roots, isExcluded: { exclusions.excludes($0) }, links: tables.links,
                                              polled: core.polledRoots.keys.map(\.string), noteSkipped: noteSkipped,
                                              listed: { firstLoad.read($0) }))
        } catch {
            walked = .failure(error)
        }
        firstLoad.walkFinished()
        // What the workers read is taken in here, as it comes.
        var loaded = 0
        while let batch = firstLoad.nextBatch() {
            loaded += batch.count
            _ = tables.apply(consume batch, reporting: false)
        }
        firstLoad.batchesTaken()
        core.firstLoadFinished()
        filesRead = loaded
        tree = try walked.get()
        markers = MarkerSync(tree: tree)
    }

    /// How many table files the first load read.
    let filesRead: Int

    /// What the tree says of itself, for the core.
    var status: DaemonCore.TreeStatus {
        DaemonCore.TreeStatus(watches: tree.watchCount, unwatched: tree.unwatchedCount, descriptorLimitReached: tree.descriptorLimitReached,
                              isPolling: tree.isPolling, markersUnsent: markers.hasUnsent, polledRoots: tree.polledRoots)
    }

    /// Reads with `limits` from now on (a reload).
    func setLimits(_ limits: TableLimits) {
        guard limits != reader.limits else { return }
        reader = TableFileReader(limits: limits)
    }

    /// Reads one batch if one is queued and hands it to the core; false when none was.
    @discardableResult
    func readBatch(into core: DaemonCore, at now: ContinuousClock.Instant = .now) -> Bool {
        let reading = ContinuousClock.now
        guard let batch = tree.readBatch(waiting: false) else { return false }
        handle(batch, core: core, read: ContinuousClock.now - reading, at: now)
        return true
    }

    /// A batch's changes read and handed to the core; the markers it brought back settled.
    func handle(_ batch: WatchBatch, core: DaemonCore, read: Duration = .zero, at now: ContinuousClock.Instant) {
        if let paths = core.take(batch, at: now) {
            self.read(paths, into: core, at: now)
            // Only a batch that read something is logged: a log file inside a root would otherwise feed itself (a write, a line, a write…).
            if !paths.isEmpty {
                core.log.debug("batch of \(batch.events.count) file event(s) read in \(read), handled in \(ContinuousClock.now - now)")
            }
        } else {
            rescan(into: core)
        }
        // New directories may have met a limit (or freed watches let polled ones be watched).
        if tree.isPolling || core.mayNeedPolling { core.treeChanged(status, at: now) }
        core.markersArrived(markers.settle(batch))
    }

    /// Reads `paths` and hands the core what was read, with the paths the watcher queued since.
    func read(_ paths: [String], into core: DaemonCore, holdingEmpty: Bool = true, at now: ContinuousClock.Instant) {
        guard !paths.isEmpty else { return }
        let loaded = TableReading.load(paths, with: &reader, exclusions: core.tables.exclusions, links: core.tables.links, keys: core.tables.keyShelf)
        core.apply(loaded, queued: tree.queuedPaths(), holdingEmpty: holdingEmpty, at: now)
        if !core.kernelLimits.unreadable.isEmpty { core.treeChanged(status, at: now) }
    }

    /// Every root crawled and every known file read (after an overflow).
    func rescan(into core: DaemonCore) {
        let crawled = TableReading.crawl(roots: core.roots, exclusions: core.tables.exclusions, links: core.tables.links)
        let paths = core.rescanPaths(crawled: crawled)
        core.rescanned(TableReading.load(paths, with: &reader, exclusions: core.tables.exclusions, links: core.tables.links, keys: core.tables.keyShelf))
    }

    /// What the timer is for: the reads whose wait is over, and a poll when one is due.
    func timerFired(into core: DaemonCore, at now: ContinuousClock.Instant = .now) {
        read(core.due(at: now), into: core, holdingEmpty: false, at: now)
        guard core.pollIsDue(at: now) else { return }
        let events = tree.pollUnwatched()
        if !events.isEmpty, let paths = core.take(WatchBatch(events: events, signals: [], overflowed: false), at: now) {
            read(paths, into: core, at: now)
        }
        read(core.takeUnreadable(), into: core, at: now)
        markers.resend()
        core.treeChanged(status, at: now)
    }

    /// Makes the tree follow a reload the core applied (`DaemonCore.apply`):
    /// the new exclusions, links and polled roots; roots dropped, added, or
    /// switched between polled and watched (walked anew); then every root
    /// walked again and every table file read, so what is served equals a
    /// fresh start.
    func follow(_ changes: DaemonCore.RootChanges, of core: DaemonCore, at now: ContinuousClock.Instant = .now) {
        setLimits(core.configuration.limits.tableLimits)
        let exclusions = core.tables.exclusions
        tree.setExclusion { exclusions.excludes($0) }
        tree.setLinkPolicy(core.tables.links)
        // Every root is polled or watched by the new rules (statfs asked again): a kept root
        // that changes over is walked anew (its tables stay; only real differences are published).
        for root in changes.switched { tree.removeRoot(root) }
        tree.setPolledRoots(core.polledRoots.keys.map(\.string))
        for root in changes.gone { tree.removeRoot(root) }
        var listed: [String] = []
        for root in changes.added + changes.switched {
            do {
                listed += try tree.addRoot(root)
                core.log.info("reload: watching \(root)")
            } catch {
                core.log.error("reload: cannot watch \(root): \(error.description)")
            }
        }
        listed += tree.rewalk()
        read(core.pathsToReadAfterReload(listed: listed), into: core, at: now)
        core.treeChanged(status, at: now)
    }

    /// Drops a marker for each `sync` the core was asked for.
    func dropMarkers(for core: DaemonCore) {
        let syncs = core.takeSyncRequests()
        guard !syncs.isEmpty else { return }
        for sync in syncs { markers.request(sync) }
        // A marker that could not be made (no descriptor left) is made again at the next poll.
        if markers.hasUnsent { core.treeChanged(status) }
    }

    func close() {
        tree.close()
    }
}
