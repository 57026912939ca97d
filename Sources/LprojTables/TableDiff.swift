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

    /// Every key it names: added, changed or removed.
    public var keys: Set<String> { Set(added.keys).union(changed.keys).union(removed) }

    /// The changes that turn `old` into `new`. Compares bytes: only the
    /// entries that differ become strings. When a key sits at the same
    /// position in both (a save that changed values, the usual edit) it is
    /// found without a lookup.
    public init(from old: Table, to new: Table) {
        var added: [String: Entry] = [:]
        var changed: [String: Change] = [:]
        var found = 0
        for position in 0..<new.count {
            let previous: Int?
            if position < old.count, new.keyEquals(at: position, old, at: position) {
                previous = position
            } else {
                previous = new.position(ofKeyAt: position, in: old)
            }
            if let previous {
                found += 1
                if !new.entryEquals(at: position, old, at: previous) {
                    changed[new.key(at: position)] = Change(old: old.entry(at: previous), new: new.entry(at: position))
                }
            } else {
                added[new.key(at: position)] = new.entry(at: position)
            }
        }
        self.added = added
        self.changed = changed
        // When every key of `old` was found in `new`, nothing was removed
        // (the usual edit), and the pass over `old` is skipped.
        if found == old.count {
            self.removed = []
        } else {
            self.removed = (0..<old.count).filter { old.position(ofKeyAt: $0, in: new) == nil }.map(old.key(at:)).sorted()
        }
    }

    public var isEmpty: Bool { added.isEmpty && changed.isEmpty && removed.isEmpty }
}
