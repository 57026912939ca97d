import LprojTables

/// The last published events, for subscribers that come back with `since`.
///
/// Bounded twice: at most `capacity` events and at most `maximumBytes` of
/// encoded events (2,000 saves that each change every value of a
/// 5,000-key table are gigabytes; the byte bound keeps the ring to what
/// was configured whatever the events weigh). The oldest go first. An
/// event older than the ring cannot be replayed, and the subscriber is told
/// to start afresh (`fresh: true`). An event larger than the byte bound is
/// not kept at all: a `since` before it is answered fresh.
struct History {
    /// An event as published: its sequence number, its line without `sub`,
    /// and what it is about (for subscription filters).
    struct Published {
        var sequence: UInt64
        var body: [UInt8]
        var scope: Scope
    }

    private(set) var capacity: Int
    private(set) var maximumBytes: Int
    /// Bytes of the events kept.
    private(set) var bytes = 0
    private var ring: [Published] = []
    /// Where the oldest kept event is in `ring` (those before it are dropped, compacted now and then).
    private var start = 0
    /// The sequence of the oldest event that can still be replayed (everything after it is kept).
    private var oldestKept: UInt64 = 1

    init(capacity: Int, maximumBytes: Int) {
        self.capacity = capacity
        self.maximumBytes = maximumBytes
        ring.reserveCapacity(min(capacity, 1024))
    }

    /// New bounds; the oldest events go at once while it is over them.
    mutating func setBounds(capacity: Int, maximumBytes: Int) {
        self.capacity = capacity
        self.maximumBytes = maximumBytes
        guard count > 0 else { return }
        if capacity == 0 || maximumBytes == 0 {
            let next = ring[ring.count - 1].sequence + 1
            ring.removeAll(keepingCapacity: true)
            (start, bytes, oldestKept) = (0, 0, next)
            return
        }
        while count > capacity || bytes > maximumBytes {
            bytes -= ring[start].body.count
            ring[start].body = []
            start += 1
        }
        oldestKept = ring[start].sequence
    }

    /// Events kept.
    var count: Int { ring.count - start }

    mutating func append(_ event: Published) {
        guard capacity > 0, event.body.count <= maximumBytes else {
            // Not kept: nothing before it can be replayed either.
            ring.removeAll(keepingCapacity: true)
            start = 0
            bytes = 0
            oldestKept = event.sequence + 1
            return
        }
        ring.append(event)
        bytes += event.body.count
        while count > capacity || bytes > maximumBytes {
            bytes -= ring[start].body.count
            ring[start].body = []
            start += 1
        }
        oldestKept = ring[start].sequence
        if start > 1024 && start * 2 > ring.count {
            ring.removeFirst(start)
            start = 0
        }
    }

    /// The events after `sequence`, oldest first; nil when some of them have
    /// left the ring (or `sequence` is in the future).
    func events(after sequence: UInt64, current: UInt64) -> [Published]? {
        guard sequence <= current else { return nil }
        if sequence == current { return [] }
        guard count > 0, oldestKept <= sequence + 1 else { return nil }
        return ring[start...].filter { $0.sequence > sequence }
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
    /// A bundle's checks: for subscriptions that asked for them (and cover the bundle).
    case checks(bundle: String)
    /// A bundle's misses reported by `user`'s processes: for subscriptions
    /// that asked for them (and cover the bundle) on connections of that
    /// user, root or the daemon's own user.
    case misses(bundle: String, user: UInt32)
    /// A bundle's new generation: for subscriptions that acknowledge or asked for them (and cover the bundle).
    case generation(bundle: String)
}
