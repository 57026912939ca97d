import CLinux
import Glibc

/// What this thread read last from each bundle (up to 4 at once): the
/// snapshot, with this thread's copies of its views (`HeldSnapshot`), held
/// with a strong reference. A read checks that the snapshot it holds is
/// still the one the bundle publishes (one atomic load of an address, which
/// the held reference keeps from being reused) and reads it without the
/// bundle's lock and without writing anything another thread reads. What
/// the bundle has replaced since stays alive until this thread's next read
/// of that bundle, or until the thread ends.
enum ThreadHolds {
    /// A bundle's core (its address, compared only: never dereferenced), the held snapshot's address and the hold.
    private struct Entry {
        var core: UnsafeMutableRawPointer?
        var address: UInt = 0
        var held: Unmanaged<HeldSnapshot>?
    }

    /// Bundles a thread holds for at once (the least recent one makes room).
    private static let capacity = 4

    /// What this thread holds for `core` when it holds the snapshot at
    /// `published`, unretained (the thread's reference keeps it alive until
    /// this thread replaces it); nil otherwise.
    @inline(__always)
    static func held(for core: UnsafeMutableRawPointer, published: UInt) -> Unmanaged<HeldSnapshot>? {
        guard let held = lproj_thread_holds_get() else { return nil }
        let entries = held.assumingMemoryBound(to: Entry.self)
        for index in 0..<capacity where entries[index].core == core {
            return entries[index].address == published ? entries[index].held : nil
        }
        return nil
    }

    /// What this thread holds for `core`, whichever snapshot it is, unretained.
    static func anyHeld(for core: UnsafeMutableRawPointer) -> Unmanaged<HeldSnapshot>? {
        guard let held = lproj_thread_holds_get() else { return nil }
        let entries = held.assumingMemoryBound(to: Entry.self)
        for index in 0..<capacity where entries[index].core == core { return entries[index].held }
        return nil
    }

    /// This thread's word: the address of its holds, made now if it has none
    /// (unique among the threads running; read back by
    /// `lproj_thread_holds_get()`).
    static var token: UInt {
        UInt(bitPattern: lproj_thread_holds_get() ?? UnsafeMutableRawPointer(entries()))
    }

    /// Holds `held` for `core` on this thread (releasing what was held before).
    static func hold(_ held: HeldSnapshot, for core: UnsafeMutableRawPointer) {
        let (entry, evicted) = making(core)
        let old = entry.pointee.held
        entry.pointee.held = .passRetained(held)
        entry.pointee.address = UInt(bitPattern: Unmanaged.passUnretained(held.snapshot).toOpaque())
        // Let go last: what a release ends may read a bundle on this thread again.
        old?.release()
        evicted?.held?.release()
    }

    /// `core`'s entry, made first (the least recent one evicted when all are
    /// taken: the caller lets go of it once done with the entries); moved to
    /// the front, where a service's one bundle is found at once.
    private static func making(_ core: UnsafeMutableRawPointer) -> (entry: UnsafeMutablePointer<Entry>, evicted: Entry?) {
        let entries = entries()
        var index = 0
        while index < capacity - 1, entries[index].core != nil, entries[index].core != core { index += 1 }
        let found = entries[index]
        var moved = index
        while moved > 0 { entries[moved] = entries[moved - 1]; moved -= 1 }
        entries[0] = found.core == core ? found : Entry(core: core)
        return (entries, found.core == core ? nil : found)
    }

    /// This thread's entries, made first.
    private static func entries() -> UnsafeMutablePointer<Entry> {
        if let held = lproj_thread_holds_get() { return held.assumingMemoryBound(to: Entry.self) }
        let entries = UnsafeMutablePointer<Entry>.allocate(capacity: capacity)
        entries.initialize(repeating: Entry(), count: capacity)
        lproj_thread_holds_set(entries)
        // The key only lets go of them when the thread ends; reads use the thread-local word.
        pthread_setspecific(endOfThread, entries)
        return entries
    }

    /// Run when a thread that held something ends: lets go of it.
    private static let endOfThread: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { held in
            guard let entries = held?.assumingMemoryBound(to: Entry.self) else { return }
            lproj_thread_holds_set(nil)
            for index in 0..<ThreadHolds.capacity { entries[index].held?.release() }
            entries.deallocate()
        }
        precondition(status == 0, "pthread_key_create: \(status)")
        return key
    }()
}
