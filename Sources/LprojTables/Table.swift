/// One language's table: key → entry. An immutable value; parsing a file
/// makes one, and tables compare and diff by value.
///
/// Compact: every key and plain value is kept as UTF-8 in one allocation
/// per table, with a hash index over the keys, so a table costs about its
/// text plus about 22 bytes an entry. Keys compare by their UTF-8 bytes, as
/// CoreFoundation compares them (no Unicode normalisation). A lookup builds
/// its `String` from those bytes; a table that is looked up much (a
/// client's) can be `materialized()` so that each entry is made once, on
/// its first lookup, and later lookups return it and allocate nothing.
public struct Table: Sendable {
    /// Immutable once made (see `TableStorage`).
    nonisolated(unsafe) let storage: TableStorage
    /// Set when materialized: the entries looked up so far, made once, in an index of their own.
    private let materializedIndex: MaterializedIndex?

    /// The empty table.
    public init() {
        storage = .empty
        materializedIndex = nil
    }

    /// A table of `entries`.
    public init(_ entries: [String: Entry]) {
        var builder = TableBuilder(expectedCount: entries.count)
        for (key, entry) in entries { builder.add(key: key, entry: entry) }
        self = builder.finish()
    }

    /// A table of plain strings.
    public init(strings: [String: String]) {
        var builder = TableBuilder(expectedCount: strings.count)
        for (key, value) in strings { builder.add(key: key, entry: Entry(text: value)) }
        self = builder.finish()
    }

    init(storage: TableStorage, materializedIndex: MaterializedIndex? = nil) {
        self.storage = storage
        self.materializedIndex = materializedIndex
    }

