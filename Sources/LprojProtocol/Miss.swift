/// What answered a lookup whose key the chosen table lacks.
public enum MissAnswer: String, Hashable, Sendable, Codable, CaseIterable {
    /// The development localization's text (a view with development fallback).
    case development
    /// The default value the caller passed.
    case `default`
    /// The key itself.
    case key
}

/// Misses of one key a process met since its last report: never a value
/// or a format argument, only where the key was looked for.
public struct MissReport: Hashable, Sendable, Codable {
    public var table: String
    public var key: String
    /// The localization the view chose first (the one a translator fills), nil when the bundle had none.
    public var language: String?
    /// The localizations the view searched, best first.
    public var languages: [String]
    public var answer: MissAnswer
    /// How many lookups missed it since the last report (at least 1; the
    /// daemon's counts saturate at 2^64 - 1 rather than wrap).
    public var count: Int

    public init(table: String, key: String, language: String?, languages: [String], answer: MissAnswer, count: Int) {
        self.table = table
        self.key = key
        self.language = language
        self.languages = languages
        self.answer = answer
        self.count = count
    }
}

/// A missed key as the daemon keeps it: per app, bundle, table, language
/// and key, with counts and when it was first and last met.
public struct MissRecord: Hashable, Sendable, Codable {
    /// The user whose processes reported it (their connection's credentials,
    /// never a field they send): each user's misses are kept apart, and read
    /// by that user, root and the daemon's own user only.
    public var user: UInt32?
    /// The app of the processes that met it (their `hello`'s: a label the
    /// process chose, not proof of who it is), nil for processes that named none.
    public var app: String?
    public var bundle: String
    public var table: String
    public var language: String?
    public var key: String
    /// The localizations searched in the last report of it.
    public var languages: [String]
    /// What answered instead, in the last report of it.
    public var answer: MissAnswer
    public var count: UInt64
    /// ISO 8601, UTC, to the second.
    public var firstSeen: String
    public var lastSeen: String

    public init(user: UInt32? = nil, app: String?, bundle: String, table: String, language: String?, key: String, languages: [String],
                answer: MissAnswer, count: UInt64, firstSeen: String, lastSeen: String) {
        self.user = user
        self.app = app
        self.bundle = bundle
        self.table = table
        self.language = language
        self.key = key
        self.languages = languages
        self.answer = answer
        self.count = count
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
    }
}
