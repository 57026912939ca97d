import LprojProtocol

/// What a request handler answers: a reply now, an error, or a reply that
/// comes later (a `sync` waiting on the watcher).
enum Answer<Reply> {
    case reply(Reply)
    case failure(ProtocolError)
    case later
}

/// The ops the daemon serves, by name. A new op is a new `Request` type in
/// LprojProtocol, a handler method on `Daemon`, and one line in
/// `Daemon.registerHandlers`.
struct Handlers {
    private var table: [String: (Daemon, ClientConnection, RequestID, [UInt8]) -> Void] = [:]

    mutating func register<R: Request>(_ type: R.Type, _ handler: @escaping (Daemon) -> (R, ClientConnection, RequestID) -> Answer<R.Reply>) {
        table[R.op] = { daemon, client, id, line in
            switch Wire.decode(R.self, from: line, id: id) {
            case .failure(let error):
                daemon.fail(error, to: id, on: client)
            case .success(let request):
                switch handler(daemon)(request, client, id) {
                case .reply(let reply): daemon.reply(reply, to: id, on: client)
                case .failure(let error): daemon.fail(error, to: id, on: client)
                case .later: break
                }
            }
        }
    }

    /// Decodes a request line and runs its handler; every failure becomes an error reply.
    func handle(_ line: [UInt8], from client: ClientConnection, daemon: Daemon) {
        switch Wire.header(of: line) {
        case .failure(let failure):
            daemon.fail(failure.error, to: failure.id, on: client)
        case .success(let header):
            guard let run = table[header.op] else {
                return daemon.fail(ProtocolError(.unknownOperation, "unknown op \"\(header.op)\"", field: "op"), to: header.id, on: client)
            }
            run(daemon, client, header.id, line)
        }
    }
}

extension Daemon {
    func registerHandlers(into handlers: inout Handlers) {
        handlers.register(Hello.self, Daemon.hello)
        handlers.register(Subscribe.self, Daemon.subscribe)
        handlers.register(Unsubscribe.self, Daemon.unsubscribe)
        handlers.register(Snapshot.self, Daemon.snapshot)
        handlers.register(List.self, Daemon.list)
        handlers.register(Lookup.self, Daemon.lookup)
        handlers.register(SelectLanguage.self, Daemon.selectLanguage)
        handlers.register(Status.self, Daemon.status)
        handlers.register(Sync.self, Daemon.sync)
    }
}
