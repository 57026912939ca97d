#if canImport(Glibc)
import Glibc
#endif
import CSystemd
import LprojProtocol

/// The daemon's listening Unix socket: made by the daemon at its path, or
/// handed over by systemd (socket activation).
struct Listener {
    let descriptor: Int32
    let path: String
    /// Made by systemd: the daemon neither chose its mode nor removes it.
    let isActivated: Bool

    /// The socket systemd passed (`LISTEN_FDS`), if any.
    static func activated() throws(DaemonError) -> Listener? {
        let count = sd_listen_fds(1)
        guard count > 0 else { return nil }
        guard count == 1 else { throw DaemonError("systemd passed \(count) sockets; lprojd takes one") }
        let descriptor = SD_LISTEN_FDS_START
        guard sd_is_socket_unix(descriptor, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0 else {
            throw DaemonError("the socket systemd passed is not a listening Unix stream socket")
        }
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let path = withUnsafeMutablePointer(to: &address) { pointer -> String in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(descriptor, $0, &length) }
            return withUnsafePointer(to: &pointer.pointee.sun_path) { $0.withMemoryRebound(to: CChar.self, capacity: 108) { String(cString: $0) } }
        }
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return Listener(descriptor: descriptor, path: path, isActivated: true)
    }

    /// Binds and listens at `path`. A stale socket of a dead daemon is
    /// replaced; a live daemon's is left alone (an error says so).
    static func open(path: String, mode: UInt32, group: UInt32?) throws(DaemonError) -> Listener {
        guard path.utf8.count <= SocketPath.maximumLength else {
            throw DaemonError("socket path \(path) is longer than \(SocketPath.maximumLength) bytes")
        }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            let parent = String(path[..<slash])
            // The fallback in /tmp is private: anyone could make it first, so who did is checked.
            let isPrivate = parent == SocketPath.fallbackDirectory(userID: getuid())
            var info = stat()
            if lstat(parent, &info) != 0 {
                guard mkdir(parent, isPrivate ? 0o700 : 0o755) == 0 || errno == EEXIST else {
                    throw DaemonError("cannot create the socket's directory \(parent): \(String(cString: strerror(errno)))")
                }
            }
            if isPrivate {
                guard lstat(parent, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                    throw DaemonError("\(parent) is not a directory: another user may have made it to pose as lprojd; remove it or set XDG_RUNTIME_DIR")
                }
                guard info.st_uid == getuid() else {
                    throw DaemonError("\(parent) belongs to user \(info.st_uid), not to you: another user may have made it to pose as lprojd; "
                                      + "remove it or set XDG_RUNTIME_DIR")
                }
                if info.st_mode & 0o077 != 0 { chmod(parent, 0o700) }
            }
        }
        var info = stat()
        if lstat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFSOCK else {
                throw DaemonError("\(path) exists and is not a socket; not replacing it")
            }
            if isAnswering(path) {
                throw DaemonError("another lprojd is already listening on \(path)")
            }
            unlink(path)   // stale: its daemon is gone
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw DaemonError("socket: \(String(cString: strerror(errno)))") }
        // Bound with no access for others, then opened up to the configured mode.
        let previous = umask(0o177)
        let bound = withAddress(path) { bind(descriptor, $0, $1) }
        umask(previous)
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw DaemonError("cannot bind \(path): \(reason)")
        }
        if let group, chown(path, UInt32.max, group) != 0 {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            unlink(path)
            throw DaemonError("cannot give \(path) to group \(group): \(reason)")
        }
        guard chmod(path, mode_t(mode)) == 0, listen(descriptor, 128) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            unlink(path)
            throw DaemonError("cannot listen on \(path): \(reason)")
        }
        return Listener(descriptor: descriptor, path: path, isActivated: false)
    }

    /// Closes the socket and, unless systemd owns it, removes its file.
    func close() {
        Glibc.close(descriptor)
        if !isActivated { unlink(path) }
    }

    /// Whether a daemon answers at `path`.
    private static func isAnswering(_ path: String) -> Bool {
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { Glibc.close(probe) }
        return withAddress(path) { connect(probe, $0, $1) } == 0
    }
}

/// Calls `body` with a `sockaddr_un` for `path`.
func withAddress<Result>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        let bytes = Array(path.utf8.prefix(buffer.count - 1))
        buffer.copyBytes(from: bytes)
        buffer[bytes.count] = 0
    }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
}

/// The daemon could not start or keep running: one line saying why.
public struct DaemonError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
