/// A table's keys and values in one allocation: an open-addressing hash
/// index, a record per entry (in file order) and the UTF-8 text of every
/// key and plain value, back to back. Immutable once made.
///
/// Memory per entry is its text plus 16 bytes of record and about 11 of
/// index, against about 300 for a `[String: Entry]` of heap strings; and
/// a lookup hashes the key's bytes once and, on a hit, compares one key.
///
/// The words are plain data (`ManagedBuffer` destroys the header itself).
/// (`ManagedBuffer` cannot be `Sendable`; this one is never written after
/// `make` returns, so tables share it across threads freely.)
final class TableStorage: ManagedBuffer<TableHeader, UInt64> {
    /// The shared storage of every empty table.
    nonisolated(unsafe) static let empty = make(slotCount: 1, records: [], text: [], rich: [])

    /// Storage for `records` over `text`, indexed. When two records have the
    /// same key, nothing is made: the pairs (earlier, later) come back instead.
    static func make(records: [TableRecord], text: [UInt8], rich: [Entry]) -> Result<TableStorage, Duplicates> {
        let storage = make(slotCount: slotCount(for: records.count), records: records, text: text, rich: rich)
        let duplicates = storage.withIndex { index in
            var duplicates: [(earlier: Int, later: Int)] = []
            for position in records.indices {
                let hash = index.hash(ofKeyAt: position)
                if let earlier = index.find(index.keyBytes(position), hash: hash) {
                    duplicates.append((earlier, position))
                } else {
                    index.insert(position, hash: hash)
                }
            }
            return duplicates
        }
        return duplicates.isEmpty ? .success(storage) : .failure(Duplicates(pairs: duplicates))
    }

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

    /// Unindexed storage of `slotCount` empty slots (a power of two, more than the records).
    private static func make(slotCount: Int, records: [TableRecord], text: [UInt8], rich: [Entry]) -> TableStorage {
        let recordWords = records.count * MemoryLayout<TableRecord>.stride / 8
        let words = slotCount + recordWords + (text.count + 7) / 8
        let buffer = create(minimumCapacity: words) { _ in
            TableHeader(count: records.count, slotMask: slotCount - 1, textCount: text.count, rich: rich)
        }
        let storage = unsafeDowncast(buffer, to: TableStorage.self)
        storage.withUnsafeMutablePointerToElements { words in
            words.initialize(repeating: 0, count: slotCount)
            let recordBase = UnsafeMutableRawPointer(words + slotCount).bindMemory(to: TableRecord.self, capacity: records.count)
            records.withUnsafeBufferPointer { if let source = $0.baseAddress { recordBase.initialize(from: source, count: $0.count) } }
            let textBase = UnsafeMutableRawPointer(words + slotCount + recordWords).bindMemory(to: UInt8.self, capacity: text.count)
            text.withUnsafeBufferPointer { if let source = $0.baseAddress { textBase.initialize(from: source, count: $0.count) } }
        }
        return storage
    }

    var count: Int { header.count }
    var rich: [Entry] { header.rich }

    /// Calls `body` with a view of the index, records and text.
    @inline(__always)
    func withIndex<Result>(_ body: (TableIndex) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointers { header, words in
            let slotCount = header.pointee.slotMask + 1
            let count = header.pointee.count
            let records = UnsafeMutableRawPointer(words + slotCount).assumingMemoryBound(to: TableRecord.self)
            let text = UnsafeMutableRawPointer(words + slotCount + count * MemoryLayout<TableRecord>.stride / 8)
                .assumingMemoryBound(to: UInt8.self)
            return try body(TableIndex(slots: words, mask: header.pointee.slotMask, records: records, text: text))
        }
    }
}

/// What a `TableStorage` knows besides its words.
struct TableHeader {
    var count: Int
    var slotMask: Int
    var textCount: Int
    /// The entries that are not plain text, by the index their records hold.
    var rich: [Entry]
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
/// lookups and insertions are written, for tables and their builder alike.
/// A slot is 0 when empty, else the key's hash in its high half and the
/// record's position + 1 in its low half.
struct TableIndex {
    let slots: UnsafeMutablePointer<UInt64>
    let mask: Int
    let records: UnsafePointer<TableRecord>
    let text: UnsafePointer<UInt8>

    init(slots: UnsafeMutablePointer<UInt64>, mask: Int, records: UnsafePointer<TableRecord>, text: UnsafePointer<UInt8>) {
        self.slots = slots
        self.mask = mask
        self.records = records
        self.text = text
    }

    /// The position of the record whose key is `key`, or nil.
    @inline(__always)
    func find(_ key: UnsafeRawBufferPointer, hash: UInt64) -> Int? {
        let tag = hash & 0xFFFF_FFFF_0000_0000
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let value = slots[slot]
            if value == 0 { return nil }
            if value & 0xFFFF_FFFF_0000_0000 == tag {
                let position = Int(truncatingIfNeeded: value & 0xFFFF_FFFF) - 1
                if keyEquals(position, key) { return position }
            }
            slot = (slot + 1) & mask
        }
    }

    /// Records `position` under `hash` (its key must not be indexed yet).
    @inline(__always)
    func insert(_ position: Int, hash: UInt64) {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = hash & 0xFFFF_FFFF_0000_0000 | UInt64(position + 1)
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

    @inline(__always)
    func hash(ofKeyAt position: Int) -> UInt64 {
        TableHash.hash(keyBytes(position))
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
