import LprojPaths
import LprojProtocol
import LprojTables

/// One connection as the publisher sees it: what the client said about
/// itself, its subscriptions, and the bytes owed to it. No descriptor: the
/// shell writes what `write` hands it and says how much went, and may give
/// it `writeNow` for events that need not wait in the queue.
///
/// The output queue is bounded: replies beyond the bound pause reading
/// from the client (it must read to be served), and events beyond it are
/// dropped for its subscriptions, which get a `resync` once it has caught
/// up. A client that stops reading therefore costs at most its bound.
final class Session {
    // What the fan-out reads of every session for every event comes first,
    // so that it is two cache lines (the publisher asks for both ahead).
    var subscriptions: [String: Subscription] = [:] {
        didSet {
            subscriptionBytes = subscriptions.values.reduce(0) { $0 + $1.footprint }
            account()
        }
    }
    private var output: [UInt8] = []
    private var written = 0
    /// What its subscriptions hold, counted against `queueLimit` with the queue.
    private(set) var subscriptionBytes = 0
    let queueLimit: Int
    /// What its user's connections hold together, nil for root and the daemon's own user.
    let share: UserShare?
    /// Writes bytes to the client at once, where the shell gave the session
    /// its socket; returns how many went (0 when none could, the failure
    /// left for the shell's next write to find). An event for an empty
    /// queue goes this way, the line its subscription's prefix shares with
    /// every subscription alike (`AddressedLines`): nothing is copied per
    /// subscriber, and the first does not wait for the rest to be queued. Nil (a
    /// core driven in one process): every event is queued.
    var writeNow: ((UnsafeRawBufferPointer) -> Int)?
    /// Whether it reads every user's misses (root and the daemon's own user), not only its own user's.
    let readsEveryUser: Bool
    /// Set when a subscription is marked lagging, cleared when the lagging are taken: most flushes need not look.
    private var mayLag = false
    /// The publisher's name for it (descriptors are reused; these are not).
    let id: Int
    /// The app its hello named (an app hears its own selections).
    var app: String?

    /// Who connected.
    let peer: PeerCredentials
    /// Whose misses it reads: nil for every user's.
    var missReader: UInt32? { readsEveryUser ? nil : peer.uid }
    let connected: ContinuousClock.Instant
    var name: String?
    /// What it said it shows of each bundle (`ack`), and since when.
    var shown: [ExactName: Shown] = [:]

    /// A generation a connection said it shows (or could not take).
    struct Shown {
        var generation: UInt64
        var since: ContinuousClock.Instant
        var refused: String?
    }
    /// What it last counted in `share`.
    private var accounted = 0
    /// Lines whose first byte carries images (an `images` reply, a
    /// `table-changed` event), in order of offset in `output`.
    private var attachments: [Attachment] = []

    init(id: Int, queueLimit: Int, peer: PeerCredentials = PeerCredentials(pid: 0, uid: 0, gid: 0, groups: []),
         readsEveryUser: Bool = true, share: UserShare? = nil, connected: ContinuousClock.Instant = .now) {
        self.id = id
        self.queueLimit = queueLimit
        self.share = share
        self.peer = peer
        self.readsEveryUser = readsEveryUser
        self.connected = connected
    }

    /// Bytes queued and not yet written.
    var queuedBytes: Int { output.count - written }

    /// Whether the queue, with what the subscriptions hold, is past its
    /// bound, or its user's connections are past theirs (stop reading
    /// requests; drop events).
    var isFull: Bool { queuedBytes + subscriptionBytes >= queueLimit || share?.isFull == true }

    /// Adds to the user's share the difference between its queue and subscriptions and what it last added.
    private func account() {
        guard let share else { return }
        let holding = queuedBytes + subscriptionBytes
        if holding != accounted {
            share.add(holding - accounted)
            accounted = holding
        }
    }

    /// Gives back what it held to its user's share (its connection went).
    func release() {
        share?.add(-accounted)
        accounted = 0
    }

    /// Whether the shell has anything to do for it: bytes to write, or a
    /// subscription that may be owed a `resync` (`takeLagging` says which).
    var needsFlush: Bool { queuedBytes > 0 || mayLag }

    /// Queues a reply or a line that must not be dropped.
    func enqueue(_ line: [UInt8]) {
        output += line
        account()
    }

    /// Queues an event for the subscription `name` unless the queue is full,
    /// in which case the subscription is marked lagging. Returns whether it was queued.
    @discardableResult
    func enqueueEvent(_ body: [UInt8], for name: String) -> Bool {
        guard let index = subscriptions.index(forKey: name) else { return false }
        defer { account() }
        var lines = AddressedLines(body: body)
        return enqueueEvent(&lines, at: index, imaged: nil)
    }

