import Foundation
import LprojBundles
import LprojClient
import LprojProtocol
import LprojTables
import Synchronization

/// The studio's `TranslationMemory`, filled from what lprojd serves and
/// kept up to date by its events, on a thread and a connection of its own:
/// a subscription that comes with its snapshot (no event falls between
/// the two), then each `table-changed` applied as it comes. A bundle that
/// appears is read with a snapshot; an event the snapshot already holds
/// (its clock is not newer) is skipped; a `resync` or a lost daemon builds
/// the memory anew.
public final class MemoryFeed: Sendable {
    private let memory = Mutex(TranslationMemory())
    /// Each bundle's development localization, the language of its source texts.
    private let developments = Mutex<[String: String]>([:])
    private let ready = Mutex(false)
    private let socket: String?
    private let bundles: [String]?
    private let stopped = Mutex(false)
    private let interrupter = Interrupter()
    /// Units the memory takes, at most: what a studio's process is allowed to keep.
    static let maximumUnits = 2_000_000

    public init(socket: String?, bundles: [String]?) {
        self.socket = socket
        self.bundles = bundles
    }

    /// Whether the memory holds every served bundle (else its suggestions are what is read so far).
    public var isReady: Bool { ready.withLock { $0 } }

    /// What the memory offers for `source` in `language`, the unit edited left out.
    public func suggestions(for source: String, language: String, excluding unit: TranslationMemory.Unit, limit: Int = 5) -> [TranslationMemory.Suggestion] {
        memory.withLock { $0.suggestions(for: source, language: language, excluding: unit, limit: limit) }
    }

    /// Follows lprojd on a thread of its own until `stop`.
    public func start() {
        let thread = Thread { [self] in follow() }
        thread.name = "lprojctl-studio-memory"
        thread.start()
    }

    public func stop() {
        stopped.withLock { $0 = true }
        interrupter.interrupt()
    }

    private func follow() {
        var backoff = Duration.milliseconds(100)
        while !stopped.withLock({ $0 }) {
            do {
                let connection = try DaemonConnection(path: socket, interrupter: interrupter)
                _ = try connection.send(Hello(client: "lprojctl studio (memory)"))
                let reply = try connection.send(Subscribe(name: "memory", snapshot: true))
                memory.withLock { $0 = TranslationMemory() }
                var clocks: [String: Clock] = [:]
                load(reply.tables ?? [], clock: reply.clock, clocks: &clocks)
                ready.withLock { $0 = true }
                backoff = .milliseconds(100)
                var resync = false
                while !resync {
                    let event = try connection.nextEvent(timeout: .seconds(86_400 * 365))
                    switch event.name {
                    case TableChanged.name:
                        guard let change = try? event.decode(TableChanged.self), wanted(change.bundle),
                              clocks[change.bundle].map({ $0.instance != change.clock.instance || $0 < change.clock }) ?? true else { continue }
                        apply(change)
                    case BundleAdded.name, LocalizationAdded.name, LocalizationRemoved.name:
                        guard let bundle = Self.bundle(of: event), wanted(bundle) else { continue }
                        memory.withLock { $0.removeBundle(bundle) }
                        let snapshot = try connection.send(Snapshot(bundle: bundle))
                        load(snapshot.tables, clock: snapshot.clock, clocks: &clocks)
                    case BundleRemoved.name:
                        guard let bundle = Self.bundle(of: event) else { continue }
                        memory.withLock { $0.removeBundle(bundle) }
                    case Resync.name:
                        // What was missed is not known: the memory is built anew on a new connection.
                        resync = true
                    default:
                        continue
                    }
                }
            } catch {
                ready.withLock { $0 = false }
                if stopped.withLock({ $0 }) || interrupter.wait(backoff) { return }
                backoff = min(backoff * 2, .seconds(5))
            }
        }
    }

    private func wanted(_ bundle: String) -> Bool { bundles?.contains(bundle) ?? true }

    /// The bundle an event names (`bundle-added`, `localization-removed`…).
    private static func bundle(of event: DaemonConnection.ReceivedEvent) -> String? {
        (try? JSONDecoder().decode(BundleNamed.self, from: Data(event.line)))?.bundle
    }

    /// The tables of a snapshot taken at `clock`: each bundle's source texts and translations.
    private func load(_ tables: [TableSnapshot], clock: Clock, clocks: inout [String: Clock]) {
        let byBundle = Dictionary(grouping: tables.filter { wanted($0.bundle) }, by: \.bundle)
        for (bundle, tables) in byBundle {
            let localizations = Set(tables.map(\.language)).sorted()
            let development = DevelopmentLocalization.choose(region: DevelopmentLocalization.region(ofBundleAt: bundle), among: localizations)
            developments.withLock { $0[bundle] = development }
            clocks[bundle] = clock
            for table in tables {
                memory.withLock { memory in
                    guard memory.count + table.entries.count <= Self.maximumUnits else { return }
                    for (key, entry) in table.entries {
                        set(&memory, TranslationMemory.Unit(bundle: bundle, table: table.table, key: key), language: table.language,
                            development: development, text: Coverage.text(of: entry))
                    }
                }
            }
        }
    }

    private func apply(_ change: TableChanged) {
        let development = developments.withLock { $0[change.bundle] }
        memory.withLock { memory in
            for (key, entry) in change.added.merging(change.changed, uniquingKeysWith: { $1 }) {
                set(&memory, TranslationMemory.Unit(bundle: change.bundle, table: change.table, key: key), language: change.language,
                    development: development, text: Coverage.text(of: entry))
            }
            for key in change.removed {
                set(&memory, TranslationMemory.Unit(bundle: change.bundle, table: change.table, key: key), language: change.language,
                    development: development, text: nil)
            }
        }
    }

    private func set(_ memory: inout TranslationMemory, _ unit: TranslationMemory.Unit, language: String, development: String?, text: String?) {
        if language == development { memory.setSource(text, of: unit) } else { memory.setTranslation(text, of: unit, language: language) }
    }
}

/// An event's `bundle` (and `table`, when it names one), whatever the event.
struct BundleNamed: Decodable {
    var bundle: String
    var table: String?
}
