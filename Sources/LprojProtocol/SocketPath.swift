/// Where the daemon listens and clients connect, by one rule both use:
/// `$LPROJD_SOCKET`, else `/run/lprojd/lprojd.sock` for root, else
/// `$XDG_RUNTIME_DIR/lprojd.sock`, else `/tmp/lprojd-$UID.sock`.
public enum SocketPath {
    /// The default socket path for a process with this environment and user id.
    public static func resolve(environment: [String: String], userID: UInt32) -> String {
        if let path = environment["LPROJD_SOCKET"], !path.isEmpty { return path }
        if userID == 0 { return "/run/lprojd/lprojd.sock" }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/lprojd.sock" }
        return "/tmp/lprojd-\(userID).sock"
    }

    /// The longest path a Unix socket address holds (`sun_path` less its terminating NUL).
    public static let maximumLength = 107
}
