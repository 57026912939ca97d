import CLinux
import Foundation
import LprojProtocol
import LprojTables
import Synchronization

/// A `LiveBundle`'s link to lprojd, on a thread of its own: connect, say
/// hello with the app, subscribe to the bundle (with the last clock seen, and
/// the snapshot in the reply when it cannot be honoured), apply events;
/// when the daemon goes away, keep serving the last state and reconnect with
/// backoff (0.1 s doubling to 5 s). Waits end at once on `stop()`.
/// Connecting and catching up (the first subscription has no clock: what
/// the first views read from the files is read again, from the images when
/// shared) run on a helper thread at the lowest priority.
///
/// The selected language is the daemon's: the app's choice it reports on
/// each connect wins over the local file (which only serves while no daemon
/// answers). `setLanguage` calls are sent on this same connection, from
/// this thread, in call order; while some are unanswered, `language-selected`
/// events are older than this process's newest choice and are not applied
/// (its own echo comes after the last reply), so an older choice never
/// replaces a newer one. Calls made while no daemon answers are sent on
/// the next connect.
///
/// A daemon that numbers generations (`hello`'s `features`) ends each
/// change with a `generation` event: the tables the change's events name
/// are held until then and swapped in together — one snapshot, one observer
/// call, never a torn pair — and the generation is acknowledged (`ack`), so
/// `lprojctl wait` knows this process shows it. An older daemon's events are
/// applied one by one, as they come.
///
/// Misses the bundle's views recorded are reported on the same connection,
/// at most once a second, without waiting for the reply; a miss met while
/// nothing waited wakes the thread, so a process that misses nothing
/// never wakes for them.
final class LiveConnection: Sendable {
    private let core: LiveCore
    private let bundle: String
    private let app: String?
    private let transport: DaemonTransport
    private let interrupter = Interrupter()
    private let stopped = Mutex(false)
    /// Languages to select, in call order, not yet sent.
    private let outbox = Mutex<[String]>([])
    /// Readable when the outbox has something (wakes the thread's wait).
    private let outboxSignal = Interrupter()
    /// The misses to report (nil: not reported).
    private let misses: LiveBundle.MissLog?
    /// The shortest time between two reports of misses.
    static let reportInterval = Duration.seconds(1)

    init(core: LiveCore, bundle: String, app: String?, transport: DaemonTransport, misses: LiveBundle.MissLog? = nil) {
        self.core = core
        self.bundle = bundle
        self.app = app
        self.transport = transport
        self.misses = misses
        misses?.whenFirstPending { [outboxSignal] in outboxSignal.interrupt() }
    }

    /// Runs on `thread` (from here on, until `stop()`).
    func start(on thread: Runner) {
        thread.run(self)
    }

    /// The connection's thread, started before the connection exists: a
    /// `LiveBundle` starts it as soon as its files are listed, so that
    /// making it is not the last thing its first call does. (A thread woken at the end of a
    /// scheduler's slice lets the scheduler switch at once; when a
    /// service's workers start together, the switched-out worker then
    /// waits for all the others before its first answer.)
    final class Runner: Sendable {
        private let connection = Mutex<LiveConnection?>(nil)
        private let handed = DispatchSemaphore(value: 0)

        init() {
            PlainThread.start(named: "lprojd-client") { [self] in
                handed.wait()
                connection.withLock { $0 }?.run()
            }
        }

        /// Runs `connection` on the thread. Call once.
        func run(_ connection: LiveConnection) {
            self.connection.withLock { $0 = connection }
            handed.signal()
        }
    }

    func stop() {
        stopped.withLock { $0 = true }
        interrupter.interrupt()
    }

    /// What `body` returns (or throws), run on a thread of its own at the
    /// lowest priority (nice 19: a thread cannot raise its priority again,
    /// so the caller's stays as it was) while the caller waits.
    private static func atLowestPriority<Value>(_ body: () throws -> Value) throws -> Value {
        try withoutActuallyEscaping(body) { body in
            let handoff = Handoff(body)
            guard PlainThread.start(named: "lprojd-catch-up", {
                _ = lproj_lower_thread_priority(19)
                handoff.run()
            }) else { return try body() }
            return try handoff.result()
        }
    }

    /// A body handed to another thread and its result handed back (the
    /// semaphore orders both). The body is let go before the caller is
    /// woken: it must not outlive the caller's call.
    private final class Handoff<Value>: @unchecked Sendable {
        private var body: (() throws -> Value)?
        private var outcome: Result<Value, any Error>?
        private let done = DispatchSemaphore(value: 0)

        init(_ body: @escaping () throws -> Value) { self.body = body }

