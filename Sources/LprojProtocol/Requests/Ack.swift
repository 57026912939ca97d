/// `ack`: this connection shows `generation` of `bundle` — its tables
/// swapped in — or, with `refused`, could not take it (why, in words). Sent
/// by a client that subscribed with `acknowledges: true`, after each
/// `generation` event; `lprojctl wait` waits on them.
public struct Ack: Request {
    public static let op = "ack"

    public var bundle: String
    public var generation: UInt64
    /// Why the generation could not be shown (an image that could not be mapped, a table refused); absent when it is shown.
    public var refused: String?

    public init(bundle: String, generation: UInt64, refused: String? = nil) {
        self.bundle = bundle
        self.generation = generation
        self.refused = refused
    }

    public typealias Reply = EmptyReply
}
