/// `wait`: answered once every process following `bundles` (every bundle
/// served when absent) shows `generation` of each (default: its current
/// one), or when `timeout` seconds have passed, whichever comes first. A
/// process follows a bundle with a subscription that covers it; one whose
/// subscription does not acknowledge (an older client) is listed, never
/// waited on.
public struct Wait: Request {
    public static let op = "wait"

    public var bundles: [String]?
    public var generation: UInt64?
    /// Seconds, at most a day; default 30.
    public var timeout: Double?

    public init(bundles: [String]? = nil, generation: UInt64? = nil, timeout: Double? = nil) {
        self.bundles = bundles
        self.generation = generation
        self.timeout = timeout
    }

    public struct Reply: Codable, Sendable, Equatable {
        /// True when every acknowledging process shows its bundle's generation.
        public var done: Bool
        /// The generation waited for, per bundle.
        public var generations: [String: UInt64]
        /// Who does not show it yet (or never says: `acknowledges: false`).
        public var lagging: [Follower]

        public init(done: Bool, generations: [String: UInt64], lagging: [Follower]) {
            self.done = done
            self.generations = generations
            self.lagging = lagging
        }
    }

    /// One connection following a bundle, as a `wait` or `status` reports it.
    public struct Follower: Codable, Sendable, Equatable {
        public var pid: Int32
        public var client: String?
        public var app: String?
        public var bundle: String
        /// Whether it acknowledges generations at all.
        public var acknowledges: Bool
        /// The generation it last said it shows; absent when it said none.
        public var generation: UInt64?
        /// For how long it has shown that generation.
        public var seconds: Double?
        /// Why it could not take a generation, when it said so.
        public var refused: String?

        public init(pid: Int32, client: String?, app: String?, bundle: String, acknowledges: Bool, generation: UInt64?, seconds: Double?,
                    refused: String?) {
            self.pid = pid
            self.client = client
            self.app = app
            self.bundle = bundle
            self.acknowledges = acknowledges
            self.generation = generation
            self.seconds = seconds
            self.refused = refused
        }
    }
}
