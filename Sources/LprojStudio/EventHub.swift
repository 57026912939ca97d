import Foundation
import LprojClient
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
    private let socket: String?
    private let stopped = Mutex(false)
    private let interrupter = Interrupter()

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
                connected.withLock { $0 = true }
                post("daemon", data: "{\"connected\":true}")
                backoff = .milliseconds(100)
                while true {
                    let event = try connection.nextEvent(timeout: .seconds(86_400 * 365))
                    if event.name == Diagnostics.name, let set = try? event.decode(Diagnostics.self) {
                        diagnostics.withLock { $0[set.bundle] = set.diagnostics }
                    }
                    post(event.name, data: String(decoding: event.line, as: UTF8.self))
                }
            } catch {
                connected.withLock { $0 = false }
                post("daemon", data: "{\"connected\":false}")
                if stopped.withLock({ $0 }) || interrupter.wait(backoff) { return }
                backoff = min(backoff * 2, .seconds(5))
            }
        }
    }
}
