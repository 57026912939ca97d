/// `hello`: the first request on a connection. The client names itself and,
/// optionally, the app whose selected language it follows; the daemon
/// answers with its instance id and current clock.
public struct Hello: Request {
    public static let op = "hello"

    /// The client program, for `status` (e.g. `lproj-demo`).
    public var client: String
    /// The app identifier (e.g. `com.example.demo`) for `language-selected` events.
    public var app: String?
    /// The protocol version the client speaks.
    public var `protocol`: Int

    public init(client: String, app: String? = nil, protocol version: Int = Wire.version) {
        self.client = client
        self.app = app
        self.protocol = version
    }

    public struct Reply: Codable, Sendable, Equatable {
        /// This daemon run's id; it changes on every restart.
        public var instance: String
        public var clock: Clock
        /// `lprojd <version>`.
        public var server: String
        public var `protocol`: Int
        /// The language selected for the `app` named in the request (`select-language`);
        /// absent when there is no app or it follows the system.
        public var language: String?
        /// What this daemon does beyond protocol 1 as first published: `generations` (lprojd 0.2: `generation` events,
        /// `ack`, `wait`).
        public var features: [String]?

        public init(instance: String, clock: Clock, server: String, protocol version: Int = Wire.version, language: String? = nil,
                    features: [String]? = nil) {
            self.features = features
            self.instance = instance
            self.clock = clock
            self.server = server
            self.protocol = version
            self.language = language
        }
    }
}
