/// Where the daemon listens and clients connect, by one rule both use:
/// `$LPROJD_SOCKET`, else `/run/lprojd/lprojd.sock` for root, else
/// `$XDG_RUNTIME_DIR/lprojd.sock`, else `/tmp/lprojd-$UID/lprojd.sock` —
/// in a directory of the user's own, mode 0700 (as tmux does), which the
/// daemon makes and refuses when another user made it: a name in /tmp
/// itself could be bound first by anyone.
public enum SocketPath {
    /// The default socket path for a process with this environment and user id.
    public static func resolve(environment: [String: String], userID: UInt32) -> String {
        if let path = environment["LPROJD_SOCKET"], !path.isEmpty { return path }
        if userID == 0 { return "/run/lprojd/lprojd.sock" }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/lprojd.sock" }
        return fallbackDirectory(userID: userID) + "/lprojd.sock"
    }

    /// Where the daemon listening at `socket` publishes the images clients
    /// asked for (docs/PROTOCOL.md, "Published images"): the socket's path
    /// with `.images` after it.
    public static func publishedImages(socket: String) -> String {
        socket + ".images"
    }

    /// The private directory of the last resort, for a user with no runtime directory.
    public static func fallbackDirectory(userID: UInt32) -> String {
        "/tmp/lprojd-\(userID)"
    }

    /// The longest path a Unix socket address holds (`sun_path` less its terminating NUL).
    public static let maximumLength = 107
}
