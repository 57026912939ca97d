/// `generation`: a bundle's served state moved to a new generation — a
/// number that only grows (a restart continues it) and a hash of every
/// table the bundle serves. It follows the events of the change that made
/// it, with the clock of the last of them (it is not a change of its own:
/// it takes no sequence number and is not replayed): a subscriber that
/// applied them holds that generation, and one that subscribed with
/// `acknowledges: true` says so with `ack`. Such a subscription (or one
/// with `generations: true`) also gets the bundle's current generation
/// right after its reply and what was replayed.
public struct GenerationPublished: Event {
    public static let name = "generation"

    public var clock: Clock
    public var bundle: String
    public var generation: UInt64
    /// 16 hex digits: the same tables give the same hash, across restarts.
    public var hash: String

    public init(clock: Clock, bundle: String, generation: UInt64, hash: String) {
        self.clock = clock
        self.bundle = bundle
        self.generation = generation
        self.hash = hash
    }
}
