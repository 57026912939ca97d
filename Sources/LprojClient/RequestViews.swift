import CLinux
import Glibc
@_spi(LprojInternals) import LprojPaths
import LprojTables

/// One thread's views of one snapshot (`HeldSnapshot`), by the bytes of
/// the header (or preference list) each was asked with: what a request
/// resolves through on every call. An open-addressing table keyed by the
/// tables' fast hash of those bytes, of fixed capacity.
///
/// A probe reads only words and bytes and retains once, the view it
/// returns. The hashes are an array of their own (8 a cache line: a probe
/// passes other keys' slots there), and a slot is one cache line holding
/// its view and a key of up to 48 bytes (most headers): a cached header
/// costs a line of hashes, its slot's line and the view's. A slot's key
/// and view are written before its hash (release order; read with acquire
/// order), and a written slot never changes, so the table could be read
/// beside its writer; its one thread does both. When a view does not fit
/// (`keep` returns nil) the holder makes a table twice the size with the
/// same views (`grown()`), or past `limit` views an empty one: a hostile
/// header cannot grow memory.
final class RequestViews: @unchecked Sendable {
    /// A slot's layout: the view (retained), the key's length, then the
    /// key's bytes when they fit, else a pointer to them.
    private enum Layout {
        static let size = 64
        static let view = 0
        static let count = 8
        static let key = 16
        static let inlineKey = size - key
    }

    /// Each slot's hash (`hash(_:seed:)` sets its low bit); 0 is an empty slot.
    private let hashes: UnsafeMutablePointer<UInt64>
    /// `capacity` slots of `Layout.size` bytes, one cache line each; written where the hash is not 0.
    private let slots: UnsafeMutableRawPointer
    /// A power of two; at most half of it is used.
    let capacity: Int
    let limit: Int
    /// Changed by the writer only.
    private(set) var count = 0

    /// The capacity of a snapshot's first table.
    static let firstCapacity = 16

    init(capacity: Int = RequestViews.firstCapacity, limit: Int) {
        precondition(capacity > 0 && capacity & (capacity - 1) == 0, "a power of two")
        self.capacity = capacity
        self.limit = limit
        hashes = .allocate(capacity: capacity)
        hashes.initialize(repeating: 0, count: capacity)
        slots = .allocate(byteCount: capacity * Layout.size, alignment: Layout.size)
    }

    deinit {
        for index in 0..<capacity where hashes[index] != 0 {
            let slot = slots + index * Layout.size
            Unmanaged<LiveBundle.Localization>.fromOpaque(slot.load(fromByteOffset: Layout.view, as: UnsafeRawPointer.self)).release()
            if slot.load(fromByteOffset: Layout.count, as: Int.self) > Layout.inlineKey {
                slot.load(fromByteOffset: Layout.key, as: UnsafeMutableRawPointer.self).deallocate()
            }
        }
        slots.deallocate()
        hashes.deallocate()
    }

    /// The key of a view made for a list of preferences. (A header is its
    /// own key, passed as it is: a function returning it would copy it, a
    /// retain and a release a request. NUL never appears in a header.)
    static func key(preferences: [String]) -> String {
        "\u{0}" + preferences.joined(separator: "\u{0}")
    }

    /// The hash a key is kept under (`seed`: `ByteHash.seed`).
    @inline(__always)
    static func hash(_ key: String, seed: UInt64) -> UInt64 {
        ByteHash.hash(key, seed: seed) | 1
    }

    /// The view kept for `key` (whose hash is `hash`), or nil. Safe beside the writer.
    @inline(__always)
    func view(for key: String, hash: UInt64) -> LiveBundle.Localization? {
        if let found = key.utf8.withContiguousStorageIfAvailable({ view(for: $0, hash: hash) }) { return found }
        var key = key
        return key.withUTF8 { view(for: $0, hash: hash) }
    }

