import CLinux
/// A table's keys and values: an open-addressing hash index and a record
/// per entry (in file order), back to back, and the UTF-8 text of every
/// key and plain value in the allocation its builder (a parser) wrote it
/// to, which the storage frees. Immutable once made.
///
/// Memory per entry is its text plus 16 bytes of record and about 5 of
/// index (a slot is 4 bytes: 8 bits of the key's hash and the position;
/// 8 bytes in a table of 16 million entries or more), against about 300
/// for a `[String: Entry]` of heap strings; and a lookup hashes the key's
/// bytes once and, on a hit, almost always compares one key.
///
/// The words are plain data (`ManagedBuffer` destroys the header itself).
/// (`ManagedBuffer` cannot be `Sendable`; this one is never written after
/// `make` returns, so tables share it across threads freely.)
///
/// A table mapped from an image (`TableImage`) has no words of its own:
/// its header points into the mapping, which it keeps alive, and its index
/// was made with the image's hash seed, which lookups then use.
final class TableStorage: ManagedBuffer<TableHeader, UInt64> {
    /// The shared storage of every empty table.
    nonisolated(unsafe) static let empty = make(slotCount: 1, records: [], text: UnsafeMutableBufferPointer(start: nil, count: 0), rich: [])

    /// Storage for `records` over `text` (from `malloc`), indexed; it frees
    /// `text` when it goes. When two records have the same key, nothing is
    /// made and `text` is still the caller's: the pairs (earlier, later)
    /// come back instead. (`wideSlots` forces 8-byte slots, for tests.)
    static func make(records: [TableRecord], adopting text: UnsafeMutableBufferPointer<UInt8>, rich: [Entry],
                     wideSlots: Bool = false) -> Result<TableStorage, Duplicates> {
        let storage = make(slotCount: slotCount(for: records.count), records: records, text: text, rich: rich, wide: wideSlots)
        let duplicates = storage.withIndex { index in
            var duplicates: [(earlier: Int, later: Int)] = []
            // A batch of keys is hashed and their slots asked for before any is probed: a big table's index is larger
            // than the cache, and each probe would otherwise wait on memory in turn.
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: Self.insertBatch) { hashes in
                for start in stride(from: 0, to: records.count, by: Self.insertBatch) {
                    let end = min(start + Self.insertBatch, records.count)
                    for position in start..<end {
                        let hash = index.hash(ofKeyAt: position)
                        hashes[position - start] = hash
                        index.prefetchSlot(for: hash)
                    }
                    for position in start..<end {
                        if let earlier = index.insertUnlessPresent(position, hash: hashes[position - start]) {
                            duplicates.append((earlier, position))
                        }
                    }
                }
            }
            return duplicates
        }
        guard duplicates.isEmpty else {
            storage.header.separateText = nil
            return .failure(Duplicates(pairs: duplicates))
        }
        return .success(storage)
    }

    /// Keys hashed ahead of their probes when a table is indexed.
    private static let insertBatch = 16

    /// Records whose keys repeat an earlier record's, in order.
    struct Duplicates: Error {
        var pairs: [(earlier: Int, later: Int)]
    }

    /// The slots for `count` records: a power of two, at most three quarters full.
    static func slotCount(for count: Int) -> Int {
        var slots = 1
        while slots < count + count / 3 + 1 { slots <<= 1 }
        return slots
    }

    /// Unindexed storage of `slotCount` empty slots (a power of two, more
    /// than the records) over `text`, which it frees.
    private static func make(slotCount: Int, records: [TableRecord], text: UnsafeMutableBufferPointer<UInt8>, rich: [Entry],
                             wide: Bool = false) -> TableStorage {
        let wide = wide || records.count >= TableIndex.narrowLimit
        let slotBytes = slotCount * (wide ? 8 : 4)
        let recordBytes = records.count * MemoryLayout<TableRecord>.stride
        let buffer = create(minimumCapacity: (slotBytes + recordBytes + 7) / 8) { _ in
            TableHeader(count: records.count, slotMask: slotCount - 1, wideSlots: wide, textLength: text.count, seed: TableHash.seed, rich: rich,
                        separateText: text.baseAddress)
        }
        let storage = unsafeDowncast(buffer, to: TableStorage.self)
        storage.withUnsafeMutablePointerToElements { words in
            let base = UnsafeMutableRawPointer(words)
            if wide {
                base.initializeMemory(as: UInt64.self, repeating: 0, count: slotCount)
            } else {
                base.initializeMemory(as: UInt32.self, repeating: 0, count: slotCount)
            }
            let recordBase = (base + slotBytes).bindMemory(to: TableRecord.self, capacity: records.count)
            records.withUnsafeBufferPointer { if let source = $0.baseAddress { recordBase.initialize(from: source, count: $0.count) } }
        }
        return storage
    }

    deinit {
        if let text = header.separateText { free(text) }
    }

    /// Storage over an image's index, records and text at `base` (checked
    /// by the caller), kept alive by `owner`.
    static func mapped(base: UnsafeMutableRawPointer, owner: AnyObject, count: Int, slotCount: Int, wideSlots: Bool, textLength: Int,
                       seed: UInt64, rich: [Entry]) -> TableStorage {
        let buffer = create(minimumCapacity: 0) { _ in
            TableHeader(count: count, slotMask: slotCount - 1, wideSlots: wideSlots, textLength: textLength, seed: seed, rich: rich,
                        external: base, owner: owner)
        }
        return unsafeDowncast(buffer, to: TableStorage.self)
    }

    var count: Int { header.count }
    var rich: [Entry] { header.rich }
    var textLength: Int { header.textLength }
    /// Whether the words are an image's mapping, not this object's own.
    var isMapped: Bool { header.owner != nil }

    /// Calls `body` with a view of the index, records and text.
    @inline(__always)
    func withIndex<Result>(_ body: (TableIndex) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointers { header, words in
            let wide = header.pointee.wideSlots
            let slotBytes = (header.pointee.slotMask + 1) * (wide ? 8 : 4)
            let base = header.pointee.external ?? UnsafeMutableRawPointer(words)
            let records = (base + slotBytes).assumingMemoryBound(to: TableRecord.self)
            let text = UnsafePointer(header.pointee.separateText)
                ?? UnsafePointer((base + slotBytes + header.pointee.count * MemoryLayout<TableRecord>.stride).assumingMemoryBound(to: UInt8.self))
            return try body(TableIndex(slots: base, wide: wide, mask: header.pointee.slotMask, seed: header.pointee.seed, records: records, text: text))
        }
    }
}

