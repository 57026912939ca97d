import Foundation
import LprojClient
import LprojPaths
import LprojProcessTesting
import LprojProtocol
import LprojTables
import LprojWatch
import XCTest
@testable import LprojDaemon

/// lprojd's core driven in this process: a real `WatchedTree` (real
/// inotify) feeding a `DaemonCore` through a `TreeFeed`, as the shell
/// does, but with no socket, no epoll and a clock of its own — when nothing
/// is queued and the core waits for a deadline (a removal's grace, a quiet
/// period, a poll), the clock jumps to it instead of sleeping. Sessions
/// are the core's own; a `CoreConnection` speaks the protocol on one.
///
/// (libinotifytools allows one tree per process: one harness at a time.)
final class CoreHarness {
    let directory: String
    let root: String
    let core: DaemonCore
    let feed: TreeFeed
    /// How far this harness's clock is ahead of the real one.
    private var offset: Duration = .zero

    /// A core on a new temporary root, with `configure` applied to its configuration; `populate` fills the root first.
    init(_ configure: (inout Configuration) -> Void = { _ in }, populate: (String) throws -> Void = { _ in }) throws {
        (directory, root, core, feed) = try Self.makeCore(prefix: "lpc", configure, populate: populate)
    }

    /// A new temporary directory holding a root (filled by `populate`) and
    /// the state directory, and a core watching that root through a real
    /// tree, with `configure` applied: what a harness and a `CoreServer` start from.
    static func makeCore(prefix: String, _ configure: (inout Configuration) -> Void, populate: (String) throws -> Void) throws
        -> (directory: String, root: String, core: DaemonCore, feed: TreeFeed) {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        let directory = String(cString: mkdtemp(&template)!)
        // Other users' sessions are served what they could read: the tree is theirs to read unless a test says otherwise.
        chmod(directory, 0o755)
        let root = directory + "/root"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try populate(root)
        var configuration = Configuration()
        configuration.watch.roots = [root]
        configuration.state.directory = directory + "/state"
        configure(&configuration)
        let selections = try Selections(stateDirectory: directory + "/state", maximumApps: configuration.state.maximumApps)
        let core = DaemonCore(configuration: configuration, roots: configuration.watch.roots, selections: selections,
                              log: Log(level: .warning, destination: .standardError))
        let feed = try TreeFeed(core: core, noteSkipped: { _, _ in })
        core.treeStatus = { feed.status }
        core.treeChanged(feed.status)
        return (directory, root, core, feed)
    }

