/// `resync`: the subscriber can no longer trust its incremental state and
/// must take a snapshot: the watcher overflowed (the daemon rescanned), the
/// subscriber's queue filled up (it read too slowly), or the subscription
/// asked `since` a clock of another daemon instance.
public struct Resync: Event {
    public static let name = "resync"

    public enum Reason: String, Codable, Sendable {
        case overflow
        case slowConsumer = "slow-consumer"
        case freshInstance = "fresh-instance"
    }

    public var reason: Reason
    public var clock: Clock

    public init(reason: Reason, clock: Clock) {
        self.reason = reason
        self.clock = clock
    }
}