/// What a `TableStorage` knows besides its words.
struct TableHeader {
    var count: Int
    var slotMask: Int
    /// Whether slots are 8 bytes (16 million entries or more) rather than 4.
    var wideSlots: Bool
    /// Bytes of text (keys and plain values).
    var textLength: Int
    /// The seed the index hashes keys with.
    var seed: UInt64
    /// The entries that are not plain text, by the index their records hold.
    var rich: [Entry]
    /// The text, an allocation of its own freed with the storage (every
    /// made table's); nil: it follows the records (a mapped image's), or
    /// there is none (the empty table's).
    var separateText: UnsafeMutablePointer<UInt8>? = nil
    /// Where the index, records and text are when they are not the storage's own words (a mapped image).
    var external: UnsafeMutableRawPointer? = nil
    /// What keeps `external` valid.
    var owner: AnyObject? = nil
}

/// One entry: where its key and value sit in the text. A value that is
/// not plain text (variations, substitutions) is `rich[valueOffset]`.
struct TableRecord {
    var keyOffset: UInt32
    var keyLength: UInt32
    var valueOffset: UInt32
    var valueLength: UInt32

    static let richLength = UInt32.max

    var isRich: Bool { valueLength == Self.richLength }
}

/// An unsafe view of an index, its records and text: the one place where
/// lookups and insertions are written. A slot is 0 when empty, else some
/// high bits of the key's hash (a tag that spares most key comparisons)
/// over the record's position + 1: 8 + 24 bits in a 4-byte slot, 32 + 32
/// in an 8-byte one.
struct TableIndex {
    /// Tables with this many entries or more have 8-byte slots.
    static let narrowLimit = 1 << 24 - 1

    let slots: UnsafeMutableRawPointer
    let wide: Bool
    let mask: Int
    /// The seed keys are hashed with in this index.
    let seed: UInt64
    let records: UnsafePointer<TableRecord>
    let text: UnsafePointer<UInt8>

