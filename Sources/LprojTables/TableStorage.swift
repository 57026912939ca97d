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
/// Two other layouts read through the same header:
/// - **mapped**: a table read from an image (`TableImage`) has no words of
///   its own: its header points into the mapping, which it keeps alive,
///   and its index was made with the image's hash seed, which lookups use.
/// - **over shared keys**: a table whose keys are another storage's, in
///   the same order (`SharedKeys`: one table's localizations, as a daemon
///   holds them) keeps only its values — an 8-byte value record per entry
///   and the values' text — and reads the index, key records and key text
///   of the keys' storage, which it keeps alive.
///
/// The header holds each part's address, resolved when the storage is
/// made, so a lookup reads the same fields whatever the layout.
///
/// The words are plain data (`ManagedBuffer` destroys the header itself).
/// (`ManagedBuffer` cannot be `Sendable`; this one is never written after
/// `make` returns, so tables share it across threads freely.)
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
            storage.header.ownsText = false
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

    /// Storage for `records` over `text` (from `malloc`, which it frees),
    /// with `index` as its slots (made with `seed` over these records).
    static func make(records: [TableRecord], adopting text: UnsafeMutableBufferPointer<UInt8>, index: UnsafeRawBufferPointer,
                     wide: Bool, seed: UInt64) -> TableStorage {
        make(slotCount: index.count / (wide ? 8 : 4), records: records, text: text, rich: [], wide: wide, seed: seed, slots: index)
    }

    /// Storage of `slotCount` slots (a power of two, more than the records)
    /// over `text`, which it frees: `slots` copied, or empty (unindexed).
    private static func make(slotCount: Int, records: [TableRecord], text: UnsafeMutableBufferPointer<UInt8>, rich: [Entry],
                             wide: Bool = false, seed: UInt64 = ByteHash.seed, slots: UnsafeRawBufferPointer? = nil) -> TableStorage {
        let wide = wide || records.count >= TableIndex.narrowLimit
        let slotBytes = slotCount * (wide ? 8 : 4)
        let recordBytes = records.count * MemoryLayout<TableRecord>.stride
        let storage = unsafeDowncast(create(minimumCapacity: (slotBytes + recordBytes + 7) / 8) { _ in
            TableHeader(count: records.count, slotMask: slotCount - 1, wideSlots: wide, textLength: text.count, seed: seed, rich: rich)
        }, to: TableStorage.self)
        storage.withUnsafeMutablePointerToElements { words in
            let base = UnsafeMutableRawPointer(words)
            if let slots, let source = slots.baseAddress {
                base.copyMemory(from: source, byteCount: slotBytes)
            } else if wide {
                base.initializeMemory(as: UInt64.self, repeating: 0, count: slotCount)
            } else {
                base.initializeMemory(as: UInt32.self, repeating: 0, count: slotCount)
            }
            let recordBase = (base + slotBytes).bindMemory(to: TableRecord.self, capacity: records.count)
            records.withUnsafeBufferPointer { if let source = $0.baseAddress { recordBase.initialize(from: source, count: $0.count) } }
            storage.header.locate(slots: base, text: text.baseAddress.map { UnsafePointer($0) })
        }
        storage.header.ownsText = text.baseAddress != nil
        return storage
    }

    deinit {
        if header.ownsText { free(UnsafeMutablePointer(mutating: header.valueText)) }
    }

    /// Storage over an image's index, records and text at `base` (checked
    /// by the caller), kept alive by `owner`.
    static func mapped(base: UnsafeMutableRawPointer, owner: AnyObject, count: Int, slotCount: Int, wideSlots: Bool, textLength: Int,
                       seed: UInt64, rich: [Entry]) -> TableStorage {
        let storage = unsafeDowncast(create(minimumCapacity: 0) { _ in
            TableHeader(count: count, slotMask: slotCount - 1, wideSlots: wideSlots, textLength: textLength, seed: seed, rich: rich,
                        layout: .mapped, owner: owner)
        }, to: TableStorage.self)
        storage.header.locate(slots: base, text: nil)
        return storage
    }

    var count: Int { header.count }
    var rich: [Entry] { header.rich }
    /// Bytes of text of its own: keys and plain values; plain values alone over shared keys.
    var textLength: Int { header.textLength }
    /// Whether the words are an image's mapping, not this object's own.
    var isMapped: Bool { header.layout == .mapped }
    /// The storage whose keys this one reads (nil: its own).
    var sharedKeys: TableStorage? { header.layout == .overSharedKeys ? unsafeDowncast(header.owner!, to: TableStorage.self) : nil }

    /// Calls `body` with a view of the index, records and text.
    @inline(__always)
    func withIndex<Result>(_ body: (TableIndex) throws -> Result) rethrows -> Result {
        // Field by field: a copy of the whole header would retain its rich entries and owner on every lookup.
        try withUnsafeMutablePointerToHeader { header in
            let slots = header.pointee.slots, wide = header.pointee.wideSlots, mask = header.pointee.slotMask
            return try body(TableIndex(slots: slots, wide: wide, mask: mask, seed: header.pointee.seed,
                                       keyRecords: UnsafePointer((slots + (mask + 1) * (wide ? 8 : 4)).assumingMemoryBound(to: TableRecord.self)),
                                       keyText: header.pointee.keyText, values: header.pointee.values, valueShift: header.pointee.valueShift,
                                       valueText: header.pointee.valueText))
        }
    }
}

