import CLinux
import Glibc

/// What this thread read last from each bundle (up to 4 at once): the
/// snapshot, and the table of request views, each held with a strong
/// reference. A read checks that what it holds is still what the bundle
/// publishes (one atomic load of an address, which the held reference
/// keeps from being reused) and reads it without the bundle's lock, so
/// threads reading one bundle do not take turns on one lock. What the
/// bundle has replaced since (a new snapshot, a bigger table) stays alive
/// until this thread's next read of that kind on that bundle, or until it
/// ends.
enum ThreadHolds {
    /// A bundle's core (its address, compared only: never dereferenced) and what is held for it.
    private struct Entry {
        var core: UnsafeMutableRawPointer?
        var snapshot: Unmanaged<LiveSnapshot>?
        var views: Unmanaged<RequestViews>?
    }

    /// Bundles a thread holds for at once (the least recent one makes room).
    private static let capacity = 4

    /// The snapshot this thread holds for `core`, unretained (the thread's
    /// reference keeps it alive until this thread replaces it).
    @inline(__always)
    static func snapshot(for core: UnsafeMutableRawPointer) -> Unmanaged<LiveSnapshot>? {
        entry(for: core)?.pointee.snapshot
    }

    /// The request-views table this thread holds for `core`, unretained.
    @inline(__always)
    static func views(for core: UnsafeMutableRawPointer) -> Unmanaged<RequestViews>? {
        entry(for: core)?.pointee.views
    }

    /// Holds `snapshot` for `core` on this thread (releasing the one held before).
    static func hold(_ snapshot: LiveSnapshot, for core: UnsafeMutableRawPointer) {
        hold(snapshot, at: \.snapshot, for: core)
    }

    /// Holds `views` for `core` on this thread (releasing the table held before).
    static func hold(_ views: RequestViews, for core: UnsafeMutableRawPointer) {
        hold(views, at: \.views, for: core)
    }

    private static func hold<Object: AnyObject>(_ object: Object, at field: WritableKeyPath<Entry, Unmanaged<Object>?>,
                                                for core: UnsafeMutableRawPointer) {
        let (entry, evicted) = making(core)
        let old = entry.pointee[keyPath: field]
        entry.pointee[keyPath: field] = .passRetained(object)
        // Let go last: what a release ends may read a bundle on this thread again.
        old?.release()
        evicted.map(release)
    }

    @inline(__always)
    private static func entry(for core: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Entry>? {
        guard let held = lproj_thread_holds_get() else { return nil }
        let entries = held.assumingMemoryBound(to: Entry.self)
        for index in 0..<capacity where entries[index].core == core { return entries + index }
        return nil
    }

    /// `core`'s entry, made first (the least recent one evicted when all are
    /// taken: the caller lets go of it once done with the entries); moved to
    /// the front, where a service's one bundle is found at once.
    private static func making(_ core: UnsafeMutableRawPointer) -> (entry: UnsafeMutablePointer<Entry>, evicted: Entry?) {
        let entries: UnsafeMutablePointer<Entry>
        if let held = lproj_thread_holds_get() {
            entries = held.assumingMemoryBound(to: Entry.self)
        } else {
            entries = .allocate(capacity: capacity)
            entries.initialize(repeating: Entry(), count: capacity)
            lproj_thread_holds_set(entries)
            // The key only lets go of them when the thread ends; reads use the thread-local word.
            pthread_setspecific(endOfThread, entries)
        }
        var index = 0
        while index < capacity - 1, entries[index].core != nil, entries[index].core != core { index += 1 }
        let found = entries[index]
        var moved = index
        while moved > 0 { entries[moved] = entries[moved - 1]; moved -= 1 }
        entries[0] = found.core == core ? found : Entry(core: core)
        return (entries, found.core == core ? nil : found)
    }

    private static func release(_ entry: Entry) {
        entry.snapshot?.release()
        entry.views?.release()
    }

    /// Run when a thread that held something ends: lets go of it.
    private static let endOfThread: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { held in
            guard let entries = held?.assumingMemoryBound(to: Entry.self) else { return }
            lproj_thread_holds_set(nil)
            for index in 0..<ThreadHolds.capacity { ThreadHolds.release(entries[index]) }
            entries.deallocate()
        }
        precondition(status == 0, "pthread_key_create: \(status)")
        return key
    }()
}
