import CLinux
import Glibc

/// The request-views tables this thread read last, one per bundle, each
/// held with a strong reference: a request checks that its bundle's table
/// is still the one published (one atomic load) and probes it without the
/// bundle's lock, so request threads do not take turns on one lock. A table
/// the bundle has replaced (a new snapshot, or a bigger table) stays alive
/// until this thread's next request on that bundle, or until it ends.
enum ThreadRequestViews {
    /// A bundle's core (its address, compared only: never dereferenced) and the table held for it.
    private struct Entry {
        var core: UnsafeMutableRawPointer?
        var table: Unmanaged<RequestViews>?
    }

    /// Bundles a thread keeps a table for at once (the least recent one makes room).
    private static let entries = 4

    /// The table this thread holds for `core`, unretained (the thread's
    /// reference keeps it alive until this thread replaces it).
    @inline(__always)
    static func held(for core: UnsafeMutableRawPointer) -> Unmanaged<RequestViews>? {
        guard let held = lproj_thread_request_views_get() else { return nil }
        let entries = held.assumingMemoryBound(to: Entry.self)
        for index in 0..<Self.entries where entries[index].core == core { return entries[index].table }
        return nil
    }

    /// Holds `table` for `core` on this thread (releasing the one held before).
    static func hold(_ table: RequestViews, for core: UnsafeMutableRawPointer) {
        let entries: UnsafeMutablePointer<Entry>
        if let held = lproj_thread_request_views_get() {
            entries = held.assumingMemoryBound(to: Entry.self)
        } else {
            entries = .allocate(capacity: Self.entries)
            entries.initialize(repeating: Entry(), count: Self.entries)
            lproj_thread_request_views_set(entries)
            // The key only runs `release` when the thread ends; requests read the thread-local word.
            pthread_setspecific(endOfThread, entries)
        }
        var index = 0
        while index < Self.entries - 1, entries[index].core != nil, entries[index].core != core { index += 1 }
        if entries[index].core == core, entries[index].table?.toOpaque() == Unmanaged.passUnretained(table).toOpaque() { return }
        let old = entries[index].table
        // The most recent first: a service's one bundle is found at the first entry.
        var moved = index
        while moved > 0 { entries[moved] = entries[moved - 1]; moved -= 1 }
        entries[0] = Entry(core: core, table: .passRetained(table))
        old?.release()
    }

    /// Run when a thread that held tables ends: releases them.
    private static let endOfThread: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { held in
            guard let entries = held?.assumingMemoryBound(to: Entry.self) else { return }
            lproj_thread_request_views_set(nil)
            for index in 0..<ThreadRequestViews.entries { entries[index].table?.release() }
            entries.deallocate()
        }
        precondition(status == 0, "pthread_key_create: \(status)")
        return key
    }()
}
