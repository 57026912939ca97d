#if canImport(Glibc)
import Glibc
#endif
import LprojCommandLine
import LprojDaemon

/// lprojd: watch .lproj trees, keep a live catalog, publish changes over a Unix socket.
let program = "lprojd"

let help = """
    Usage: lprojd [--config FILE] [--root DIR]... [--socket PATH] [--state DIR]
                  [--log-level LEVEL] [--foreground]
           lprojd --check-config [--config FILE] [--root DIR]... [...]

    Watches the .lproj directories and .xcstrings catalogs under each root,
    reparses a table the moment it is saved, and pushes the change to every
    subscribed client over a Unix socket (protocol: docs/PROTOCOL.md).

    Options (flags override the config file):
      --config FILE       read settings from FILE (INI; see config/lprojd.conf)
      --root DIR          a directory tree to watch; repeat for more
                          (replaces the config's roots)
      --socket PATH       listen here (default: $LPROJD_SOCKET, else
                          /run/lprojd/lprojd.sock for root, else
                          $XDG_RUNTIME_DIR/lprojd.sock, else /tmp/lprojd-$UID/lprojd.sock)
      --state DIR         where selected languages are kept (default:
                          /var/lib/lprojd for root, else $XDG_STATE_HOME/lprojd)
      --log-level LEVEL   error, warning, info or debug (default: info)
      --foreground        stay attached and log to standard error (default when
                          started by systemd); otherwise lprojd detaches once it
                          serves, and logs to the journal
      --check-config      check what start-up checks (the keys and their
                          ranges, roots exist and are directories, the
                          socket's and the state directory can be made) and
                          print the effective configuration; a problem is
                          named with its file, line or key (exit 1); a
                          MaxClients= the open-file limit cannot hold is
                          warned of on standard error
      -h, --help          show this help
      --version           print the version

    Signals: SIGTERM or SIGINT stop accepting, flush what clients are owed,
    remove the socket and exit 0. SIGHUP reloads the configuration (the file
    and the flags over it): roots added and dropped, every root walked again
    and every table file read (only differences published), limits, access
    and log level applied, every client kept; a bad file keeps the old
    configuration and says why (in the log and in lprojctl status).

    Started with a socket passed (LISTEN_FDS for this pid) or by systemd
    (NOTIFY_SOCKET), lprojd stays in the foreground and serves that socket.

    Exit status: 0 stopped cleanly, 1 cannot start (bad config, root, socket
    in use), 2 usage error.
    """

let arguments: Arguments
do {
    arguments = try Arguments(Array(CommandLine.arguments.dropFirst()), flags: ["help", "version", "foreground", "check-config"],
                              options: ["config", "root", "socket", "state", "log-level"])
} catch {
    Console.usage(program, error)
}
if arguments.has("help") { Console.out(help); exit(0) }
if arguments.has("version") { Console.out("\(program) \(Console.version)"); exit(0) }
if let operand = arguments.operands.first { Console.usage(program, UsageError("unexpected argument '\(operand)'")) }

let environment = Environment.current

/// The configuration: the file (when `--config` names one), then the flags
/// over it, through the same rules as its keys. Read at start and on SIGHUP.
@Sendable func readConfiguration() throws(ConfigurationError) -> Configuration {
    var configuration = Configuration()
    if let path = arguments.value("config") { configuration = try ConfigurationFile.read(path: path) }
    let roots = arguments.values("root").map { $0.hasPrefix("/") ? $0 : Environment.currentDirectory + "/" + $0 }
    if !roots.isEmpty { configuration.watch.roots = roots }
    if let socket = arguments.value("socket") {
        try ConfigurationFile.override("Socket", "Path", socket.hasPrefix("/") ? socket : Environment.currentDirectory + "/" + socket,
                                       in: &configuration, flag: "--socket")
    }
    if let state = arguments.value("state") {
        try ConfigurationFile.override("State", "Directory", state.hasPrefix("/") ? state : Environment.currentDirectory + "/" + state,
                                       in: &configuration, flag: "--state")
    }
    if let level = arguments.value("log-level") {
        try ConfigurationFile.override("Log", "Level", level, in: &configuration, flag: "--log-level")
    }
    return configuration
}

let configuration: Configuration
do {
    configuration = try readConfiguration()
} catch {
    // A bad flag is a usage error; a bad file is a configuration error.
    if error.file.hasPrefix("--") { Console.usage(program, UsageError(error.description)) }
    Console.fail(program, error.description, status: 1)
}

if arguments.has("check-config") {
    let problems = configuration.problems(environment: environment)
    guard problems.isEmpty else {
        let source = arguments.value("config") ?? "configuration"
        Console.fail(program, problems.map { "\(source): \($0)" }.joined(separator: "\n\(program): "), status: 1)
    }
    for warning in configuration.warnings() {
        Console.error("\(program): warning: \(arguments.value("config") ?? "configuration"): \(warning)")
    }
    Console.out(configuration.rendered(environment: environment))
    exit(0)
}

// Started by systemd (Type=notify), or handed a socket by any launcher that
// names this process (LISTEN_PID, LISTEN_FDS: systemd-socket-activate, a
// Type=simple unit, inetd-style launchers): stay in the foreground, or the
// child would no longer be LISTEN_PID and would drop the passed socket.
let activated = environment["LISTEN_FDS"] != nil && environment["LISTEN_PID"] == String(getpid())
let detach = !arguments.has("foreground") && environment["NOTIFY_SOCKET"] == nil && !activated
// Forks before any thread exists; the parent returns once the daemon serves (or says why not).
let readiness = detach ? Detach.start(program: program) : nil
Daemon.blockSignals()
let log = Log(level: configuration.log.level, destination: detach ? .journal : .standardError)
let daemon: Daemon
do {
    daemon = try Daemon(configuration: configuration, environment: environment, log: log, reload: readConfiguration)
} catch {
    if let readiness { readiness.fail(error.description) }
    Console.fail(program, error.description, status: 1)
}
readiness?.ready("\(program): serving on \(daemon.socketPath) (pid \(getpid()))")
exit(daemon.run())
