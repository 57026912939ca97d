import LprojTables

/// `table-changed`: a table's served entries changed — a save, a fix after a
/// broken save (diffed against the last good version), a rescan.
public struct TableChanged: Event {
    public static let name = "table-changed"

    public var clock: Clock
    public var bundle: String
    public var language: String
    public var table: String
    public var added: [String: Entry]
    /// New values of changed keys.
    public var changed: [String: Entry]
    public var removed: [String]

    /// Every key it names: added, changed or removed.
    public var keys: Set<String> { Set(added.keys).union(changed.keys).union(removed) }
    /// True when the table no longer exists in this localization (its files
    /// are gone); `removed` then lists every key it had. Absent otherwise.
    public var deleted: Bool?
    /// True on a line that has the table's new image attached (a
    /// subscription that asked for images); absent otherwise.
    public var image: Bool?

    public init(clock: Clock, bundle: String, language: String, table: String, diff: TableDiff, deleted: Bool = false) {
        self.clock = clock
        self.bundle = bundle
        self.language = language
        self.table = table
        added = diff.added
        changed = diff.changed.mapValues(\.new)
        removed = diff.removed
        self.deleted = deleted ? true : nil
    }
}