    /// Queues an event about `scope` for each subscription that matches it,
    /// as `enqueueEvent(_:for:)` does: `lines`' body, or for a subscription
    /// that asked for images what `imaged` gives (the body that says an
    /// image comes, and the image; nil when there is none). Returns whether
    /// any matched and how many dropped it. (The fan-out's inner loop: each
    /// subscription is read in place, not copied and looked up again by name;
    /// `lines` carries each prefix's line from one session to the next.)
    func enqueueEvent(about scope: Scope, _ lines: inout AddressedLines,
                      imaged: () -> (body: [UInt8], images: [AttachedImage])?) -> (matched: Bool, dropped: Int) {
        var matched = false
        var dropped = 0
        var index = subscriptions.startIndex
        while index != subscriptions.endIndex {
            if subscriptions.values[index].matches(scope, app: app, missReader: missReader) {
                matched = true
                let withImages = subscriptions.values[index].wantsImages ? imaged() : nil
                if !enqueueEvent(&lines, at: index, imaged: withImages) { dropped += 1 }
            }
            subscriptions.formIndex(after: &index)
        }
        if matched { account() }
        return (matched, dropped)
    }

    /// Queues `lines`' body for the subscription at `index`, or `imaged.body`
    /// with its images attached (and the body kept to go instead if they cannot).
    private func enqueueEvent(_ lines: inout AddressedLines, at index: [String: Subscription].Index,
                              imaged: (body: [UInt8], images: [AttachedImage])?) -> Bool {
        if subscriptions.values[index].lagging { return false }
        if isFull {
            subscriptions.values[index].lagging = true
            mayLag = true
            return false
        }
        let prefix = subscriptions.values[index].prefix
        if let imaged, !imaged.images.isEmpty {
            let body = lines.body
            let start = output.count
            Wire.appendAddressed(imaged.body, prefix: prefix, to: &output)
            attachments.append(Attachment(offset: start, length: output.count - start, images: imaged.images) { _ in
                var line: [UInt8] = []
                Wire.appendAddressed(body, prefix: prefix, to: &line)
                return line
            })
            return true
        }
        let line = lines.line(for: prefix)
        if output.isEmpty, let writeNow {
            let written = line.withUnsafeBytes { max(0, writeNow($0)) }
            if written < line.count { output += line[written...] }
            return true
        }
        output += line
        return true
    }

    /// Queues a reply whose first byte carries the images of `images` (the
    /// shell attaches them); `withheld` makes the line that goes instead
    /// when they cannot, from the reason.
    func enqueue(_ line: [UInt8], attaching images: [AttachedImage], withheld: @escaping (_ reason: String) -> [UInt8]) {
        if !images.isEmpty { attachments.append(Attachment(offset: output.count, length: line.count, images: images, withheld: withheld)) }
        output += line
        account()
    }

    /// Replaces the line about to be written, whose images the shell
    /// cannot send (`reason`), with the line made to go without them.
    func withholdImages(because reason: String) {
        guard let next = attachments.first, next.offset == written else { return }
        attachments.removeFirst()
        let line = next.withheld(reason)
        output.replaceSubrange(written..<(written + next.length), with: line)
        for index in attachments.indices { attachments[index].offset += line.count - next.length }
        account()
    }

    /// Calls `body` with bytes not yet written and the images to attach to
    /// the first of them (none, mostly); it returns how many bytes it
    /// wrote — the images went with them when that is more than none. The
    /// bytes end where the next images must be attached.
    func write(_ body: (UnsafeRawBufferPointer, [AttachedImage]) -> Int) {
        var end = output.count
        var images: [AttachedImage] = []
        if let next = attachments.first {
            if next.offset == written {
                images = next.images
                end = attachments.count > 1 ? attachments[1].offset : output.count
            } else {
                end = next.offset
            }
        }
        let count = output.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[written..<end]), images) }
        if count > 0 && !images.isEmpty { attachments.removeFirst() }
        written += count
        defer { account() }
        if written == output.count {
            output.removeAll(keepingCapacity: output.capacity <= 1 << 16)
            written = 0
        } else if written > 1 << 16, written * 2 > output.count {
            output.removeFirst(written)
            for index in attachments.indices { attachments[index].offset -= written }
            written = 0
        }
    }

    /// Calls `body` with bytes not yet written, as `write(_:)` does, for a reader that takes no images (tests).
    func write(_ body: (UnsafeRawBufferPointer) -> Int) {
        write { bytes, _ in body(bytes) }
    }

    /// The subscriptions that dropped events, now that the queue has room: they are owed a resync.
    func takeLagging() -> [Subscription] {
        guard mayLag, queuedBytes == 0 else { return [] }
        mayLag = false
        var owed: [Subscription] = []
        for (name, subscription) in subscriptions where subscription.lagging {
            subscriptions[name]!.lagging = false
            owed.append(subscription)
        }
        return owed
    }
}

/// A table whose image goes with a reply: where it is served, and the table itself.
struct AttachedImage {
    var address: TableAddress
    var table: Table
}

/// A queued line whose first byte carries images, and the line to send
/// in its place when they cannot go (`Session.withholdImages`).
private struct Attachment {
    var offset: Int
    var length: Int
    var images: [AttachedImage]
    var withheld: (_ reason: String) -> [UInt8]
}
