/// `misses`: the keys running apps looked up and did not find, most met
/// first, optionally only those of a bundle, a language or an app. A
/// connection reads the misses its own user's processes reported (root
/// and the daemon's own user read every user's). A reply holds at most
/// what fits half the connection's queue (`[Limits] ClientQueueBytes=`);
/// `more` counts the records that matched and were left out.
public struct Misses: Request {
    public static let op = "misses"

    public var bundle: String?
    public var language: String?
    public var app: String?
    /// At most this many (0 or more; default: all that fit the reply).
    public var limit: Int?

    public init(bundle: String? = nil, language: String? = nil, app: String? = nil, limit: Int? = nil) {
        self.bundle = bundle
        self.language = language
        self.app = app
        self.limit = limit
    }

    public struct Reply: Codable, Sendable, Equatable {
        public var clock: Clock
        public var misses: [MissRecord]
        /// How many misses the daemon keeps at most (`[Limits] Misses=`; 0: it keeps none).
        public var capacity: Int
        /// Misses not kept since the daemon started: reported when it was full, or dropped by processes at their own bound.
        public var dropped: UInt64
        /// Records that matched and are not in `misses` (the limit, or the
        /// reply's byte bound): ask with narrower filters to see them.
        public var more: Int?

        public init(clock: Clock, misses: [MissRecord], capacity: Int, dropped: UInt64, more: Int? = nil) {
            self.clock = clock
            self.misses = misses
            self.capacity = capacity
            self.dropped = dropped
            self.more = more
        }
    }
}