    @inline(__always)
    private func view(for key: UnsafeBufferPointer<UInt8>, hash: UInt64) -> LiveBundle.Localization? {
        let mask = capacity - 1
        var index = Int(truncatingIfNeeded: hash) & mask
        while true {
            let stored = lproj_load_acquire(hashes + index)
            if stored == 0 { return nil }
            let slot = slots + index * Layout.size
            if stored == hash {
                // Compared here, not through `PathBytes.equal`: its call showed in a request's profile.
                let kept = Self.key(of: slot)
                if kept.count == key.count, key.isEmpty || memcmp(kept.baseAddress!, key.baseAddress!, key.count) == 0 {
                    return Unmanaged<LiveBundle.Localization>.fromOpaque(slot.load(fromByteOffset: Layout.view, as: UnsafeRawPointer.self))
                        .takeUnretainedValue()
                }
            }
            index = (index + 1) & mask
        }
    }

    /// Keeps `view` for `key` (whose hash is `hash`) unless one is kept
    /// already: the view kept, or nil when this table is full (at half its
    /// capacity, or at `limit` views). The writer alone calls it.
    func keep(_ view: LiveBundle.Localization, for key: String, hash: UInt64) -> LiveBundle.Localization? {
        if let existing = self.view(for: key, hash: hash) { return existing }
        guard count < limit, (count + 1) * 2 <= capacity else { return nil }
        var key = key
        key.withUTF8 { place(hash: hash, key: $0, view: Unmanaged.passRetained(view).toOpaque()) }
        return view
    }

    /// A table of twice the capacity holding these views (nil past `limit`:
    /// then the core starts over with an empty one).
    func grown() -> RequestViews? {
        guard count < limit else { return nil }
        let table = RequestViews(capacity: capacity * 2, limit: limit)
        for index in 0..<capacity where hashes[index] != 0 {
            let slot = slots + index * Layout.size
            let hash = hashes[index]
            let view = slot.load(fromByteOffset: Layout.view, as: UnsafeRawPointer.self)
            _ = Unmanaged<LiveBundle.Localization>.fromOpaque(view).retain()
            table.place(hash: hash, key: Self.key(of: slot), view: view)
        }
        return table
    }

    /// The bytes of the key in `slot`.
    @inline(__always)
    private static func key(of slot: UnsafeMutableRawPointer) -> UnsafeBufferPointer<UInt8> {
        let count = slot.load(fromByteOffset: Layout.count, as: Int.self)
        let bytes = count > Layout.inlineKey
            ? slot.load(fromByteOffset: Layout.key, as: UnsafeRawPointer.self) : UnsafeRawPointer(slot + Layout.key)
        return UnsafeBufferPointer(start: bytes.assumingMemoryBound(to: UInt8.self), count: count)
    }

    /// Writes a slot: the key and the (retained) view first, the hash last.
    private func place(hash: UInt64, key: UnsafeBufferPointer<UInt8>, view: UnsafeRawPointer) {
        let mask = capacity - 1
        var index = Int(truncatingIfNeeded: hash) & mask
        while hashes[index] != 0 { index = (index + 1) & mask }
        let slot = slots + index * Layout.size
        slot.storeBytes(of: view, toByteOffset: Layout.view, as: UnsafeRawPointer.self)
        slot.storeBytes(of: key.count, toByteOffset: Layout.count, as: Int.self)
        if key.count > Layout.inlineKey {
            let copy = UnsafeMutableRawPointer.allocate(byteCount: key.count, alignment: 1)
            copy.copyMemory(from: key.baseAddress!, byteCount: key.count)
            slot.storeBytes(of: copy, toByteOffset: Layout.key, as: UnsafeMutableRawPointer.self)
        } else if let base = key.baseAddress {
            (slot + Layout.key).copyMemory(from: base, byteCount: key.count)
        }
        lproj_store_release(hashes + index, hash)
        count += 1
    }
}
