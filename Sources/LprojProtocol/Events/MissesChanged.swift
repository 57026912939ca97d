/// `misses`: the misses of a bundle changed: `misses` holds the records
/// that are new or met again (with their totals), `resolved` those whose key
/// its table now has (they left the list). Sent only to subscriptions that
/// asked for them (`subscribe` with `misses: true`).
public struct MissesChanged: Event {
    public static let name = "misses"

    public var clock: Clock
    public var bundle: String
    public var misses: [MissRecord]
    public var resolved: [MissRecord]

    public init(clock: Clock, bundle: String, misses: [MissRecord], resolved: [MissRecord]) {
        self.clock = clock
        self.bundle = bundle
        self.misses = misses
        self.resolved = resolved
    }
}
