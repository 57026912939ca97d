import LprojTables

/// What an edit expects to find on disk, else it fails as `stale` and
/// writes nothing: the table as a whole at a version (what `lprojctl set
/// --if-version` asks), or only the edited key's entry and its development
/// text as an editor saw them (what the studio asks: another key's change
/// meanwhile is no conflict).
public struct EditExpectation: Sendable, Equatable {
    /// The table's `TableVersion` (nil: any).
    public var table: String?
    /// The edited key's entry version, `TableVersion.of(_:key:)` (nil: any).
    public var entry: String?
    /// The entry version of the key in the development localization (nil: any).
    public var source: String?

    public init(table: String? = nil, entry: String? = nil, source: String? = nil) {
        self.table = table
        self.entry = entry
        self.source = source
    }

    /// Whatever is there.
    public static let anything = EditExpectation()

    /// The table at `version` (nil: anything).
    public static func table(_ version: String?) -> EditExpectation { EditExpectation(table: version) }

    /// Whether `before` (the table the edit applies to) and `development` meet it for an edit of `key`.
    func isMet(key: String, before: Table?, version: String, development: Table?) -> Bool {
        if let table, table != version { return false }
        if let entry, entry != TableVersion.of(before?[key], key: key) { return false }
        if let source, source != TableVersion.of(development?[key], key: key) { return false }
        return true
    }
}
