/// What changed between two versions of a table: keys added, keys whose
/// entry changed (with both versions), keys removed.
public struct TableDiff: Hashable, Sendable {
    /// A key's entry before and after.
    public struct Change: Hashable, Sendable {
        public var old: Entry
        public var new: Entry
    }

    public var added: [String: Entry]
    public var changed: [String: Change]
    /// Removed keys, sorted.
    public var removed: [String]

    /// The changes that turn `old` into `new`.
    public init(from old: Table, to new: Table) {
        var added: [String: Entry] = [:]
        var changed: [String: Change] = [:]
        for (key, entry) in new.entries {
            if let previous = old.entries[key] {
                if previous != entry { changed[key] = Change(old: previous, new: entry) }
            } else {
                added[key] = entry
            }
        }
        self.added = added
        self.changed = changed
        // Every key of `new` not added is in `old`: when the counts say all of
        // `old` is accounted for, nothing was removed (the usual edit), and
        // the second pass over `old` is skipped.
        if new.entries.count - added.count == old.entries.count {
            self.removed = []
        } else {
            self.removed = old.entries.keys.filter { new.entries[$0] == nil }.sorted()
        }
    }

    public var isEmpty: Bool { added.isEmpty && changed.isEmpty && removed.isEmpty }
}
