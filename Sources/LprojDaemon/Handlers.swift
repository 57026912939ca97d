import LprojProtocol

/// What a request handler answers: a reply now, an error, or a reply that
/// comes later (a `sync` waiting on the watcher).
enum Answer<Reply> {
    case reply(Reply)
    case failure(ProtocolError)
    case later
}

/// The ops the daemon serves, by name. A new op is a new `Request` type in
/// LprojProtocol, a handler method on `DaemonCore`, and one line in
/// `DaemonCore.registerHandlers`.
struct Handlers {
    private var table: [String: (DaemonCore, Session, RequestID, [UInt8]) -> Void] = [:]

    mutating func register<R: Request>(_ type: R.Type, _ handler: @escaping (DaemonCore) -> (R, Session, RequestID) -> Answer<R.Reply>) {
        table[R.op] = { core, session, id, line in
            switch Wire.decode(R.self, from: line, id: id) {
            case .failure(let error):
                core.fail(error, to: id, on: session)
            case .success(let request):
                switch handler(core)(request, session, id) {
                case .reply(let reply): core.reply(reply, to: id, on: session)
                case .failure(let error): core.fail(error, to: id, on: session)
                case .later: break
                }
            }
        }
    }

    /// Decodes a request line and runs its handler; every failure becomes an error reply.
    func handle(_ line: [UInt8], from session: Session, core: DaemonCore) {
        // An acknowledgement in its plain form, read in one pass (a thousand come after every save); any other, the general path.
        if let (id, ack) = Ack.scanned(line) {
            switch core.acknowledge(ack, session: session, id: id) {
            case .reply(let reply): core.reply(reply, to: id, on: session)
            case .failure(let error): core.fail(error, to: id, on: session)
            case .later: break
            }
            return
        }
        // A plain request is read in one pass (`Wire.scannedHeader`: JSON, read as the general path reads it), not parsed
        // twice before its fields are; anything else through the general path, which explains what is wrong.
        if let header = Wire.scannedHeader(of: line), let run = table[header.op] { return run(core, session, header.id, line) }
        switch Wire.header(of: line) {
        case .failure(let failure):
            core.fail(failure.error, to: failure.id, on: session)
        case .success(let header):
            guard let run = table[header.op] else {
                return core.fail(ProtocolError(.unknownOperation, "unknown op \"\(header.op)\"", field: "op"), to: header.id, on: session)
            }
            run(core, session, header.id, line)
        }
    }
}

extension DaemonCore {
    func registerHandlers(into handlers: inout Handlers) {
        handlers.register(Hello.self, DaemonCore.hello)
        handlers.register(Subscribe.self, DaemonCore.subscribe)
        handlers.register(Unsubscribe.self, DaemonCore.unsubscribe)
        handlers.register(Snapshot.self, DaemonCore.snapshot)
        handlers.register(Images.self, DaemonCore.images)
        handlers.register(List.self, DaemonCore.list)
        handlers.register(Lookup.self, DaemonCore.lookup)
        handlers.register(SelectLanguage.self, DaemonCore.selectLanguage)
        handlers.register(Status.self, DaemonCore.status)
        handlers.register(Sync.self, DaemonCore.sync)
        handlers.register(ReportMisses.self, DaemonCore.reportMisses)
        handlers.register(Misses.self, DaemonCore.listMisses)
        handlers.register(Ack.self, DaemonCore.acknowledge)
        handlers.register(Wait.self, DaemonCore.wait)
        handlers.register(Hold.self, DaemonCore.hold)
        handlers.register(Release.self, DaemonCore.release)
        handlers.register(MetricsRequest.self, DaemonCore.metrics)
        handlers.register(GenerationTables.self, DaemonCore.generationTables)
    }
}
