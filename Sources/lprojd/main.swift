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
                          $XDG_RUNTIME_DIR/lprojd.sock, else /tmp/lprojd-$UID.sock)
      --state DIR         where selected languages are kept (default:
                          /var/lib/lprojd for root, else $XDG_STATE_HOME/lprojd)
      --log-level LEVEL   error, warning, info or debug (default: info)
      --foreground        stay attached and log to standard error (default when
                          started by systemd); otherwise lprojd detaches once it
                          serves, and logs to the journal
      --check-config      print the effective configuration and exit; a bad key
                          is named with its file and line (exit 1)
      -h, --help          show this help
      --version           print the version

    Signals: SIGTERM or SIGINT stop accepting, flush what clients are owed,
    remove the socket and exit 0.

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
var configuration = Configuration()
if let path = arguments.value("config") {
    do {
        configuration = try ConfigurationFile.read(path: path)
    } catch {
        Console.fail(program, error.description, status: 1)
    }
}
// Flags override the file, through the same rules as its keys.
do {
    let roots = arguments.values("root").map { $0.hasPrefix("/") ? $0 : Environment.currentDirectory + "/" + $0 }
    if !roots.isEmpty { configuration.roots = roots }
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
} catch {
    Console.usage(program, UsageError(error.description))
}

if arguments.has("check-config") {
    guard !configuration.roots.isEmpty else {
        Console.fail(program, "\(arguments.value("config") ?? "configuration"): no root to watch (Root= in [Watch], or --root)", status: 1)
    }
    Console.out(configuration.rendered(environment: environment))
    exit(0)
}

let detach = !arguments.has("foreground") && environment["NOTIFY_SOCKET"] == nil
// Forks before any thread exists; the parent returns once the daemon serves (or says why not).
let readiness = detach ? Detach.start(program: program) : nil
Daemon.blockSignals()
let log = Log(level: configuration.logLevel, destination: detach ? .journal : .standardError)
let daemon: Daemon
do {
    daemon = try Daemon(configuration: configuration, environment: environment, log: log)
} catch {
    if let readiness { readiness.fail(error.description) }
    Console.fail(program, error.description, status: 1)
}
readiness?.ready("\(program): serving on \(daemon.socketPath) (pid \(getpid()))")
exit(daemon.run())