/// What a `TableStorage` knows besides its words, and where its parts are.
struct TableHeader {
    var count: Int
    var slotMask: Int
    /// Whether slots are 8 bytes (16 million entries or more) rather than 4.
    var wideSlots: Bool
    /// Whether `valueText` is this storage's to free (every made table's
    /// text, its builder's allocation; not a mapping's or the empty table's).
    var ownsText = false
    var layout: Layout = .own
    /// Value records are 1 << `valueShift` bytes apart: 16 (in whole records), or 8 (value records of their own).
    var valueShift = 4
    /// Bytes of text of its own (see `TableStorage.textLength`).
    var textLength: Int
    /// The seed the index hashes keys with.
    var seed: UInt64
    /// The entries that are not plain text, by the index their records hold.
    var rich: [Entry]
    /// What keeps memory that is not the storage's own alive: an image's mapping, or the shared keys' storage.
    var owner: AnyObject? = nil
    /// The index; the key records follow it.
    var slots = UnsafeMutableRawPointer(bitPattern: 8)!
    var keyText = UnsafePointer<UInt8>(bitPattern: 8)!
    /// The first value record.
    var values = UnsafeRawPointer(bitPattern: 8)!
    var valueText = UnsafePointer<UInt8>(bitPattern: 8)!

    enum Layout: UInt8 {
        case own, mapped, overSharedKeys
    }

    init(count: Int, slotMask: Int, wideSlots: Bool, textLength: Int, seed: UInt64, rich: [Entry], layout: Layout = .own, owner: AnyObject? = nil) {
        self.count = count
        self.slotMask = slotMask
        self.wideSlots = wideSlots
        self.textLength = textLength
        self.seed = seed
        self.rich = rich
        self.layout = layout
        self.owner = owner
    }

    /// Points the index and keys at `keys`' and the values at this
    /// storage's own `valueRecords` (its words) over `values` (from
    /// `malloc`, which it then owns; nil: no plain value has a byte).
    mutating func over(keys: TableStorage, valueRecords: UnsafeRawPointer, values text: UnsafeMutablePointer<UInt8>?, textLength: Int) {
        self.textLength = textLength
        slots = keys.header.slots
        keyText = keys.header.keyText
        values = valueRecords
        valueShift = 3
        valueText = UnsafePointer(text ?? UnsafeMutablePointer(mutating: keys.header.keyText))
        ownsText = text != nil
    }

    /// Points the parts of the index, whole records and text laid out from
    /// `slots` on; the text is at `text`, or (nil) follows the records.
    mutating func locate(slots: UnsafeMutableRawPointer, text: UnsafePointer<UInt8>?) {
        self.slots = slots
        let records = slots + (slotMask + 1) * (wideSlots ? 8 : 4)
        let text = text ?? UnsafePointer((records + count * MemoryLayout<TableRecord>.stride).assumingMemoryBound(to: UInt8.self))
        keyText = text
        values = UnsafeRawPointer(records + MemoryLayout<TableRecord>.offset(of: \TableRecord.valueOffset)!)
        valueShift = 4
        valueText = text
    }
}

/// One entry: where its key and value sit in the text. A value that is
/// not plain text (variations, substitutions) is `rich[valueOffset]`.
@usableFromInline
struct TableRecord {
    @usableFromInline var keyOffset: UInt32
    @usableFromInline var keyLength: UInt32
    @usableFromInline var valueOffset: UInt32
    @usableFromInline var valueLength: UInt32

    @inlinable
    init(keyOffset: UInt32, keyLength: UInt32, valueOffset: UInt32, valueLength: UInt32) {
        self.keyOffset = keyOffset
        self.keyLength = keyLength
        self.valueOffset = valueOffset
        self.valueLength = valueLength
    }

