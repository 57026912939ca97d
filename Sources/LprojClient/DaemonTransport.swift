import Foundation
import LprojProtocol

/// How a client reaches lprojd: the socket at a path (the default), or any
/// way that yields a connected `DaemonConnection` — a test, or a process
/// that serves a daemon core itself, hands over one end of a socket pair.
/// A `LiveBundle` connects (and reconnects) through it, for its events and
/// its images alike.
public struct DaemonTransport: Sendable {
    /// A new connection; `interrupter` ends its waits from another thread.
    public let connect: @Sendable (_ interrupter: Interrupter?) throws(DaemonConnection.Failure) -> DaemonConnection

    /// Where the daemon publishes images a bundle's first views may read
    /// (`PublishedImages`): beside the socket, for a transport to one; nil for any other.
    let publishedImages: @Sendable () -> String?

    public init(connect: @escaping @Sendable (_ interrupter: Interrupter?) throws(DaemonConnection.Failure) -> DaemonConnection) {
        self.connect = connect
        publishedImages = { nil }
    }

    private init(socket path: String?) {
        connect = { interrupter throws(DaemonConnection.Failure) in try DaemonConnection(path: path, interrupter: interrupter) }
        publishedImages = {
            SocketPath.publishedImages(socket: path ?? SocketPath.resolve(environment: ProcessInfo.processInfo.environment, userID: getuid()))
        }
    }

    /// The daemon listening at `path` (nil: the socket path rule, docs/PROTOCOL.md).
    public static func socket(_ path: String?) -> DaemonTransport {
        DaemonTransport(socket: path)
    }
}
