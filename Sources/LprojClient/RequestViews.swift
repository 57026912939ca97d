import LprojTables

/// The views made for requests, by the bytes of the header (or preference
/// list) each was asked with: what a request resolves through on every
/// call. An open-addressing table keyed by the tables' fast hash of those
/// bytes, whose slots keep the whole hash, so a probe compares bytes only
/// for the one slot that is almost surely the header's (a `Dictionary` of
/// names compares through `String` and retains each key it looks at).
/// Bounded: past `limit` views it starts over.
struct RequestViews {
    private struct Slot {
        var hash: UInt64
        var key: String
        var view: LiveBundle.Localization
    }

    /// Empty until the first view is kept (a snapshot is swapped in on every save), then grown by doubling, at most half full.
    private var slots: [Slot?] = []
    private(set) var count = 0
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// The key of a view made for an `Accept-Language` header.
    static func key(acceptLanguage header: String) -> String {
        header
    }

    /// The key of a view made for a list of preferences (NUL never appears in a header).
    static func key(preferences: [String]) -> String {
        "\u{0}" + preferences.joined(separator: "\u{0}")
    }

    /// The hash a key is kept under.
    static func hash(_ key: String) -> UInt64 {
        TableHash.hash(key)
    }

    /// The view kept for `key` (whose hash is `hash`), or nil.
    @inline(__always)
    func view(for key: String, hash: UInt64) -> LiveBundle.Localization? {
        slots.withUnsafeBufferPointer { slots in
            guard !slots.isEmpty else { return nil }
            let mask = slots.count - 1
            var index = Int(truncatingIfNeeded: hash) & mask
            while let slot = slots[index] {
                if slot.hash == hash, PathBytes.equal(slot.key, key) { return slot.view }
                index = (index + 1) & mask
            }
            return nil
        }
    }

    /// Keeps `view` for `key` (whose hash is `hash`), unless one is kept already: returns the view kept.
    mutating func keep(_ view: LiveBundle.Localization, for key: String, hash: UInt64) -> LiveBundle.Localization {
        if let existing = self.view(for: key, hash: hash) { return existing }
        if count >= limit {
            slots = []
            count = 0
        }
        if (count + 1) * 2 > slots.count { grow() }
        place(Slot(hash: hash, key: key, view: view))
        count += 1
        return view
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: nil, count: max(16, old.count * 2))
        for case let slot? in old { place(slot) }
    }

    private mutating func place(_ slot: Slot) {
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: slot.hash) & mask
        while slots[index] != nil { index = (index + 1) & mask }
        slots[index] = slot
    }
}
