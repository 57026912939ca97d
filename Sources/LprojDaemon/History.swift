/// The last published events, for subscribers that come back with `since`:
/// a ring of fixed length. An event older than the ring cannot be replayed,
/// and the subscriber is told to start afresh.
struct History {
    /// An event as published: its sequence number, its line without `sub`,
    /// and what it is about (for subscription filters).
    struct Published {
        var sequence: UInt64
        var body: [UInt8]
        var scope: Scope
    }

    let capacity: Int
    private var ring: [Published] = []
    private var start = 0

    init(capacity: Int) {
        self.capacity = capacity
        ring.reserveCapacity(min(capacity, 1024))
    }

    mutating func append(_ event: Published) {
        guard capacity > 0 else { return }
        if ring.count < capacity {
            ring.append(event)
        } else {
            ring[start] = event
            start = (start + 1) % capacity
        }
    }

    /// The events after `sequence`, oldest first; nil when some of them have
    /// left the ring (or `sequence` is in the future).
    func events(after sequence: UInt64, current: UInt64) -> [Published]? {
        guard sequence <= current else { return nil }
        if sequence == current { return [] }
        guard let oldest = ring.isEmpty ? nil : ring[start].sequence, oldest <= sequence + 1 else { return nil }
        var result: [Published] = []
        for offset in 0..<ring.count {
            let event = ring[(start + offset) % ring.count]
            if event.sequence > sequence { result.append(event) }
        }
        return result
    }
}

/// What an event is about, for matching it to subscriptions.
enum Scope {
    /// A table's change or problem (localization nil: a String Catalog's, every language).
    case table(bundle: String, localization: String?, table: String)
    case localization(bundle: String, localization: String)
    case bundle(String)
    /// A language selection: for connections of that app, and for tools (connections without an app).
    case app(String)
    /// Every subscription (a resync after an overflow).
    case everyone
}
