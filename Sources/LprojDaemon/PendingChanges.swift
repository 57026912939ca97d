import LprojPaths
import LprojTables
import LprojWatch

/// File changes that wait before they are read: the daemon's only two
/// timers, both one-shot and only while something waits (an idle daemon
/// never wakes). Part of the core: the shell gives it events and the time,
/// and arms one timer for `nextDeadline`.
///
/// - **Grace.** A table file that disappears (deleted, moved away, its
///   directory gone) stays served for `grace`. Written again meanwhile —
///   an editor that moves the old file away and then writes the new one —
///   it is one change, never a removal and a re-add.
/// - **Quiet.** A file found by listing a directory that appeared may still
///   be being written (`cp -r`, `rsync`): it is read at its `written`
///   (`IN_CLOSE_WRITE`), or once no write to it has been seen for `quiet`
///   (at most `quiet × 20` after it was listed, so a file held open and
///   written for ever is still read). A file read empty is held the same
///   way: an in-place save truncates before it writes, and the kernel
///   queues the truncate's `IN_MODIFY` a moment after the file is empty, so
///   a reader can see the empty file before any event says it is stale.
///   So is a read that a newer event overtook: that event may change
///   nothing for the file when it is handled (a link's move that the
///   batch before already followed), and the file is read all the same.
///
/// Every entry gets a ticket; a `sync` waits until the entries up to the
/// last ticket at its marker's arrival are settled, so a sync answers with
/// the state those changes leave.
struct PendingChanges {
    /// How long each kind of change waits.
    struct Rules: Sendable, Equatable {
        var grace: Duration
        var quiet: Duration

        static let standard = Rules(grace: .milliseconds(250), quiet: .milliseconds(100))
    }

    private enum Reason {
        case vanished
        case listed(giveUp: ContinuousClock.Instant)
    }

    private struct Entry {
        var reason: Reason
        var deadline: ContinuousClock.Instant
        var ticket: UInt64
    }

    /// The waits (a reload may change them: they apply to what waits from then on).
    var rules: Rules
    private var entries: [ExactName: Entry] = [:]
    /// The newest ticket handed out.
    private(set) var lastTicket: UInt64 = 0

    init(rules: Rules) {
        self.rules = rules
    }

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }

    /// Takes in a batch's events; returns the paths to read now, in order.
    /// `isKnown` says whether the served tables has a file; `knownFiles(under:)`
    /// lists the served tables's files under a directory.
    mutating func take(_ events: [FileEvent], at now: ContinuousClock.Instant, isKnown: (String) -> Bool,
                       knownFiles: (String) -> [String]) -> [String] {
        var readNow: [String] = []
        for event in events {
            switch event {
            case .written(let path):
                if !entries.isEmpty { entries[ExactName(path)] = nil }
                readNow.append(path)
            case .modified(let path):
                guard !entries.isEmpty, let entry = entries[ExactName(path)], case .listed(let giveUp) = entry.reason else { continue }
                entries[ExactName(path)]!.deadline = min(now + rules.quiet, giveUp)
            case .listed(let path):
                add(path, .listed(giveUp: now + rules.quiet * 20), deadline: now + rules.quiet)
            case .removed(let path):
                vanish(path, at: now, isKnown: isKnown(path))
            case .directoryGone(let directory):
                for key in entries.keys where key.isWithin(directory) {
                    if case .listed = entries[key]!.reason { entries[key] = nil }
                }
                for path in knownFiles(directory) { vanish(path, at: now, isKnown: true) }
            case .directoryAppeared, .overflow, .linkSwapped:
                break
            }
        }
        return readNow
    }

    /// Holds `path` (read empty, or its read overtaken) until its `written`, or until no write to it has been seen for `quiet`.
    mutating func hold(_ path: String, at now: ContinuousClock.Instant) {
        add(path, .listed(giveUp: now + rules.quiet * 20), deadline: now + rules.quiet)
    }

    /// The paths whose wait is over at `now` (taken out).
    mutating func takeDue(at now: ContinuousClock.Instant) -> [String] {
        let due = entries.filter { $0.value.deadline <= now }
        for key in due.keys { entries[key] = nil }
        return due.sorted { $0.value.ticket < $1.value.ticket }.map(\.key.string)
    }

    /// When the next wait ends; nil when nothing waits.
    var nextDeadline: ContinuousClock.Instant? { entries.values.lazy.map(\.deadline).min() }

    /// Whether every entry up to `ticket` is settled.
    func isSettled(through ticket: UInt64) -> Bool {
        !entries.values.contains { $0.ticket <= ticket }
    }

    /// Forgets everything waiting (an overflow's rescan reads every file now).
    mutating func removeAll() {
        entries.removeAll()
    }

    private mutating func vanish(_ path: String, at now: ContinuousClock.Instant, isKnown: Bool) {
        let key = ExactName(path)
        if let entry = entries[key], case .vanished = entry.reason { return }
        guard isKnown else {
            // Listed and gone before it was read: nothing to serve or to drop.
            entries[key] = nil
            return
        }
        add(path, .vanished, deadline: now + rules.grace)
    }

    private mutating func add(_ path: String, _ reason: Reason, deadline: ContinuousClock.Instant) {
        lastTicket += 1
        entries[ExactName(path)] = Entry(reason: reason, deadline: deadline, ticket: lastTicket)
    }
}
