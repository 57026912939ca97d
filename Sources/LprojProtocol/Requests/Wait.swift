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
        /// The generation waited for, per bundle (a list: two bundles may differ only in Unicode normalization).
        public var generations: [BundleGeneration]
        /// Who does not show it yet (or never says: `acknowledges: false`).
        public var lagging: [Follower]

        public init(done: Bool, generations: [BundleGeneration], lagging: [Follower]) {
            self.done = done
            self.generations = generations
            self.lagging = lagging
        }
    }

    /// A bundle and one of its generations.
    public struct BundleGeneration: Codable, Sendable, Equatable {
        public var bundle: String
        public var generation: UInt64

        public init(bundle: String, generation: UInt64) {
            self.bundle = bundle
            self.generation = generation
        }
    }

    /// One connection following a bundle, as a `wait` or `status` reports it.
    public struct Follower: Codable, Sendable, Equatable {
        public var pid: Int32
        /// The user the process runs as (the connection's credentials).
        public var uid: UInt32?
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

        public init(pid: Int32, uid: UInt32? = nil, client: String?, app: String?, bundle: String, acknowledges: Bool, generation: UInt64?,
                    seconds: Double?, refused: String?) {
            self.pid = pid
            self.uid = uid
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
