/// The `sync` requests waiting on the tree, in the order they came: first
/// asked for (the shell drops a marker file for each), then, once the
/// marker's event came back, waiting for the changes that were pending at
/// that moment to settle. Part of the core: no descriptor, no clock.
struct SyncWaits {
    /// Syncs whose markers the shell is yet to drop.
    private var asked: [DaemonCore.PendingSync] = []
    /// Syncs whose marker came back, with the ticket of the last change pending then.
    private var settling: [(ticket: UInt64, sync: DaemonCore.PendingSync)] = []

    /// Asks for a marker on behalf of `sync`.
    mutating func ask(_ sync: DaemonCore.PendingSync) {
        asked.append(sync)
    }

    /// The markers to drop for the syncs asked for since the last call.
    mutating func takeAsked() -> [DaemonCore.PendingSync] {
        defer { asked.removeAll() }
        return asked
    }

    /// The markers of `syncs` came back while the changes up to `ticket` were pending.
    mutating func arrived(_ syncs: [DaemonCore.PendingSync], ticket: UInt64) {
        for sync in syncs { settling.append((ticket, sync)) }
    }

    /// The ticket the oldest settling sync waits for, nil when none waits.
    var oldestTicket: UInt64? { settling.first?.ticket }

    /// The syncs, oldest first, whose changes `isSettled` says are settled
    /// (stopping at the first that is not: answers go in the order asked).
    mutating func takeSettled(_ isSettled: (UInt64) -> Bool) -> [DaemonCore.PendingSync] {
        var settled: [DaemonCore.PendingSync] = []
        while let first = settling.first, isSettled(first.ticket) {
            settling.removeFirst()
            settled.append(first.sync)
        }
        return settled
    }
}