        func run() {
            outcome = Result { try body!() }
            body = nil
            done.signal()
        }

        func result() throws -> Value {
            done.wait()
            return try outcome!.get()
        }
    }

    /// Queues `select-language` for the daemon, in call order; `setLanguage`
    /// never waits for the daemon.
    func publishSelection(app: String, language: String) {
        outbox.withLock { $0.append(language) }
        outboxSignal.interrupt()
    }

    private func run() {
        // Localizations mapped from the daemon's images before this thread ran are as of that clock: events since then are replayed.
        var clock: Clock? = core.source.withLock { $0.sharing.firstClock.withLock { $0 } }
        var backoff = Duration.milliseconds(100)
        /// Selections sent and not yet answered, by request (sent again after a reconnect: selecting twice is harmless).
        var unanswered: [(id: RequestID, language: String)] = []
        var lastReport = ContinuousClock.now - Self.reportInterval
        while !stopped.withLock({ $0 }) {
            do {
                // Catching up — connecting, and reading again what views use when what was missed cannot be known — runs
                // at the lowest priority: when a service's processes start (or reconnect) at once, it yields to their
                // first answers (and each other's). Followed, the daemon's events are applied at the thread's own.
                let (connection, generations, reply) = try Self.atLowestPriority { [self] in
                    let connection = try transport.connect(interrupter)
                    let hello = try connection.send(Hello(client: "LiveBundle", app: app))
                    // A daemon that numbers generations ends each change with a `generation` event: the change's tables are
                    // swapped in together then (one observer call, never a torn pair), and the generation acknowledged.
                    let generations = hello.features?.contains("generations") == true
                    let waiting = !unanswered.isEmpty || !outbox.withLock { $0.isEmpty }
                    if app != nil, !waiting {
                        // The daemon's choice (nil: the system's) wins over the local file.
                        try? core.choice.save(hello.language)
                        core.select(hello.language)
                    }
                    let reply = try connection.send(Subscribe(name: "live", bundle: bundle, since: clock, snapshot: false,
                                                              images: core.source.withLock { $0.sharesTables } ? true : nil,
                                                              acknowledges: generations ? true : nil))
                    // What was missed cannot be known: what views use is read again (images through this connection).
                    if reply.fresh { core.reload(on: connection) }
                    return (connection, generations, reply)
                }
                var held = HeldChanges()
                clock = reply.clock
                core.setConnected(true)
                backoff = .milliseconds(100)
                var resend = unanswered.map(\.language)
                unanswered = []
                while true {
                    outboxSignal.drain()
                    let queued = resend + outbox.withLock { queued in
                        defer { queued = [] }
                        return queued
                    }
                    resend = []
                    if let app {
                        for language in queued {
                            unanswered.append((try connection.sendRequest(SelectLanguage(app: app, language: language)), language))
                        }
                    }
                    var wait = Duration.seconds(86_400 * 365)
                    if let misses, misses.hasPending {
                        let due = lastReport + Self.reportInterval
                        if ContinuousClock.now >= due, let report = misses.takeReport(bundle: bundle) {
                            _ = try connection.sendRequest(report)
                            lastReport = .now
                        } else {
                            wait = due - ContinuousClock.now
                        }
                    }
                    guard let message = try Self.nextMessage(on: connection, within: wait, wakeUp: outboxSignal.descriptor) else { continue }
                    switch message {
                    case .reply(let reply):
                        // Selections and reports are sent without waiting: a selection's reply ends its wait. (An images
                        // reply that came after its wait gave up brings descriptors nobody takes: closed.)
                        unanswered.removeAll { $0.id == reply.id }
                        connection.closeDescriptors(of: reply.id)
                    case .event(let event):
                        if event.name == LanguageSelected.name, !unanswered.isEmpty { continue }
                        if event.name == GenerationPublished.name {
                            let published = try event.decode(GenerationPublished.self)
                            held.apply(to: core)
                            _ = try connection.sendRequest(Ack(bundle: published.bundle, generation: published.generation))
                            clock = published.clock
                            continue
                        }
                        if event.name == Resync.name { held = HeldChanges() }
                        let eventClock = try apply(event, on: connection, holding: generations ? held : nil)
                        // Past held changes the clock does not move: a reconnect replays them.
                        if let eventClock, held.isEmpty { clock = eventClock }
                    }
                }
            } catch {
                core.setConnected(false)
                if stopped.withLock({ $0 }) || interrupter.wait(backoff) { return }
                backoff = min(backoff * 2, .seconds(5))
            }
        }
    }

