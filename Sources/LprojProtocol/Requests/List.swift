/// `list`: every bundle the daemon knows, its localizations and tables, and
/// each table's health.
public struct List: Request {
    public static let op = "list"

    public init() {}

    public struct Reply: Codable, Sendable, Equatable {
        public var bundles: [BundleSummary]

        public init(bundles: [BundleSummary]) {
            self.bundles = bundles
        }
    }
}

/// A bundle in a `list` reply.
public struct BundleSummary: Codable, Sendable, Equatable {
    public var path: String
    public var localizations: [LocalizationSummary]
    /// How many problems the cross-language checks find (`diagnostics` events say which).
    public var checks: CheckCounts?
    /// The served state's generation and its tables' hash (`generation` events).
    public var generation: UInt64?
    public var hash: String?
    /// The connections following the bundle, and what each shows.
    public var followers: [Wait.Follower]?

    public init(path: String, localizations: [LocalizationSummary], checks: CheckCounts? = nil, generation: UInt64? = nil, hash: String? = nil,
                followers: [Wait.Follower]? = nil) {
        self.generation = generation
        self.hash = hash
        self.followers = followers
        self.path = path
        self.localizations = localizations
        self.checks = checks
    }
}

/// The cross-language checks' problems in a bundle, by severity.
public struct CheckCounts: Codable, Sendable, Equatable {
    public var errors: Int
    public var warnings: Int

    public init(errors: Int, warnings: Int) {
        self.errors = errors
        self.warnings = warnings
    }
}

/// A localization in a `list` reply.
public struct LocalizationSummary: Codable, Sendable, Equatable {
    public var name: String
    public var tables: [TableSummary]

    public init(name: String, tables: [TableSummary]) {
        self.name = name
        self.tables = tables
    }
}

/// A table in a `list` reply: how many entries are served and whether the
/// file on disk is currently broken (then the last good version is served).
public struct TableSummary: Codable, Sendable, Equatable {
    public enum Health: String, Codable, Sendable {
        case ok
        /// The file has errors now; the last good version is served.
        case invalid
    }

    public var name: String
    public var entries: Int
    public var health: Health
    public var errors: Int
    public var warnings: Int

    public init(name: String, entries: Int, health: Health, errors: Int = 0, warnings: Int = 0) {
        self.name = name
        self.entries = entries
        self.health = health
        self.errors = errors
        self.warnings = warnings
    }
}
