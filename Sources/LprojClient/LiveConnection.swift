import Foundation
import LprojCatalog
import LprojProtocol
import LprojTables
import Synchronization

/// A `LiveBundle`'s link to lprojd, on a thread of its own: connect, say
/// hello with the app, subscribe to the bundle (with the last clock seen, and
/// the snapshot in the reply when it cannot be honoured), apply events;
/// when the daemon goes away, keep serving the last state and reconnect with
/// backoff (0.1 s doubling to 5 s). Waits end at once on `stop()`.
final class LiveConnection: Sendable {
    private let core: LiveCore
    private let bundle: String
    private let app: String?
    private let socketPath: String?
    private let interrupter = Interrupter()
    private let stopped = Mutex(false)

    init(core: LiveCore, bundle: String, app: String?, socketPath: String?) {
        self.core = core
        self.bundle = bundle
        self.app = app
        self.socketPath = socketPath
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "lprojd-client"
        thread.start()
    }

    func stop() {
        stopped.withLock { $0 = true }
        interrupter.interrupt()
    }

    /// Sends `select-language` on a connection of its own (the thread's is
    /// busy waiting for events), off the caller's thread: `setLanguage` never
    /// waits for the daemon.
    func publishSelection(app: String, language: String) {
        guard core.connected.withLock({ $0 }) else { return }
        let socketPath = socketPath
        DispatchQueue.global().async {
            do {
                let connection = try DaemonConnection(path: socketPath)
                _ = try connection.send(SelectLanguage(app: app, language: language), timeout: .seconds(5))
            } catch {
                // Kept locally; handed to the daemon on the next connect.
            }
        }
    }

    private func run() {
        var clock: Clock?
        var backoff = Duration.milliseconds(100)
        while !stopped.withLock({ $0 }) {
            do {
                let connection = try DaemonConnection(path: socketPath, interrupter: interrupter)
                let hello = try connection.send(Hello(client: "LiveBundle", app: app))
                if app != nil {
                    if let language = hello.language {
                        try? core.choice.save(language)
                        core.select(language)
                    } else if let local = core.snapshot.selection, let app {
                        // Chosen while no daemon ran: tell it now.
                        _ = try connection.send(SelectLanguage(app: app, language: local))
                    }
                }
                let reply = try connection.send(Subscribe(name: "live", bundle: bundle, since: clock, snapshot: true))
                if reply.fresh, let tables = reply.tables { core.replaceTables(Self.tables(from: tables)) }
                clock = reply.clock
                core.setConnected(true)
                backoff = .milliseconds(100)
                while true {
                    let event = try connection.nextEvent(timeout: .seconds(86_400 * 365))
                    if let eventClock = try apply(event, on: connection) { clock = eventClock }
                }
            } catch {
                core.setConnected(false)
                if stopped.withLock({ $0 }) || interrupter.wait(backoff) { return }
                backoff = min(backoff * 2, .seconds(5))
            }
        }
    }

    /// Applies one event; returns its clock.
    private func apply(_ event: DaemonConnection.ReceivedEvent, on connection: DaemonConnection) throws -> Clock? {
        switch event.name {
        case TableChanged.name:
            let change = try event.decode(TableChanged.self)
            let preferences = core.systemPreferences
            core.update { old in
                var tables = old.tables
                if change.deleted == true {
                    tables[change.language]?[change.table] = nil
                    if tables[change.language]?.isEmpty == true { tables[change.language] = nil }
                } else {
                    // Only the keys the event names are touched: the rest is copied as bytes.
                    let table = tables[change.language]?[change.table] ?? Table()
                    tables[change.language, default: [:]][change.table] =
                        table.updating(change.added.merging(change.changed) { $1 }, removing: change.removed)
                }
                let keys = Set(change.added.keys).union(change.changed.keys).union(change.removed)
                return (old.replacing(tables: tables, systemPreferences: preferences), keys.isEmpty ? [:] : [change.table: keys])
            }
            return change.clock
        case LanguageSelected.name:
            let selected = try event.decode(LanguageSelected.self)
            guard selected.app == app else { return selected.clock }
            try? core.choice.save(selected.language)
            core.select(selected.language)
            return selected.clock
        case LocalizationRemoved.name:
            let removed = try event.decode(LocalizationRemoved.self)
            let preferences = core.systemPreferences
            core.update { old in
                guard old.tables[removed.language] != nil else { return nil }
                var tables = old.tables
                let keys = Self.keysByTable(tables[removed.language] ?? [:])
                tables[removed.language] = nil
                return (old.replacing(tables: tables, systemPreferences: preferences), keys)
            }
            return removed.clock
        case Resync.name:
            let resync = try event.decode(Resync.self)
            let snapshot = try connection.send(Snapshot(bundle: bundle))
            core.replaceTables(Self.tables(from: snapshot.tables))
            return max(resync.clock, snapshot.clock)
        default:
            return (event.object["clock"] as? String).flatMap(Clock.init)
        }
    }

    static func tables(from snapshot: [TableSnapshot]) -> [String: [String: Table]] {
        var tables: [String: [String: Table]] = [:]
        for table in snapshot { tables[table.language, default: [:]][table.table] = Table(table.entries) }
        return tables
    }

    static func keysByTable(_ tables: [String: Table]) -> [String: Set<String>] {
        tables.mapValues { Set($0.keys) }
    }
}
