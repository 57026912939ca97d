import LprojTables

/// What one thread holds of a bundle's snapshot: the snapshot, and the
/// thread's own copies of the views it hands out from it and of the tables
/// they look up.
///
/// Whatever a lookup returns is retained by its caller: a view, a string.
/// Were two threads handed the same objects, each lookup would write a
/// reference count on a cache line the other core wrote last, and two
/// threads serving requests would do about the work of one (measured:
/// 0.9–1.1× one thread, where two threads each with a bundle of its own do
/// 1.95×). So each thread gets a copy of each view it asks for, sharing the
/// snapshot's parsed tables (nothing is read or parsed twice) but with its
/// own made entries (`Table.materializedForOneThread()`): on its thread, a
/// lookup writes only what that thread reads. What that costs is the
/// strings a thread looks up, once per thread, and a small object per view.
///
/// A thread's first request for a header (or preference list) on this
/// snapshot takes the snapshot's shared view for it — made once per state,
/// whichever thread asks first — and copies it; headers that come to one
/// view get one copy. The copies go with the hold: at the thread's next
/// read of the bundle after a swap, or when the thread ends. The tables'
/// copies pass on to the next hold while the new snapshot still has the
/// table (an edit of one table does not make a thread build every other
/// table's strings again).
///
/// Used by its own thread only: no lock.
final class HeldSnapshot {
    let snapshot: LiveSnapshot
    /// This thread's copy of the snapshot's active view (`bundle.current`).
    let active: LiveBundle.Localization
    /// The thread's `ThreadHolds` word: what a copy checks its lookups' thread against.
    private let owner: UInt
    /// This thread's copies by the header (or preference list) they were asked with.
    private var byKey: RequestViews?
    /// The copies of views and tables made so far.
    private var made: Made

    /// A hold of `snapshot` by the thread whose `ThreadHolds` word is
    /// `owner`, taking over the table copies of the hold it replaces.
    init(_ snapshot: LiveSnapshot, owner: UInt, replacing earlier: HeldSnapshot?) {
        self.snapshot = snapshot
        self.owner = owner
        // Only copies of tables this snapshot still has pass on: a replaced table's strings go with the hold before.
        var kept: [ObjectIdentifier: Table] = [:]
        if let earlier = earlier?.made.tables, !earlier.isEmpty {
            for localization in snapshot.tables.values {
                for table in (localization.loaded ?? [:]).values { kept[table.identity] = earlier[table.identity] }
            }
        }
        var made = Made(earlierTables: kept)
        active = made.copy(of: snapshot.active, owner: owner)
        self.made = made
    }

    /// The copy kept for `key` (whose hash is `hash`), or nil.
    @inline(__always)
    func view(for key: String, hash: UInt64) -> LiveBundle.Localization? {
        byKey?.view(for: key, hash: hash)
    }

    /// Keeps this thread's copy of `view` (one of the snapshot's) for `key`;
    /// returns the copy. Past `LiveSnapshot.viewLimit` headers the thread's
    /// table starts over, as the shared one does: a hostile header cannot
    /// grow memory.
    func keep(_ view: LiveBundle.Localization, for key: String, hash: UInt64) -> LiveBundle.Localization {
        let copy = copy(of: view)
        let table = byKey ?? RequestViews(limit: LiveSnapshot.viewLimit)
        if let kept = table.keep(copy, for: key, hash: hash) {
            byKey = table
            return kept
        }
        let next = table.grown() ?? RequestViews(limit: LiveSnapshot.viewLimit)
        byKey = next
        return next.keep(copy, for: key, hash: hash) ?? copy
    }

    /// How many headers this thread has copies for (for tests).
    var keptCount: Int { byKey?.count ?? 0 }

    /// How many tables this thread has copies of (for tests).
    var tableCount: Int { made.tables.count }

    /// This thread's copy of `view`, made once.
    private func copy(of view: LiveBundle.Localization) -> LiveBundle.Localization {
        made.copy(of: view, owner: owner)
    }

    /// The copies a hold has made.
    private struct Made {
        /// The copy made of each of the snapshot's views (the view kept beside it, so that its address stays its own).
        var views: [ObjectIdentifier: (view: LiveBundle.Localization, copy: LiveBundle.Localization)] = [:]
        /// This thread's copy of each table its views look up, by the table's identity; and those of the hold
        /// before, taken over when this snapshot's views look them up too.
        var tables: [ObjectIdentifier: Table] = [:]
        var earlierTables: [ObjectIdentifier: Table]

        init(earlierTables: [ObjectIdentifier: Table]) {
            self.earlierTables = earlierTables
        }

        /// The copy of `view` for the thread whose word is `owner`, made once.
        mutating func copy(of view: LiveBundle.Localization, owner: UInt) -> LiveBundle.Localization {
            if let made = views[ObjectIdentifier(view)] { return made.copy }
            if views.count >= LiveSnapshot.viewLimit { views.removeAll(keepingCapacity: true) }
            let made = LiveBundle.Localization(copying: view, owner: owner) { table($0) }
            views[ObjectIdentifier(view)] = (view, made)
            return made
        }

        /// This thread's copy of `table`: the one made before (by this hold or the one it replaced), else a new one.
        private mutating func table(_ table: Table) -> Table {
            if let made = tables[table.identity] { return made }
            let made = earlierTables.removeValue(forKey: table.identity) ?? table.materializedForOneThread()
            tables[table.identity] = made
            return made
        }
    }
}