    deinit {
        feed.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The harness's time: the real time, plus the waits it skipped.
    var now: ContinuousClock.Instant { .now + offset }

    func path(_ relative: String) -> String { root + "/" + relative }

    /// A session of a peer (root unless said), as a connection's would be.
    func connect(uid: UInt32 = 0) throws -> CoreConnection {
        switch core.admit(PeerCredentials(pid: getpid(), uid: uid, gid: uid, groups: [uid]), at: now) {
        case .success(let session): return CoreConnection(harness: self, session: session)
        case .failure(let refusal): throw DaemonConnection.Failure.refused(refusal)
        }
    }

    /// Turns the loop until `done` holds: drops the markers asked for,
    /// reads what the tree queued or (with nothing queued) jumps to the
    /// core's next deadline, and ends the turn, as the shell does. Fails
    /// after `timeout` of real time.
    func drive(timeout: Duration = .seconds(30), until done: () -> Bool) throws {
        let deadline = ContinuousClock.now + timeout
        while !done() {
            guard ContinuousClock.now < deadline else { throw DaemonTestError("the core did not get there in time") }
            // Markers asked for are dropped first: their events are queued by the time the tree is looked at.
            feed.dropMarkers(for: core)
            if !readQueuedBatch() && !fireNextDeadline() {
                // Nothing waits in the core: wait for the kernel (a marker just dropped is already queued).
                _ = Self.isReadable(feed.tree.descriptor, milliseconds: 10)
            }
            core.endTurn()
        }
    }

    /// One turn of the loop without waiting: the batch queued by now, if
    /// any, is read (as the shell reads one between a writer's steps); with
    /// `expiring`, the clock first jumps to the core's next deadline and its
    /// timer fires (a writer slower than a wait).
    func turn(expiring: Bool = false) {
        feed.dropMarkers(for: core)
        if expiring { fireNextDeadline() }
        readQueuedBatch()
        core.endTurn()
    }

    /// Reads the batch the tree has queued; false when there is none.
    @discardableResult
    private func readQueuedBatch() -> Bool {
        guard feed.tree.hasQueuedEvents || Self.isReadable(feed.tree.descriptor, milliseconds: 0) else { return false }
        feed.readBatch(into: core, at: now)
        return true
    }

    /// Jumps the clock to the core's next deadline (if it is ahead) and fires the timer; false when nothing waits.
    @discardableResult
    private func fireNextDeadline() -> Bool {
        guard let next = core.nextDeadline else { return false }
        if next > now { offset += next - now }
        feed.timerFired(into: core, at: now)
        return true
    }

    /// A reload with `configure` applied to the configuration (roots as
    /// given, tidied): the core applies it and the tree follows, as SIGHUP does.
    func reload(_ configure: (inout Configuration) -> Void) {
        var configuration = core.configuration
        configure(&configuration)
        let changes = core.apply(configuration, roots: configuration.watch.roots.map(PathText.tidy), polled: [:])
        feed.follow(changes, of: core, at: now)
    }

    private static func isReadable(_ descriptor: Int32, milliseconds: Int32) -> Bool {
        var poll = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return Glibc.poll(&poll, 1, milliseconds) > 0
    }
}

/// The protocol spoken on one of the core's sessions: a request's line
/// handed to the core, the loop turned until its reply is queued; events
/// kept in order for `nextEvent`.
final class CoreConnection {
    let harness: CoreHarness
    let session: Session
    private var framer = LineFramer(maximumLineLength: 1 << 30)
    private var replies: [Wire.Reply] = []
    private var events: [Wire.ReceivedEvent] = []
    private var nextID: Int64 = 0

    init(harness: CoreHarness, session: Session) {
        self.harness = harness
        self.session = session
    }

    /// Sends `request` and turns the loop until its reply comes (a `sync`'s after the tree's marker and the waits).
    func send<R: Request>(_ request: R) throws -> R.Reply {
        nextID += 1
        let id = RequestID.number(nextID)
        harness.core.handle(try Wire.encode(request, id: id), from: session)
        var reply: Wire.Reply?
        try harness.drive {
            take()
            if let index = replies.firstIndex(where: { $0.id == id || ($0.id == nil && $0.error != nil) }) { reply = replies.remove(at: index) }
            return reply != nil
        }
        if let error = reply!.error { throw DaemonConnection.Failure.refused(error) }
        return try reply!.decode(R.Reply.self)
    }

    /// Sends raw bytes as a request line would come (the framing as a connection's).
    func write(_ bytes: [UInt8]) {
        var framer = LineFramer(maximumLineLength: harness.core.configuration.limits.maximumRequestBytes)
        for case .line(let line) in framer.append(bytes[...]) where !line.isEmpty { harness.core.handle(line, from: session) }
    }

    /// Every line the session was given so far (replies and events), as written.
    func takeLines() -> [[UInt8]] {
        var bytes: [UInt8] = []
        while session.queuedBytes > 0 { session.write { chunk in bytes += chunk; return chunk.count } }
        return framer.append(bytes[...]).compactMap { if case .line(let line) = $0 { line } else { nil } }
    }

    /// The next event already queued, in order; `timedOut` when there is none.
    func nextEvent() throws -> Wire.ReceivedEvent {
        take()
        guard !events.isEmpty else { throw DaemonConnection.Failure.timedOut }
        return events.removeFirst()
    }

    /// Reads what the session was given into replies and events.
    private func take() {
        _ = harness.core.publisher.settleLagging(session)
        for line in takeLines() {
            switch Wire.Incoming(line: line) {
            case .reply(let reply)?: replies.append(reply)
            case .event(let event)?: events.append(event)
            case nil: XCTFail("not a reply nor an event: \(String(decoding: line, as: UTF8.self))")
            }
        }
    }
}
