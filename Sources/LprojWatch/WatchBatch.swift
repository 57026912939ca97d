/// What a `WatchedTree` read up to a moment.
public struct WatchBatch: Sendable {
    /// The changes, coalesced (a later event about a path replaces an earlier one).
    public var events: [FileEvent]
    /// The control markers (`WatchedTree.signal`) that came back, in order.
    public var signals: [String]
    /// Whether the kernel's queue overflowed: events were lost (`events` has
    /// `.overflow`), and markers may have been.
    public var overflowed: Bool

    public init(events: [FileEvent], signals: [String] = [], overflowed: Bool = false) {
        self.events = events
        self.signals = signals
        self.overflowed = overflowed
    }
}
