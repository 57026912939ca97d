/// "Every change made before now has been read", for one `WatchedTree`:
/// the one owner of sync markers (watchman's cookie sync).
///
/// `request` drops a marker file, named for the request, into the tree's
/// private control directory. One inotify instance has one queue, so when
/// the marker's event comes back in a batch, every event queued before it
/// has been read; `settle` then hands back the request's token. A full
/// kernel queue drops events, markers included: an overflowed batch settles
/// every request made before it (its reader rescans everything anyway).
/// Markers never go into a user's root, so a read-only tree syncs too.
/// A marker that cannot be made (no file descriptor left) is made again by
/// `resend` (a later marker that arrives settles it as well).
public struct MarkerSync<Token> {
    private let control: String
    private var waiting: [(marker: String, token: Token)] = []
    private var made = 0
    /// Markers that could not be made yet.
    private var unsent: [String] = []

    /// Syncs through `tree`'s control directory.
    public init(tree: WatchedTree) {
        control = tree.controlDirectory
    }

    /// Drops a marker for `token`: it is settled once every change made
    /// before this call has been read from the tree.
    public mutating func request(_ token: Token) {
        made += 1
        let marker = "sync-\(made)"
        waiting.append((marker, token))
        if !WatchedTree.signal(marker, in: control) { unsent.append(marker) }
    }

    /// Tries again to make the markers that could not be made.
    public mutating func resend() {
        let waitingMarkers = Set(waiting.map(\.marker))
        unsent = unsent.filter { waitingMarkers.contains($0) && !WatchedTree.signal($0, in: control) }
    }

    /// Whether some markers could not be made (and wait for `resend`).
    public var hasUnsent: Bool { !unsent.isEmpty }

    /// The tokens that `batch` settles, in the order they were requested.
    public mutating func settle(_ batch: WatchBatch) -> [Token] {
        if batch.overflowed {
            defer { waiting.removeAll() }
            return waiting.map(\.token)
        }
        guard !batch.signals.isEmpty, !waiting.isEmpty else { return [] }
        let arrived = Set(batch.signals)
        // A marker comes back after every earlier one: settle up to the last that arrived.
        guard let last = waiting.lastIndex(where: { arrived.contains($0.marker) }) else { return [] }
        defer { waiting.removeFirst(last + 1) }
        return waiting[...last].map(\.token)
    }

    /// Requests whose markers have not come back yet.
    public var pending: Int { waiting.count }
}
