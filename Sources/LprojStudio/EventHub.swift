import Foundation
import LprojClient
import LprojPaths
import LprojProtocol
import LprojTables
import Synchronization

/// The studio's pages, each an event stream, and the one connection that
/// follows lprojd for them: every table change, diagnostics and misses
/// event the daemon publishes is passed on to every open page as a
/// server-sent event of the same name (its JSON as `data`), so an edit
/// made anywhere shows in every page without a reload.
public final class EventHub: Sendable {
    private let streams = Mutex<[EventStream]>([])
    /// Whether lprojd answers now (a new page is told at once).
    private let connected = Mutex(false)
    /// Each bundle's cross-language diagnostics, as the daemon last published them.
    private let diagnostics = Mutex<[String: [Diagnostic]]>([:])
    /// The bundles lprojd serves: listed when the hub connects, then followed by `bundle-added` and `bundle-removed` (nil: not connected).
    private let served = Mutex<Set<String>?>(nil)
    private let counts = Mutex<[String: CheckCounts]>([:])
    private let socket: String?
    private let stopped = Mutex(false)
    private let interrupter = Interrupter()
    /// The overview's figures, which the events of a bundle make stale.
    public let coverage = CoverageCache()

    public init(socket: String?) {
        self.socket = socket
    }

    /// A page to send events to (until its stream closes).
    func add(_ stream: EventStream) {
        streams.withLock { $0.append(stream) }
        stream.post("event: daemon\ndata: {\"connected\":\(connected.withLock { $0 })}\n\n")
    }

    /// Sends `event` (its name) with `data` (one line of JSON) to every open page.
    public func post(_ event: String, data: String) {
        let text = "event: \(event)\ndata: \(data)\n\n"
        let open = streams.withLock { streams in
            streams.removeAll { $0.isClosed }
            return streams
        }
        for stream in open { stream.post(text) }
    }

    /// A bundle's checks counted: in all, and per localization (by the `.lproj` of the file each names).
    public struct CheckCounts: Sendable {
        public var errors = 0
        public var warnings = 0
        public var byLocalization: [String: (errors: Int, warnings: Int)] = [:]

        init(_ diagnostics: [Diagnostic]) {
            for diagnostic in diagnostics {
                let error = diagnostic.severity == .error, warning = diagnostic.severity == .warning
                errors += error ? 1 : 0
                warnings += warning ? 1 : 0
                // (Where a file belongs is TablePlace's rule; a catalog's file names no one localization.)
                guard let language = TablePlace.of(diagnostic.file)?.localization else { continue }
                byLocalization[language, default: (0, 0)].errors += error ? 1 : 0
                byLocalization[language, default: (0, 0)].warnings += warning ? 1 : 0
            }
        }
    }

    /// `bundle`'s checks counted, as the daemon last published them (counted once per `diagnostics` event).
    public func checkCounts(of bundle: String) -> CheckCounts {
        counts.withLock { $0[bundle] } ?? CheckCounts([])
    }

    /// The bundles lprojd serves, sorted, as the hub follows them; nil while it does not answer.
    public func servedBundles() -> [String]? {
        served.withLock { $0?.sorted() }
    }

    /// The diagnostics of `bundle` the daemon last published (none: clean, or not heard of yet).
    public func diagnostics(of bundle: String) -> [Diagnostic] {
        diagnostics.withLock { $0[bundle] ?? [] }
    }

    /// Follows lprojd on a thread of its own, reconnecting with backoff;
    /// a page hears `daemon` with `{"connected": …}` when that changes.
    public func start() {
        let thread = Thread { [self] in follow() }
        thread.name = "lprojctl-studio-daemon"
        thread.start()
    }

    /// Ends the following and closes every page's stream.
    public func stop() {
        stopped.withLock { $0 = true }
        interrupter.interrupt()
        for stream in streams.withLock({ $0 }) { stream.close() }
    }

    private func follow() {
        var backoff = Duration.milliseconds(100)
        while !stopped.withLock({ $0 }) {
            do {
                let connection = try DaemonConnection(path: socket, interrupter: interrupter)
                _ = try connection.send(Hello(client: "lprojctl studio"))
                _ = try connection.send(Subscribe(name: "studio", diagnostics: true, misses: true))
                // (Listed after subscribing: a bundle added meanwhile is in the list, or its event follows.)
                let listed = Set(try connection.send(List()).bundles.map(\.path))
                served.withLock { $0 = listed }
                connected.withLock { $0 = true }
                post("daemon", data: "{\"connected\":true}")
                backoff = .milliseconds(100)
                while true {
                    let event = try connection.nextEvent(timeout: .seconds(86_400 * 365))
                    if event.name == Diagnostics.name, let set = try? event.decode(Diagnostics.self) {
                        diagnostics.withLock { $0[set.bundle] = set.diagnostics }
                        let counted = CheckCounts(set.diagnostics)
                        counts.withLock { $0[set.bundle] = counted }
                    } else if Self.changesTables.contains(event.name), let named = try? JSONDecoder().decode(BundleNamed.self, from: Data(event.line)) {
                        if event.name == BundleAdded.name { served.withLock { _ = $0?.insert(named.bundle) } }
                        if event.name == BundleRemoved.name { served.withLock { _ = $0?.remove(named.bundle) } }
                        coverage.invalidate(named.bundle, table: event.name == TableChanged.name || event.name == TableInvalid.name ? named.table : nil)
                    }
                    post(event.name, data: String(decoding: event.line, as: UTF8.self))
                }
            } catch {
                // What changed while no one listened is not known.
                coverage.invalidateAll()
                served.withLock { $0 = nil }
                connected.withLock { $0 = false }
                post("daemon", data: "{\"connected\":false}")
                if stopped.withLock({ $0 }) || interrupter.wait(backoff) { return }
                backoff = min(backoff * 2, .seconds(5))
            }
        }
    }

    /// The events after which a bundle's figures are read again.
    private static let changesTables: Set<String> = [TableChanged.name, TableInvalid.name, LocalizationAdded.name, LocalizationRemoved.name,
                                                     BundleAdded.name, BundleRemoved.name]
}
