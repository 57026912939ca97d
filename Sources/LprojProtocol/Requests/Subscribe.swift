/// `subscribe`: from now on, send this connection the events that match.
///
/// Filters are optional: `bundle` (a bundle path), `languages` (localizations
/// as named on disk, e.g. `zh-Hant`), `tables` (e.g. `Localizable`). With
/// `since`, a clock from an earlier connection: when it is this instance's
/// and still in the history ring, the missed events are replayed after the
/// reply (`fresh: false`); otherwise `fresh: true` and the client must take
/// a snapshot, since it cannot know what it missed. With `snapshot: true`
/// (the default when `since` is given) a fresh reply carries that snapshot
/// itself in `tables`, so no event can fall between the two. With
/// `images: true`, each `table-changed` event of a table that still exists
/// comes with the table's new image attached, as an `images` reply's do
/// (`"image": true` on the line); replayed events come without.
public struct Subscribe: Request {
    public static let op = "subscribe"

    /// The subscription's name, unique on the connection; events carry it as `sub`.
    public var name: String
    public var bundle: String?
    public var languages: [String]?
    public var tables: [String]?
    public var since: Clock?
    /// Whether a fresh reply carries the matching tables; default: when `since` is given.
    public var snapshot: Bool?
    /// Whether `diagnostics` events come too (the bundles' cross-language checks); default false.
    public var diagnostics: Bool?
    /// Whether `misses` events come too (keys running apps did not find); default false.
    public var misses: Bool?
    /// Whether a `table-changed` event brings the table's new image (`[Limits] SharedImages=0`: never); default false.
    public var images: Bool?
    /// Whether this subscription acknowledges generations (`ack` after each `generation` event); default false.
    public var acknowledges: Bool?
    /// Whether `generation` events come (always, to one that acknowledges); default false.
    public var generations: Bool?

    public init(name: String, bundle: String? = nil, languages: [String]? = nil, tables: [String]? = nil, since: Clock? = nil,
                snapshot: Bool? = nil, diagnostics: Bool? = nil, misses: Bool? = nil, images: Bool? = nil, acknowledges: Bool? = nil,
                generations: Bool? = nil) {
        self.name = name
        self.acknowledges = acknowledges
        self.generations = generations
        self.images = images
        self.diagnostics = diagnostics
        self.misses = misses
        self.bundle = bundle
        self.languages = languages
        self.tables = tables
        self.since = since
        self.snapshot = snapshot
    }

    /// Whether a fresh reply should carry the tables.
    public var wantsSnapshot: Bool { snapshot ?? (since != nil) }

    public struct Reply: Codable, Sendable, Equatable {
        public var clock: Clock
        /// True when `since` could not be honoured: the client must resynchronise from a snapshot.
        public var fresh: Bool
        /// When fresh and a snapshot was wanted: the tables that match, as of `clock`.
        public var tables: [TableSnapshot]?
        /// The subscribed bundle's generation as of `clock` (a subscription to one bundle the daemon serves).
        public var generation: UInt64?

        public init(clock: Clock, fresh: Bool, tables: [TableSnapshot]? = nil, generation: UInt64? = nil) {
            self.clock = clock
            self.fresh = fresh
            self.tables = tables
            self.generation = generation
        }
    }
}
