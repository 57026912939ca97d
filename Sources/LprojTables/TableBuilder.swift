/// Makes a `Table` entry by entry: keys and plain values are appended to
/// one text buffer (a parser writes straight into `text`), which the
/// table made by `finish` keeps (the records and index are copied beside
/// it into the table's storage). lprojd's own modules' (`@_spi(LprojInternals)`:
/// public so that a parser's `add` inlines).
@_spi(LprojInternals)
public struct TableBuilder: ~Copyable {
    /// The UTF-8 of every key and plain value added so far (and of the
    /// one being parsed, past the last entry).
    public var text: TextBuffer
    @usableFromInline var records: [TableRecord] = []
    private var rich: [Entry] = []

    public init(expectedCount: Int = 0, expectedTextBytes: Int = 0) {
        records.reserveCapacity(expectedCount)
        text = TextBuffer(capacity: expectedTextBytes)
    }

    var count: Int { records.count }

    /// Adds the entry whose key is `text[key]` and plain value `text[value]`.
    @inlinable
    public mutating func add(key: Range<Int>, value: Range<Int>) {
        precondition(text.count <= Int(UInt32.max), "a table's text is limited to 4 GiB")
        records.append(TableRecord(keyOffset: UInt32(key.lowerBound), keyLength: UInt32(key.count),
                                   valueOffset: UInt32(value.lowerBound), valueLength: UInt32(value.count)))
    }

    /// Adds `entry` under `key`.
    mutating func add(key: String, entry: Entry) {
        let keyStart = text.count
        text.append(contentsOf: key.utf8)
        if let plain = entry.plainText {
            let valueStart = text.count
            text.append(contentsOf: plain.utf8)
            add(key: keyStart..<valueStart, value: valueStart..<text.count)
        } else {
            precondition(text.count <= Int(UInt32.max), "a table's text is limited to 4 GiB")
            records.append(TableRecord(keyOffset: UInt32(keyStart), keyLength: UInt32(text.count - keyStart),
                                       valueOffset: UInt32(rich.count), valueLength: TableRecord.richLength))
            rich.append(entry)
        }
    }

    /// Adds the entry at `position` of `table`, copying its bytes.
    mutating func add(from table: Table, at position: Int) {
        let keyStart = text.count
        let (rich, keyLength) = table.storage.withIndex { index -> (Bool, Int) in
            let key = index.keyBytes(position)
            text.append(key.assumingMemoryBound(to: UInt8.self))
            guard !index.isRich(position) else { return (true, key.count) }
            text.append(index.valueBytes(position).assumingMemoryBound(to: UInt8.self))
            return (false, key.count)
        }
        if rich {
            records.append(TableRecord(keyOffset: UInt32(keyStart), keyLength: UInt32(keyLength),
                                       valueOffset: UInt32(self.rich.count), valueLength: TableRecord.richLength))
            self.rich.append(table.entry(at: position))
        } else {
            add(key: keyStart..<keyStart + keyLength, value: keyStart + keyLength..<text.count)
        }
    }

    /// The table. When a key was added more than once the last entry wins
    /// (in the place of the first); `duplicates` gets the positions, in the
    /// order added, of the entries that replaced an earlier one.
    /// (`wideSlots` forces 8-byte index slots, for tests.)
    /// With `sharing`, a table whose keys are one set's, in the same order,
    /// is made over it: its values alone, and no index of its own to make.
    package consuming func finish(duplicates: inout [Int], wideSlots: Bool = false, sharing: [SharedKeys] = []) -> Table {
        if records.isEmpty { return Table() }
        let text = self.text.released()
        for keys in sharing {
            if let storage = TableStorage.values(records: records, adopting: text, rich: rich, over: keys.storage) { return Table(storage: storage) }
        }
        switch TableStorage.make(records: records, adopting: text, rich: rich, wideSlots: wideSlots) {
        case .success(let storage):
            return Table(storage: storage)
        case .failure(let found):
            var records = records
            var dropped = Set<Int>()
            for (earlier, later) in found.pairs {
                records[earlier].valueOffset = records[later].valueOffset
                records[earlier].valueLength = records[later].valueLength
                dropped.insert(later)
                duplicates.append(later)
            }
            let kept = records.indices.filter { !dropped.contains($0) }.map { records[$0] }
            guard case .success(let storage) = TableStorage.make(records: kept, adopting: text, rich: rich, wideSlots: wideSlots) else {
                preconditionFailure("keys still repeat after removing the repeats")
            }
            return Table(storage: storage)
        }
    }

    /// The table (see `finish(duplicates:)`).
    consuming func finish() -> Table {
        var ignored: [Int] = []
        return finish(duplicates: &ignored)
    }
}
