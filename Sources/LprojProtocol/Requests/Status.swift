/// `status`: what the daemon is doing: uptime, roots and watches, clients,
/// queue depths, counters.
public struct Status: Request {
    public static let op = "status"

    public init() {}

    public struct Reply: Codable, Sendable, Equatable {
        public var server: String
        /// The daemon's process id.
        public var pid: Int32
        public var instance: String
        public var clock: Clock
        public var uptimeSeconds: Double
        public var roots: [String]
        public var watches: Int
        public var bundles: Int
        public var tables: Int
        public var clients: [Client]
        /// Named counters: events published, files parsed, parse errors, overflows, resyncs…
        public var counters: [String: UInt64]
        /// The last thing that went wrong and is still so (a reload that
        /// failed: the old configuration stays), nil when none.
        public var lastError: String?
        /// What does not work as it should but is worked around (directories
        /// polled because the watch limit was reached, files waiting for a
        /// file descriptor), nil when nothing.
        public var warnings: [String]?
        /// The roots polled instead of watched, nil when none is.
        public var polledRoots: [PolledRoot]?
        /// Where `GET /metrics` is served over HTTP (`[Socket] MetricsListen=`), when it is (lprojd 0.2.0).
        public var metrics: String?

        public init(server: String, pid: Int32, instance: String, clock: Clock, uptimeSeconds: Double, roots: [String], watches: Int,
                    bundles: Int, tables: Int, clients: [Client], counters: [String: UInt64], lastError: String? = nil,
                    warnings: [String]? = nil, polledRoots: [PolledRoot]? = nil, metrics: String? = nil) {
            self.metrics = metrics
            self.lastError = lastError
            self.warnings = warnings
            self.polledRoots = polledRoots
            self.server = server
            self.pid = pid
            self.instance = instance
            self.clock = clock
            self.uptimeSeconds = uptimeSeconds
            self.roots = roots
            self.watches = watches
            self.bundles = bundles
            self.tables = tables
            self.clients = clients
            self.counters = counters
        }
    }

    /// A root that is polled (`[Watch] Poll=`) instead of watched with inotify.
    public struct PolledRoot: Codable, Sendable, Equatable {
        public var root: String
        /// Why: `Poll=on`, or the filesystem it is on (`on NFS`).
        public var reason: String
        /// How long ago its last poll finished; nil before the first (it was listed when added).
        public var lastScanSecondsAgo: Double?

        public init(root: String, reason: String, lastScanSecondsAgo: Double?) {
            self.root = root
            self.reason = reason
            self.lastScanSecondsAgo = lastScanSecondsAgo
        }
    }

    /// A connected client.
    public struct Client: Codable, Sendable, Equatable {
        public var name: String?
        public var app: String?
        public var pid: Int32?
        public var subscriptions: [String]
        /// Bytes waiting to be written to it.
        public var queuedBytes: Int

        public init(name: String?, app: String?, pid: Int32?, subscriptions: [String], queuedBytes: Int) {
            self.name = name
            self.app = app
            self.pid = pid
            self.subscriptions = subscriptions
            self.queuedBytes = queuedBytes
        }
    }
}
