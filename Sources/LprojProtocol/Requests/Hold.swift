/// `hold`: keep `bundle`'s changes back — read as they are saved, published
/// none — until `release` (or this connection closes, or `[Limits]
/// MaxHold=` passes: then they are published anyway, and the log says so),
/// so that a deploy writing many files publishes them as one change: one
/// generation, which a client swaps in together. One connection holds a
/// bundle at a time.
public struct Hold: Request {
    public static let op = "hold"

    public var bundle: String

    public init(bundle: String) {
        self.bundle = bundle
    }

    public struct Reply: Codable, Sendable, Equatable {
        /// Seconds until the hold ends by itself (`MaxHold=`).
        public var seconds: Double

        public init(seconds: Double) {
            self.seconds = seconds
        }
    }
}

/// `release`: publishes what `hold` kept back, as one change; the reply says
/// the generation it made (absent when nothing changed).
public struct Release: Request {
    public static let op = "release"

    public var bundle: String

    public init(bundle: String) {
        self.bundle = bundle
    }

    public struct Reply: Codable, Sendable, Equatable {
        public var generation: UInt64?
        /// How many tables the change published.
        public var tables: Int

        public init(generation: UInt64?, tables: Int) {
            self.generation = generation
            self.tables = tables
        }
    }
}
