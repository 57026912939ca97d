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

    /// The socket whose daemon's published images a bundle's first views
    /// may read (`PublishedImages`); nil: none, or the socket path rule's when `listensAtSocket`.
    let socketPath: String?
    let listensAtSocket: Bool

    public init(connect: @escaping @Sendable (_ interrupter: Interrupter?) throws(DaemonConnection.Failure) -> DaemonConnection) {
        self.connect = connect
        socketPath = nil
        listensAtSocket = false
    }

    private init(socket path: String?) {
        connect = { interrupter throws(DaemonConnection.Failure) in try DaemonConnection(path: path, interrupter: interrupter) }
        socketPath = path
        listensAtSocket = true
    }

    /// The daemon listening at `path` (nil: the socket path rule, docs/PROTOCOL.md).
    public static func socket(_ path: String?) -> DaemonTransport {
        DaemonTransport(socket: path)
    }

    /// Where the daemon publishes images, for a transport to a socket (nil for any other).
    var publishedImages: String? {
        guard listensAtSocket else { return nil }
        return SocketPath.publishedImages(socket: socketPath ?? SocketPath.resolve(environment: ProcessInfo.processInfo.environment, userID: getuid()))
    }
}
