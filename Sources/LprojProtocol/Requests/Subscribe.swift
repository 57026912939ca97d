/// `subscribe`: from now on, send this connection the events that match.
///
/// Filters are optional: `bundle` (a bundle path), `languages` (localizations
/// as named on disk, e.g. `zh-Hant`), `tables` (e.g. `Localizable`). With
/// `since`, a clock from an earlier connection: when it is this instance's
/// and still in the history ring, the missed events are replayed after the
/// reply (`fresh: false`); otherwise `fresh: true` and the client must take
/// a snapshot, since it cannot know what it missed.
public struct Subscribe: Request {
    public static let op = "subscribe"

    /// The subscription's name, unique on the connection; events carry it as `sub`.
    public var name: String
    public var bundle: String?
    public var languages: [String]?
    public var tables: [String]?
    public var since: Clock?

    public init(name: String, bundle: String? = nil, languages: [String]? = nil, tables: [String]? = nil, since: Clock? = nil) {
        self.name = name
        self.bundle = bundle
        self.languages = languages
        self.tables = tables
        self.since = since
    }

    public struct Reply: Codable, Sendable, Equatable {
        public var clock: Clock
        /// True when `since` could not be honoured: the client must resynchronise from a snapshot.
        public var fresh: Bool

        public init(clock: Clock, fresh: Bool) {
            self.clock = clock
            self.fresh = fresh
        }
    }
}
