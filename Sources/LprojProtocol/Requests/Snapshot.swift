import LprojTables

/// `snapshot`: the whole current tables that match the filters, with the
/// clock they are as of. A client that got `fresh: true` replaces its state
/// with this.
public struct Snapshot: Request {
    public static let op = "snapshot"

    public var bundle: String?
    public var languages: [String]?
    public var tables: [String]?

    public init(bundle: String? = nil, languages: [String]? = nil, tables: [String]? = nil) {
        self.bundle = bundle
        self.languages = languages
        self.tables = tables
    }

    public struct Reply: Codable, Sendable, Equatable {
        public var clock: Clock
        public var tables: [TableSnapshot]

        public init(clock: Clock, tables: [TableSnapshot]) {
            self.clock = clock
            self.tables = tables
        }
    }
}

/// One table's entries: plain strings as JSON strings, rules as objects
/// (see docs/TABLES.md for the entry form).
public struct TableSnapshot: Codable, Sendable, Equatable {
    public var bundle: String
    public var language: String
    public var table: String
    public var entries: [String: Entry]

    public init(bundle: String, language: String, table: String, entries: [String: Entry]) {
        self.bundle = bundle
        self.language = language
        self.table = table
        self.entries = entries
    }
}