    /// The entry for `key`, or nil. Allocates only for a value too long to
    /// be stored inline in a `String`, and in a materialized table only the
    /// first time `key` is looked up.
    @inline(__always)
    public subscript(key: String) -> Entry? {
        if materializedIndex != nil {
            // (Read through `self`, not bound to a local: a binding costs a retain and a release a lookup.)
            return withBytes(of: key) { bytes in
                storage.withIndex { index in
                    let hash = index.hash(bytes)
                    return materializedIndex.unsafelyUnwrapped.madeEntry(forKey: bytes, hash: hash, text: index.keyText)
                        ?? materializedIndex.unsafelyUnwrapped.make(forKey: bytes, hash: hash, in: index, of: storage)
                }
            }
        }
        guard let position = position(ofKey: key) else { return nil }
        return entry(at: position)
    }

    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.count == 0 }

    /// The keys, in the order the file defines them.
    public var keys: [String] {
        storage.withIndex { index in (0..<count).map { String(decoding: index.keyBytes($0), as: UTF8.self) } }
    }

    /// The keys, sorted by code point.
    public var sortedKeys: [String] { keys.sorted() }

    /// The entries by key, made on each call.
    public var entries: [String: Entry] {
        var entries: [String: Entry] = [:]
        entries.reserveCapacity(count)
        for (key, entry) in self { entries[key] = entry }
        return entries
    }

    /// Whether both are the one stored table (made once and shared), not merely equal.
    public func isIdentical(to other: Table) -> Bool {
        storage === other.storage
    }

    /// The one stored table this is (tables `isIdentical(to:)` each other share it): a key for what is kept per table.
    public var identity: ObjectIdentifier { ObjectIdentifier(storage) }

    /// Whether the table reads an image in place (`TableImage`) rather than memory of its own.
    public var isMapped: Bool { storage.isMapped }

    /// This table with each entry made once, when it is first looked up, so
    /// that later lookups allocate nothing: for a table looked up often (a
    /// client's). Cheap to make: nothing is made until looked up.
    public func materialized() -> Table {
        if materializedIndex != nil || isEmpty { return self }
        return Table(storage: storage, materializedIndex: MaterializedIndex(self))
    }

    /// This table with each entry made once for one thread: like
    /// `materialized()`, but its index of made entries grows with what is
    /// looked up (a thread that looks up 50 keys of 100,000 keeps 50), and
    /// the strings it returns are this copy's alone. Look it up from one
    /// thread at a time: it has no lock.
    public func materializedForOneThread() -> Table {
        if isEmpty { return self }
        return Table(storage: storage, materializedIndex: MaterializedIndex(self, growing: true))
    }

    /// This table with `other`'s entries laid over it, as a `.stringsdict`
    /// entry overrides the same key of the `.strings` table beside it.
    public func overlaid(with other: Table) -> Table {
        if other.isEmpty { return self }
        if isEmpty { return other }
        var builder = TableBuilder(expectedCount: count + other.count)
        for position in 0..<count { builder.add(from: self, at: position) }
        for position in 0..<other.count { builder.add(from: other, at: position) }
        return builder.finish()
    }

    /// This table with the entries of `updates` set and the keys of `removed` gone.
    public func updating(_ updates: [String: Entry], removing removed: some Sequence<String>) -> Table {
        // The positions of the keys that go, found by their bytes: no string per entry kept.
        let dropped = Set(removed.compactMap(position(ofKey:)) + updates.keys.compactMap(position(ofKey:)))
        var builder = TableBuilder(expectedCount: count + updates.count)
        for position in 0..<count where !dropped.contains(position) { builder.add(from: self, at: position) }
        for (key, entry) in updates { builder.add(key: key, entry: entry) }
        return builder.finish()
    }

    // MARK: - Positions

    /// The position of `key`'s entry, or nil.
    @inline(__always)
    func position(ofKey key: String) -> Int? {
        withBytes(of: key) { position(ofKeyBytes: $0) }
    }

    /// Calls `body` with the UTF-8 of `key` (copied only if it is not contiguous).
    @inline(__always)
    private func withBytes<Result>(of key: String, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        if let result = key.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return result }
        var contiguous = key
        contiguous.makeContiguousUTF8()
        return contiguous.utf8.withContiguousStorageIfAvailable { body(UnsafeRawBufferPointer($0)) }!
    }

    /// The position of the entry whose key is `bytes`, or nil.
    @inline(__always)
    func position(ofKeyBytes bytes: UnsafeRawBufferPointer) -> Int? {
        storage.withIndex { $0.find(bytes, hash: $0.hash(bytes)) }
    }

    /// The key at `position`.
    func key(at position: Int) -> String {
        storage.withIndex { String(decoding: $0.keyBytes(position), as: UTF8.self) }
    }

    /// The entry at `position`.
    @inline(__always)
    func entry(at position: Int) -> Entry {
        storage.withIndex { $0.entry(at: position, rich: storage) }
    }

    /// Whether the entry at `position` equals `other`'s at `otherPosition`,
    /// comparing bytes when both are plain text.
    func entryEquals(at position: Int, _ other: Table, at otherPosition: Int) -> Bool {
        let plain: Bool? = storage.withIndex { index in
            other.storage.withIndex { otherIndex in
                guard !index.isRich(position), !otherIndex.isRich(otherPosition) else { return nil }
                let a = index.valueBytes(position), b = otherIndex.valueBytes(otherPosition)
                return a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
            }
        }
        return plain ?? (entry(at: position) == other.entry(at: otherPosition))
    }

    /// Whether the key at `position` is `other`'s key at `otherPosition`.
    @inline(__always)
    func keyEquals(at position: Int, _ other: Table, at otherPosition: Int) -> Bool {
        storage.withIndex { index in
            other.storage.withIndex { $0.keyEquals(otherPosition, index.keyBytes(position)) }
        }
    }

    /// The position in `other` of the key at `position` here, or nil.
    func position(ofKeyAt position: Int, in other: Table) -> Int? {
        storage.withIndex { index in
            let key = index.keyBytes(position)
            return other.storage.withIndex { $0.find(key, hash: $0.hash(key)) }
        }
    }
}

extension Table: Sequence {
    /// The entries in the order the file defines them.
    public func makeIterator() -> Iterator {
        Iterator(table: self)
    }

    public struct Iterator: IteratorProtocol {
        let table: Table
        var position = 0

        public mutating func next() -> (key: String, entry: Entry)? {
            guard position < table.count else { return nil }
            defer { position += 1 }
            return (table.key(at: position), table.entry(at: position))
        }
    }

    public var underestimatedCount: Int { count }
}

extension Table: Hashable {
    public static func == (lhs: Table, rhs: Table) -> Bool {
        if lhs.storage === rhs.storage { return true }
        guard lhs.count == rhs.count else { return false }
        for position in 0..<lhs.count {
            guard let other = lhs.position(ofKeyAt: position, in: rhs),
                  lhs.entryEquals(at: position, rhs, at: other) else { return false }
        }
        return true
    }

    /// Independent of the order of entries, as equality is.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        var sum = 0
        for (key, entry) in self {
            var entryHasher = Hasher()
            entryHasher.combine(key)
            entryHasher.combine(entry)
            sum = sum &+ entryHasher.finalize()
        }
        hasher.combine(sum)
    }
}

extension Table: CustomStringConvertible {
    public var description: String { entries.description }
}

#if canImport(Glibc)
import Glibc
#endif
