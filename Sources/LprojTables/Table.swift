/// One language's table: key → entry. An immutable value; parsing a file
/// makes one, and tables compare and diff by value.
public struct Table: Hashable, Sendable {
    /// The entries by key.
    public let entries: [String: Entry]

    public init(_ entries: [String: Entry] = [:]) {
        self.entries = entries
    }

    /// A table of plain strings.
    public init(strings: [String: String]) {
        var entries: [String: Entry] = [:]
        entries.reserveCapacity(strings.count)
        for (key, value) in strings { entries[key] = Entry(text: value) }
        self.entries = entries
    }

    public subscript(key: String) -> Entry? { entries[key] }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    /// The keys, sorted by code point.
    public var sortedKeys: [String] { entries.keys.sorted() }

    /// This table with `other`'s entries laid over it, as a `.stringsdict`
    /// entry overrides the same key of the `.strings` table beside it.
    public func overlaid(with other: Table) -> Table {
        if other.isEmpty { return self }
        if isEmpty { return other }
        return Table(entries.merging(other.entries) { _, new in new })
    }
}