    static let richLength = UInt32.max

    var isRich: Bool { valueLength == Self.richLength }
}

/// Where one entry's value sits in the text (`TableRecord`'s last half):
/// a storage over shared keys keeps only these.
struct ValueRecord {
    var offset: UInt32
    var length: UInt32
}

/// An unsafe view of an index, its records and text: the one place where
/// lookups and insertions are written. A slot is 0 when empty, else some
/// high bits of the key's hash (a tag that spares most key comparisons)
/// over the record's position + 1: 8 + 24 bits in a 4-byte slot, 32 + 32
/// in an 8-byte one. Keys are read through whole records and their text;
/// values through value records (the same records' last half, or records
/// of their own) and theirs.
struct TableIndex {
    /// Tables with this many entries or more have 8-byte slots.
    static let narrowLimit = 1 << 24 - 1

    let slots: UnsafeMutableRawPointer
    let wide: Bool
    let mask: Int
    /// The seed keys are hashed with in this index.
    let seed: UInt64
    let keyRecords: UnsafePointer<TableRecord>
    let keyText: UnsafePointer<UInt8>
    let values: UnsafeRawPointer
    let valueShift: Int
    let valueText: UnsafePointer<UInt8>

    @inline(__always)
    init(slots: UnsafeMutableRawPointer, wide: Bool, mask: Int, seed: UInt64, keyRecords: UnsafePointer<TableRecord>, keyText: UnsafePointer<UInt8>,
         values: UnsafeRawPointer, valueShift: Int, valueText: UnsafePointer<UInt8>) {
        self.slots = slots
        self.wide = wide
        self.mask = mask
        self.seed = seed
        self.keyRecords = keyRecords
        self.keyText = keyText
        self.values = values
        self.valueShift = valueShift
        self.valueText = valueText
    }

    /// An index over whole records and one text.
    init(slots: UnsafeMutableRawPointer, wide: Bool, mask: Int, seed: UInt64, records: UnsafePointer<TableRecord>, text: UnsafePointer<UInt8>) {
        self.init(slots: slots, wide: wide, mask: mask, seed: seed, keyRecords: records, keyText: text,
                  values: UnsafeRawPointer(records) + MemoryLayout<TableRecord>.offset(of: \TableRecord.valueOffset)!, valueShift: 4,
                  valueText: text)
    }

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
        let record = keyRecords[position]
        return UnsafeRawBufferPointer(start: keyText + Int(record.keyOffset), count: Int(record.keyLength))
    }

    /// Where the value at `position` is (a rich one: `TableRecord.richLength` long, at its rich index).
    @inline(__always)
    func valueRecord(_ position: Int) -> ValueRecord {
        values.load(fromByteOffset: position &<< valueShift, as: ValueRecord.self)
    }

    /// Whether the value at `position` is a rich entry, not plain text.
    @inline(__always)
    func isRich(_ position: Int) -> Bool {
        valueRecord(position).length == TableRecord.richLength
    }

    /// The bytes of a plain value (empty for a rich one).
    @inline(__always)
    func valueBytes(_ position: Int) -> UnsafeRawBufferPointer {
        let value = valueRecord(position)
        if value.length == TableRecord.richLength { return UnsafeRawBufferPointer(start: valueText, count: 0) }
        return UnsafeRawBufferPointer(start: valueText + Int(value.offset), count: Int(value.length))
    }

    /// The entry at `position`, made: a plain value's string from its bytes,
    /// a rich one from `storage`'s rich entries.
    @inline(__always)
    func entry(at position: Int, rich storage: TableStorage) -> Entry {
        let value = valueRecord(position)
        if value.length == TableRecord.richLength { return storage.rich[Int(value.offset)] }
        return Entry(text: String(decoding: valueBytes(position), as: UTF8.self))
    }

    @inline(__always)
    func hash(ofKeyAt position: Int) -> UInt64 {
        ByteHash.hash(keyBytes(position), seed: seed)
    }

    /// The hash of `key` in this index.
    @inline(__always)
    func hash(_ key: UnsafeRawBufferPointer) -> UInt64 {
        ByteHash.hash(key, seed: seed)
    }

    @inline(__always)
    func keyEquals(_ position: Int, _ key: UnsafeRawBufferPointer) -> Bool {
        let record = keyRecords[position]
        guard Int(record.keyLength) == key.count else { return false }
        return key.count == 0 || memcmp(keyText + Int(record.keyOffset), key.baseAddress!, key.count) == 0
    }
}

#if canImport(Glibc)
import Glibc
@_spi(LprojInternals) import LprojPaths
#endif
