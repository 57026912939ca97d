/// The index of a materialized table: each slot holds the entry itself
/// (strings made once) beside where its key's bytes are, so that a hit
/// touches the slot, the key's bytes and the returned string — nothing
/// else. What a client that looks up often wants; a daemon's tables do
/// without (about 24 bytes a slot).
struct MaterializedIndex: Sendable {
    /// `key` is 0 for an empty slot; else the key's offset in the text
    /// (32 bits), its length (23 bits), an occupied bit and 8 bits of its
    /// hash at the top.
    struct Slot: Sendable {
        var key: UInt64
        var entry: Entry?
    }

    /// A power of two of them (the only stored property: a table stays 16 bytes).
    private let slots: [Slot]
    private static let occupied: UInt64 = 1 << 55
    private static let longestKey = 1 << 23 - 1

    /// The index of `table`, or nil when a key is too long to be placed
    /// (8 MiB or more: such a table is looked up the plain way).
    init?(_ table: Table) {
        let slotCount = TableStorage.slotCount(for: table.count)
        var slots = [Slot](repeating: Slot(key: 0, entry: nil), count: slotCount)
        let mask = slotCount - 1
        let placed: Bool = table.storage.withIndex { index in
            for position in 0..<table.count {
                let record = index.records[position]
                guard Int(record.keyLength) <= Self.longestKey else { return false }
                let hash = index.hash(ofKeyAt: position)
                var slot = Int(truncatingIfNeeded: hash) & mask
                while slots[slot].key != 0 { slot = (slot + 1) & mask }
                slots[slot] = Slot(key: UInt64(record.keyOffset) | UInt64(record.keyLength) << 32 | Self.occupied | (hash & 0xFF00_0000_0000_0000),
                                   entry: table.entry(at: position))
            }
            return true
        }
        guard placed else { return nil }
        self.slots = slots
    }

    /// The entry whose key is `key` (whose hash is `hash`), with the
    /// table's text at `text`; nil when absent.
    @inline(__always)
    func entry(forKey key: UnsafeRawBufferPointer, hash: UInt64, text: UnsafePointer<UInt8>) -> Entry? {
        let tag = hash >> 56
        return slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while true {
                let word = slots[slot].key
                if word == 0 { return nil }
                if word >> 56 == tag, Int(word >> 32 & 0x7F_FFFF) == key.count,
                   key.count == 0 || memcmp(text + Int(UInt32(truncatingIfNeeded: word)), key.baseAddress!, key.count) == 0 {
                    return slots[slot].entry
                }
                slot = (slot + 1) & mask
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
