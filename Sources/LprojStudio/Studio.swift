import Foundation

/// `lprojctl studio`: the translator's workbench, a local web server over
/// lprojd. Each request passes `StudioAccess` first; the page and its
/// script and style are served from the binary (`StudioAssets`, nothing
/// from the network), the rest is `StudioAPI`.
public final class Studio: Sendable {
    /// The address to open, with the token: `http://127.0.0.1:PORT/?token=…`.
    public let address: String
    /// The port it listens on.
    public let port: UInt16
    public let access: StudioAccess
    private let server: HTTPServer
    private let hub: EventHub
    private let memory: MemoryFeed

    /// Starts serving on `host`:`port` (0: a free port) the bundles of the
    /// daemon at `socket` (or only `bundles`), answering `token`. Request bodies are bounded by `maximumBody`.
    public init(host: String, port: UInt16, socket: String?, bundles: [String]?, token: String = StudioAccess.newToken(),
                maximumBody: Int = 1 << 20) throws(StudioError) {
        let hub = EventHub(socket: socket)
        let memory = MemoryFeed(socket: socket, bundles: bundles)
        let api = StudioAPI(socket: socket, bundles: bundles, hub: hub, memory: memory)
        let gate = Gate()
        server = try HTTPServer(address: host, port: port, maximumBody: maximumBody) { request in
            guard let access = gate.access else { return HTTPResponse(status: 503) }
            return Self.route(request, access: access, api: api)
        }
        access = StudioAccess(address: host, port: server.port, token: token)
        self.port = server.port
        gate.access = access
        self.hub = hub
        self.memory = memory
        let shown = host.contains(":") ? "[\(host)]" : host
        address = "http://\(shown):\(server.port)/?token=\(access.token)"
        hub.start()
        memory.start()
        api.warm()
    }

    /// Stops the server and the pages' streams.
    public func stop() {
        hub.stop()
        memory.stop()
        server.stop()
    }

    static func route(_ request: HTTPRequest, access: StudioAccess, api: StudioAPI) -> HTTPResponse {
        var extra: [(String, String)] = []
        switch access.check(request) {
        case .refused(let status, let field, let message):
            return StudioAPI.json(status, ["error": status == 401 ? "unauthorized" : "forbidden", "field": field, "message": message])
        case .allowedSettingCookie:
            extra.append(access.cookieHeader)
            // The token leaves the address bar (and the history) at once.
            if request.path == "/" { return HTTPResponse(status: 303, headers: [("Location", "/")] + extra + StudioAccess.securityHeaders) }
        case .allowed:
            break
        }
        if request.path.hasPrefix("/api/") {
            var response = api.handle(request)
            response.headers += extra
            return response
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return StudioAPI.error(405, "method", "\(request.method) is not allowed on \(request.path)")
        }
        guard let asset = StudioAssets.files[request.path == "/" ? "/index.html" : request.path] else {
            return StudioAPI.error(404, "path", "no such page: \(request.path)")
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", asset.type)] + extra + StudioAccess.securityHeaders, body: Array(asset.text.utf8))
    }

    /// The access policy, known once the server has its port.
    private final class Gate: @unchecked Sendable {
        private let lock = NSLock()
        private var value: StudioAccess?
        var access: StudioAccess? {
            get { lock.withLock { value } }
            set { lock.withLock { value = newValue } }
        }
    }
}
