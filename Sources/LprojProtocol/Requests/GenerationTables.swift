/// `generation-tables`: the tables a bundle served at one of its last
/// generations (default: the one before its current), as the daemon keeps
/// them for a rollback (`[Limits] RollbackGenerations=`, `RollbackBytes=`);
/// `not-found` with `field: "generation"` for one no longer kept. lprojd 0.2.0.
public struct GenerationTables: Request {
    public static let op = "generation-tables"

    public var bundle: String
    public var generation: UInt64?

    public init(bundle: String, generation: UInt64? = nil) {
        self.bundle = bundle
        self.generation = generation
    }

    public struct Reply: Codable, Sendable, Equatable {
        public var generation: UInt64
        public var hash: String
        /// The bundle's current generation.
        public var current: UInt64
        /// Every generation of the bundle still kept, oldest first.
        public var kept: [UInt64]
        public var tables: [TableSnapshot]

        public init(generation: UInt64, hash: String, current: UInt64, kept: [UInt64], tables: [TableSnapshot]) {
            self.generation = generation
            self.hash = hash
            self.current = current
            self.kept = kept
            self.tables = tables
        }
    }
}