    /// The next message; nil when woken, or when `wait` ran out (the misses' report is due).
    private static func nextMessage(on connection: DaemonConnection, within wait: Duration, wakeUp: Int32) throws -> Wire.Incoming? {
        do {
            return try connection.nextMessage(timeout: wait, wakeUp: wakeUp)
        } catch {
            if case .timedOut = error { return nil }
            throw error
        }
    }

    /// Applies one event — or, with `held`, holds its tables for the generation that ends the change; returns its clock.
    private func apply(_ event: DaemonConnection.ReceivedEvent, on connection: DaemonConnection, holding held: HeldChanges?) throws -> Clock? {
        switch event.name {
        case TableChanged.name:
            let change = try event.decode(TableChanged.self)
            let source = core.source.withLock { $0 }
            // A table that was shared stays shared: the daemon's new image — the one that came with the event, else one asked for
            // on this connection (as of this event or later; the change then names every key that differs). Else, or when no
            // image comes, the event's keys are applied to the table: the rest is copied as bytes.
            let staysShared = change.deleted != true && core.snapshot.tables[change.language]?.loaded?[change.table]?.isMapped == true
            let attached = staysShared ? try? connection.takeImage(of: event)?.get() : nil
            connection.discardImage(of: event)
            let named = change.keys
            if let attached {
                // The event's own image: the table as of the event, so its keys are what differs (no whole-table diff).
                replaceTable(change.table, of: change.language, naming: named, source: source, deleted: false, holding: held) { _ in attached }
            } else if staysShared, let image = source.sharedTable(change.table, of: change.language, on: connection) {
                replaceTable(change.table, of: change.language, naming: nil, source: source, deleted: false, holding: held) { _ in image }
            } else {
                replaceTable(change.table, of: change.language, naming: named, source: source, deleted: change.deleted == true,
                             holding: held) { table in
                    (table ?? Table()).updating(change.added.merging(change.changed) { $1 }, removing: change.removed)
                }
            }
            return change.clock
        case LanguageSelected.name:
            let selected = try event.decode(LanguageSelected.self)
            guard selected.app == app else { return selected.clock }
            // A selection made here and not sent yet is newer than any announcement (`setLanguage` queues it first).
            core.selectAnnounced(selected.language) { !outbox.withLock { $0.isEmpty } }
            return selected.clock
        case LocalizationRemoved.name:
            let removed = try event.decode(LocalizationRemoved.self)
            let preferences = core.systemPreferences
            let step: HeldChanges.Step = { old in
                guard let localization = old.tables[removed.language] else { return nil }
                var tables = old.tables
                let keys = Self.keysByTable(localization.loaded ?? [:])
                tables[removed.language] = nil
                return (old.replacing(tables: tables, systemPreferences: preferences), keys)
            }
            if let held { held.hold(step) } else { core.update(step) }
            return removed.clock
        case Resync.name:
            let resync = try event.decode(Resync.self)
            core.reload(on: connection)
            return resync.clock
        default:
            return event.clock
        }
    }

    /// Swaps in `table` of `localization` as `make` makes it from the current one (or removes it), in a localization already
    /// read; a localization new to this process is only listed (read when a view needs it). The change names the keys of
    /// `keys` whose entries differ (nil: every key that differs).
    private func replaceTable(_ table: String, of localization: String, naming keys: Set<String>?, source: TableSource, deleted: Bool,
                              holding held: HeldChanges?, _ make: @escaping (Table?) -> Table) {
        let preferences = core.systemPreferences
        let step: HeldChanges.Step = { old in
            var localizations = old.tables
            guard let current = old.tables[localization] else {
                guard !deleted else { return nil }
                localizations[localization] = LocalizationTables(localization, source: source)
                return (old.replacing(tables: localizations, systemPreferences: preferences), [:])
            }
            // Never read: it is read as it is then, when a view needs it.
            guard var tables = current.loaded else { return nil }
            tables[table] = deleted ? nil : make(tables[table])
            localizations[localization] = tables.isEmpty && deleted ? nil : LocalizationTables(localization, tables)
            // The keys whose entry differs now: an image can be newer than its event, and then the next event changes nothing.
            let before = current.loaded?[table], after = tables[table]
            let changed = keys?.filter { before?[$0] != after?[$0] } ?? TableDiff(from: before ?? Table(), to: after ?? Table()).keys
            return (old.replacing(tables: localizations, systemPreferences: preferences), changed.isEmpty ? [:] : [table: changed])
        }
        if let held { held.hold(step) } else { core.update(step) }
    }

    static func keysByTable(_ tables: [String: Table]) -> [String: Set<String>] {
        tables.mapValues { Set($0.keys) }
    }
}