    /// The position of the record whose key is `key`, or nil.
    @inline(__always)
    func find(_ key: UnsafeRawBufferPointer, hash: UInt64) -> Int? {
        probe(key, hash: hash).found
    }

    /// Records `position` under `hash` and returns nil — or, when an entry
    /// with the same key is indexed already, returns its position and
    /// records nothing. One probe for both (a parse indexes every key so).
    @inline(__always)
    func insertUnlessPresent(_ position: Int, hash: UInt64) -> Int? {
        let (found, empty) = probe(keyBytes(position), hash: hash)
        if let found { return found }
        if wide {
            slots.assumingMemoryBound(to: UInt64.self)[empty] = hash & 0xFFFF_FFFF_0000_0000 | UInt64(position + 1)
        } else {
            slots.assumingMemoryBound(to: UInt32.self)[empty] = UInt32(truncatingIfNeeded: hash >> 56) << 24 | UInt32(position + 1)
        }
        return nil
    }

    /// Asks for the cache line of `hash`'s first slot without waiting for it.
    @inline(__always)
    func prefetchSlot(for hash: UInt64) {
        lproj_prefetch_for_write(slots + (Int(truncatingIfNeeded: hash) & mask) * (wide ? 8 : 4))
    }

    /// The one probe: from `hash`'s slot on, the record whose key is `key`
    /// (`found`), else the empty slot that ends the probe (where it would go).
    @inline(__always)
    private func probe(_ key: UnsafeRawBufferPointer, hash: UInt64) -> (found: Int?, empty: Int) {
        var slot = Int(truncatingIfNeeded: hash) & mask
        if wide {
            let slots = self.slots.assumingMemoryBound(to: UInt64.self)
            let tag = hash & 0xFFFF_FFFF_0000_0000
            while true {
                let value = slots[slot]
                if value == 0 { return (nil, slot) }
                if value & 0xFFFF_FFFF_0000_0000 == tag {
                    let position = Int(truncatingIfNeeded: value & 0xFFFF_FFFF) - 1
                    if keyEquals(position, key) { return (position, slot) }
                }
                slot = (slot + 1) & mask
            }
        }
        let slots = self.slots.assumingMemoryBound(to: UInt32.self)
        let tag = UInt32(truncatingIfNeeded: hash >> 56) << 24
        while true {
            let value = slots[slot]
            if value == 0 { return (nil, slot) }
            if value & 0xFF00_0000 == tag {
                let position = Int(value & 0x00FF_FFFF) - 1
                if keyEquals(position, key) { return (position, slot) }
            }
            slot = (slot + 1) & mask
        }
    }

    @inline(__always)
    func keyBytes(_ position: Int) -> UnsafeRawBufferPointer {
        let record = records[position]
        return UnsafeRawBufferPointer(start: text + Int(record.keyOffset), count: Int(record.keyLength))
    }

    /// The bytes of a plain value (empty for a rich one).
    @inline(__always)
    func valueBytes(_ position: Int) -> UnsafeRawBufferPointer {
        let record = records[position]
        if record.isRich { return UnsafeRawBufferPointer(start: text, count: 0) }
        return UnsafeRawBufferPointer(start: text + Int(record.valueOffset), count: Int(record.valueLength))
    }

    /// The entry at `position`, made: a plain value's string from its bytes,
    /// a rich one from `storage`'s rich entries.
    @inline(__always)
    func entry(at position: Int, rich storage: TableStorage) -> Entry {
        let record = records[position]
        if record.isRich { return storage.rich[Int(record.valueOffset)] }
        return Entry(text: String(decoding: valueBytes(position), as: UTF8.self))
    }

    @inline(__always)
    func hash(ofKeyAt position: Int) -> UInt64 {
        TableHash.hash(keyBytes(position), seed: seed)
    }

    /// The hash of `key` in this index.
    @inline(__always)
    func hash(_ key: UnsafeRawBufferPointer) -> UInt64 {
        TableHash.hash(key, seed: seed)
    }

    @inline(__always)
    func keyEquals(_ position: Int, _ key: UnsafeRawBufferPointer) -> Bool {
        let record = records[position]
        guard Int(record.keyLength) == key.count else { return false }
        return key.count == 0 || memcmp(text + Int(record.keyOffset), key.baseAddress!, key.count) == 0
    }
}

#if canImport(Glibc)
import Glibc
#endif
