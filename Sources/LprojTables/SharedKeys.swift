#if canImport(Glibc)
import Glibc
#endif

/// The keys of a table, in order, with their index: kept once for every
/// table that has the same keys in the same order — one table's
/// localizations, as a daemon holds them — each of which then keeps only
/// its values (`Table.sharing(_:)`). In a bundle of many languages the
/// keys and index are a third of a table's memory or more.
package final class SharedKeys: @unchecked Sendable {
    /// Key records (their value halves unused), the index and the keys' text.
    private(set) var storage: TableStorage

    /// The keys (and index) of `table`, copied.
    package init(_ table: Table) {
        storage = .keys(of: table.storage)
    }

    /// How many keys.
    package var count: Int { storage.count }

    /// Whether a table still reads these keys (else only the caller holds them).
    package var isInUse: Bool { !isKnownUniquelyReferenced(&storage) }
}

extension Table {
    /// This table reading its keys and index from `keys`, when they are its
    /// keys in the same order (and its index the same): its own keys and
    /// index go, its values are kept. nil when they are not.
    package func sharing(_ keys: SharedKeys) -> Table? {
        let shared = keys.storage
        if storage.sharedKeys === shared { return self }
        guard count > 0, count == shared.count, storage.header.seed == shared.header.seed,
              storage.header.slotMask == shared.header.slotMask, storage.header.wideSlots == shared.header.wideSlots else { return nil }
        let same = storage.withIndex { index in
            shared.withIndex { keys in
                // The slots too: the same keys in the same order make the same index, and a lookup reads the shared one.
                let slotBytes = (index.mask + 1) * (index.wide ? 8 : 4)
                guard memcmp(index.slots, keys.slots, slotBytes) == 0 else { return false }
                for position in 0..<count {
                    let key = index.keyBytes(position)
                    guard keys.keyEquals(position, key) else { return false }
                }
                return true
            }
        }
        return same ? Table(storage: .values(of: storage, over: shared)) : nil
    }

    /// Whether this table reads its keys from `SharedKeys`.
    package var sharesKeys: Bool { storage.sharedKeys != nil }
}

extension TableStorage {
    /// Storage of the values of `records` over `keys` when their keys (in
    /// `text`) are `keys`' keys in the same order — the values moved to the
    /// front of `text` (which it then owns), an 8-byte value record each;
    /// nil (and `text` untouched) when they are not.
    static func values(records: [TableRecord], adopting text: UnsafeMutableBufferPointer<UInt8>, rich: [Entry],
                       over keys: TableStorage) -> TableStorage? {
        let count = records.count
        guard count == keys.count, count > 0, let base = text.baseAddress else { return nil }
        let same = keys.withIndex { index in
            records.withUnsafeBufferPointer { records in
                // Values follow their keys in the text, in order: each moves towards the front only.
                var end = 0
                for position in 0..<count {
                    let record = records[position]
                    guard index.keyEquals(position, UnsafeRawBufferPointer(start: base + Int(record.keyOffset), count: Int(record.keyLength))),
                          record.isRich || Int(record.valueOffset) >= end else { return false }
                    if !record.isRich { end = Int(record.valueOffset) + Int(record.valueLength) }
                }
                return true
            }
        }
        guard same else { return nil }
        var textLength = 0
        let storage = over(keys, count: count, rich: rich) { values in
            for position in 0..<count {
                let record = records[position]
                var value = ValueRecord(offset: record.valueOffset, length: record.valueLength)
                if !record.isRich {
                    if record.valueLength > 0 { memmove(base + textLength, base + Int(record.valueOffset), Int(record.valueLength)) }
                    value.offset = UInt32(textLength)
                    textLength += Int(record.valueLength)
                }
                (values + position).initialize(to: value)
            }
            return (realloc(base, max(textLength, 1))!.assumingMemoryBound(to: UInt8.self), textLength)
        }
        return storage
    }

    /// Storage of `source`'s values over `keys`' index, key records and
    /// key text (whose keys are `source`'s, in the same order and hashed
    /// with the same seed: the caller checked): an 8-byte value record per
    /// entry and a text of the plain values alone.
    static func values(of source: TableStorage, over keys: TableStorage) -> TableStorage {
        source.withIndex { index in
            over(keys, count: source.count, rich: source.rich) { values in
                var textLength = 0
                for position in 0..<source.count where !index.isRich(position) { textLength += index.valueBytes(position).count }
                let text = textLength == 0 ? nil : malloc(textLength)!.assumingMemoryBound(to: UInt8.self)
                var offset = 0
                for position in 0..<source.count {
                    var value = index.valueRecord(position)
                    if value.length != TableRecord.richLength {
                        if value.length > 0 { (text! + offset).update(from: index.valueText + Int(value.offset), count: Int(value.length)) }
                        value.offset = UInt32(offset)
                        offset += Int(value.length)
                    }
                    (values + position).initialize(to: value)
                }
                return (text, textLength)
            }
        }
    }

    /// Storage over `keys` of `count` value records, which `fill` writes,
    /// returning their text (from `malloc`: the storage frees it) and its length.
    private static func over(_ keys: TableStorage, count: Int, rich: [Entry],
                             values fill: (UnsafeMutablePointer<ValueRecord>) -> (text: UnsafeMutablePointer<UInt8>?, length: Int)) -> TableStorage {
        let storage = unsafeDowncast(create(minimumCapacity: count) { _ in
            TableHeader(count: count, slotMask: keys.header.slotMask, wideSlots: keys.header.wideSlots, textLength: 0, seed: keys.header.seed,
                        rich: rich, layout: .overSharedKeys, owner: keys)
        }, to: TableStorage.self)
        storage.withUnsafeMutablePointerToElements { words in
            let values = UnsafeMutableRawPointer(words).bindMemory(to: ValueRecord.self, capacity: count)
            let (text, length) = fill(values)
            storage.header.over(keys: keys, valueRecords: UnsafeRawPointer(values), values: text, textLength: length)
        }
        return storage
    }

    /// Storage of `source`'s keys alone: its index as it is, a record per
    /// key (no value) and a text of the keys.
    static func keys(of source: TableStorage) -> TableStorage {
        source.withIndex { index in
            var records: [TableRecord] = []
            records.reserveCapacity(source.count)
            var textLength = 0
            for position in 0..<source.count {
                let length = index.keyBytes(position).count
                records.append(TableRecord(keyOffset: UInt32(textLength), keyLength: UInt32(length), valueOffset: 0, valueLength: 0))
                textLength += length
            }
            let text = malloc(max(textLength, 1))!.assumingMemoryBound(to: UInt8.self)
            for position in 0..<source.count {
                let key = index.keyBytes(position)
                if key.count > 0 { (text + Int(records[position].keyOffset)).update(from: key.baseAddress!.assumingMemoryBound(to: UInt8.self), count: key.count) }
            }
            return .make(records: records, adopting: UnsafeMutableBufferPointer(start: text, count: textLength),
                         index: UnsafeRawBufferPointer(start: index.slots, count: (index.mask + 1) * (index.wide ? 8 : 4)), wide: index.wide, seed: index.seed)
        }
    }
}
