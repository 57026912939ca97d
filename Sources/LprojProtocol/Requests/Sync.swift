/// `sync`: answered only once every filesystem change made before the
/// request has been processed (the daemon drops a cookie file into each root
/// and waits for its own event), so a tool can write a table and then read
/// it back without racing the watcher.
public struct Sync: Request {
    public static let op = "sync"

    public init() {}

    public struct Reply: Codable, Sendable, Equatable {
        public var clock: Clock

        public init(clock: Clock) {
            self.clock = clock
        }
    }
}
