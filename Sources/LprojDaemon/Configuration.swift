#if canImport(Glibc)
import Glibc
#endif
import LprojFormats
import LprojPaths
import LprojProtocol
import LprojTables

/// Everything that decides how the daemon runs: what it watches, where it
/// listens and for whom, its limits, where it keeps state. Read from
/// `lprojd.conf` (see `ConfigurationFile`), then overridden by flags.
public struct Configuration: Sendable, Equatable {
    /// How much the daemon says on its log.
    public enum LogLevel: String, Sendable, Equatable, Comparable, CaseIterable {
        case error, warning, info, debug

        public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// A user or group named in config, resolved to its id when read.
    public struct Principal: Sendable, Equatable, CustomStringConvertible {
        public var name: String
        public var id: UInt32
        public var description: String { name }
    }

    /// `[Watch]`: what is watched, and how changes wait.
    public var watch = Watch()
    /// `[Socket]`: where the daemon listens.
    public var socket = Socket()
    /// `[Access]`: who may connect, and who may change selections.
    public var access = Access()
    /// `[Limits]`: what one table, request, client or user may cost (the range of each: `ValueRange`).
    public var limits = Limits()
    /// `[State]`: where selections are kept.
    public var state = State()
    /// `[Log]`.
    public var log = Logging()

    public struct Watch: Sendable, Equatable {
        /// Directory trees to watch.
        public var roots: [String] = []
        /// Glob patterns for paths to ignore: without `/` matched against each
        /// name, with `/` against the path relative to its root.
        public var excludes: [String] = []
        /// How long a table whose file disappeared stays served (an editor's
        /// rename-then-write save is then one change).
        public var removalGrace: Duration = .milliseconds(250)
        /// How long a file found in a new directory must see no write before it
        /// is read (when no `IN_CLOSE_WRITE` says it is complete first).
        public var quietPeriod: Duration = .milliseconds(100)
        /// How often polled directories are listed for changes: those of polled
        /// roots, and those a kernel limit kept from being watched or listed.
        public var pollInterval: Duration = .seconds(2)
        /// How roots not named in `pollRoots` are polled.
        public var pollDefault: PollMode = .auto
        /// Roots with a mode of their own, by path as given (compared by bytes: a
        /// list, not a dictionary, whose `String` keys would merge NFC and NFD twins).
        public var pollRoots: [PollRoot] = []
        /// Directories outside the roots that symbolic links inside them may
        /// lead to (the roots themselves always may).
        public var followLinksTo: [String] = []

        /// The polling mode of `root` (as configured).
        public func pollMode(for root: String) -> PollMode {
            pollRoots.first { PathText.tidy($0.root).hasSameBytes(as: PathText.tidy(root)) }?.mode ?? pollDefault
        }
    }

    /// Whether a root is polled instead of watched with inotify.
    public enum PollMode: String, Sendable, Equatable, CaseIterable {
        /// Polled when `statfs` says it is on a filesystem inotify does not see whole (NFS, SMB, FUSE, 9p…).
        case auto
        case on
        case off
    }

    /// A root with a polling mode of its own (`Poll=on /mnt/nfs/app`).
    public struct PollRoot: Sendable, Equatable {
        public var root: String
        public var mode: PollMode
    }

    public struct Socket: Sendable, Equatable {
        /// nil: the default rule (`SocketPath`).
        public var path: String?
        public var mode: UInt32 = 0o660
        public var group: Principal?
        /// Where `GET /metrics` is served over HTTP; nil: nowhere (the default).
        public var metricsListen: ListenAddress?
        /// Whether images clients asked for are also published beside the
        /// socket (`SocketPath.publishedImages`), for processes that start
        /// later to read without asking (only tables every local user may read).
        public var publishesImages = true

        /// The socket path to use: the configured one, else the default rule.
        public func resolvedPath(environment: [String: String]) -> String {
            path ?? SocketPath.resolve(environment: environment, userID: getuid())
        }
    }

    /// An IP literal and a port: `127.0.0.1:9464`, `[::1]:9464` (port 0: any free one).
    public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
        public var address: String
        public var port: UInt16

        /// Reads `ADDRESS:PORT`; nil when it is not one.
        public init?(_ text: String) {
            let host: Substring, portText: Substring
            if text.hasPrefix("["), let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") {
                host = text[text.index(after: text.startIndex)..<close]
                portText = text[text.index(close, offsetBy: 2)...]
            } else if let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") {
                host = text[..<colon]
                portText = text[text.index(after: colon)...]
            } else {
                return nil
            }
            var buffer = [UInt8](repeating: 0, count: 16)
            guard let port = UInt16(portText), !host.isEmpty,
                  inet_pton(AF_INET, String(host), &buffer) == 1 || inet_pton(AF_INET6, String(host), &buffer) == 1 else { return nil }
            address = String(host)
            self.port = port
        }

        public var description: String { address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)" }
    }

    public struct Access: Sendable, Equatable {
        /// Who may connect; empty: anyone the socket's mode lets in.
        public var allowUsers: [Principal] = []
        public var allowGroups: [Principal] = []
        /// Who may use mutating requests (`select-language`); empty: whoever may connect.
        public var selectUsers: [Principal] = []
        public var selectGroups: [Principal] = []
    }

    public struct Limits: Sendable, Equatable {
        public var maximumTableBytes = 16 << 20
        /// Objects a binary property list table may decode into, references counted each time.
        public var maximumTableObjects = 1_000_000
        public var maximumRequestBytes = 1 << 20
        /// Connections at once from users other than root and the daemon's own.
        public var maximumClients = 256
        /// Connections at once from one user (root and the daemon's own user excepted).
        public var maximumClientsPerUser = 128
        /// Connections beyond `maximumClients` that only root and the daemon's own user may take.
        public var reservedClients = 4
        /// How long a new connection has to send its first complete request line.
        public var firstRequestTimeout: Duration = .seconds(10)
        /// How long a `hold` may keep a bundle's changes back before they are published anyway.
        public var maximumHold: Duration = .seconds(60)
        /// Generations of each bundle kept for `rollback`, and the bytes of changed tables they may hold in all.
        public var rollbackGenerations = 8
        public var rollbackBytes = 64 << 20
        /// Subscriptions on one connection.
        public var maximumSubscriptions = 64
        /// Names in one filter of a request (`languages`, `tables`).
        public var maximumFilterNames = 1024
        /// Missed keys kept (per app, bundle, table, language and key); 0 keeps none.
        public var maximumMisses = 10_000
        /// Table images kept in sealed memory files for clients to map (`images`), one descriptor each; 0: images off.
        public var sharedImages = 1024
        public var clientQueueBytes = 8 << 20
        /// What one user's connections may hold together (queues and subscriptions); root and the daemon's user are not held to it.
        public var userQueueBytes = 64 << 20
        public var historyLength = 4096
        public var historyBytes = 64 << 20

        /// The limits table files are read with.
        public var tableLimits: TableLimits {
            TableLimits(maximumFileBytes: maximumTableBytes, maximumObjects: maximumTableObjects)
        }

        /// File descriptors the daemon needs at most: one per client, the
        /// refused connections it keeps while they read why, and its own (the
        /// socket, inotify, epoll, timers, reads) and the shared images it keeps.
        public var descriptorsNeeded: Int { maximumClients + reservedClients + sharedImages + 64 + 64 }
    }

    public struct State: Sendable, Equatable {
        /// nil: `/var/lib/lprojd` for root, else `$XDG_STATE_HOME/lprojd` or `~/.local/state/lprojd`.
        public var directory: String?
        /// Apps whose selected language is remembered; past it, the one unused longest is forgotten.
        public var maximumApps = 1000

        /// The state directory to use: the configured one, else the default for this user.
        public func resolvedDirectory(environment: [String: String]) -> String {
            if let directory { return directory }
            if getuid() == 0 { return "/var/lib/lprojd" }
            if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/lprojd" }
            return (environment["HOME"] ?? "/tmp") + "/.local/state/lprojd"
        }
    }

    public struct Logging: Sendable, Equatable {
        public var level: LogLevel = .info
    }

    public init() {}

    /// What start-up would refuse, each naming its key: watch.roots that do not
    /// exist or are not directories, a socket directory or state directory
    /// that cannot be made or written. Empty when the daemon can start.
    /// (Users and groups are checked as the file is read.)
    public func problems(environment: [String: String]) -> [String] {
        var problems: [String] = []
        if watch.roots.isEmpty { problems.append("[Watch] Root: no root to watch (Root= in [Watch], or --root)") }
        for root in watch.roots {
            var info = stat()
            if stat(root, &info) != 0 {
                problems.append("[Watch] Root: \(root): \(String(cString: strerror(errno)))")
            } else if (info.st_mode & S_IFMT) != S_IFDIR {
                problems.append("[Watch] Root: \(root): not a directory")
            }
        }
        for root in watch.pollRoots.map(\.root) where !watch.roots.contains(where: { PathText.tidy($0).hasSameBytes(as: PathText.tidy(root)) }) {
            problems.append("[Watch] Poll: \(root) is not a root (name a path given with Root=)")
        }
        let socketPath = socket.resolvedPath(environment: environment)
        let socketDirectory = String(socketPath[..<(socketPath.lastIndex(of: "/") ?? socketPath.startIndex)])
        if let problem = Self.problem(making: socketDirectory.isEmpty ? "/" : socketDirectory) {
            problems.append("[Socket] Path: \(socketPath): \(problem)")
        }
        let stateDirectory = state.resolvedDirectory(environment: environment)
        if let problem = Self.problem(making: stateDirectory) { problems.append("[State] Directory: \(stateDirectory): \(problem)") }
        return problems
    }

    /// What start-up warns of but does not refuse: `MaxClients` (with the
    /// reserved connections and what the daemon needs besides) above the
    /// open-file limit the daemon may raise itself to (`RLIMIT_NOFILE`'s hard limit).
    public func warnings() -> [String] {
        var descriptors = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &descriptors) == 0 else { return [] }
        let needed = limits.descriptorsNeeded
        guard descriptors.rlim_max != rlim_t.max, UInt64(descriptors.rlim_max) < UInt64(needed) else { return [] }
        return ["[Limits] MaxClients: \(limits.maximumClients) clients (+\(limits.reservedClients) reserved) and \(limits.sharedImages) SharedImages need about \(needed) file descriptors, "
                + "but this process may open \(descriptors.rlim_max) (RLIMIT_NOFILE: LimitNOFILE= in the unit, or ulimit -n); "
                + "clients past it are refused with busy"]
    }

    /// Why the directory `path` cannot be used (it, or the nearest existing
    /// directory above it, must be a writable directory), nil when it can.
    static func problem(making path: String) -> String? {
        var current = path
        while true {
            var info = stat()
            if stat(current, &info) == 0 {
                guard (info.st_mode & S_IFMT) == S_IFDIR else { return "\(current) is not a directory" }
                guard Glibc.access(current, W_OK | X_OK) == 0 else { return "\(current) is not writable" }
                return nil
            }
            guard errno == ENOENT || errno == ENOTDIR, let slash = current.lastIndex(of: "/"), current != "/" else {
                return String(cString: strerror(errno))
            }
            current = slash == current.startIndex ? "/" : String(current[..<slash])
        }
    }

    /// The effective configuration as an INI file `--check-config` prints.
    public func rendered(environment: [String: String]) -> String {
        func list(_ principals: [Principal]) -> String { principals.map(\.name).joined(separator: " ") }
        var lines = ["[Watch]"]
        lines += watch.roots.isEmpty ? ["Root="] : watch.roots.map { "Root=\($0)" }
        lines += watch.excludes.map { "Exclude=\($0)" }
        lines += ["RemovalGrace=\(Self.milliseconds(watch.removalGrace))ms", "QuietPeriod=\(Self.milliseconds(watch.quietPeriod))ms",
                  "PollInterval=\(Self.milliseconds(watch.pollInterval))ms", "Poll=\(watch.pollDefault.rawValue)"]
        lines += watch.pollRoots.map { "Poll=\($0.mode.rawValue) \($0.root)" }
        lines += watch.followLinksTo.map { "FollowLinksTo=\($0)" }
        lines += ["", "[Socket]", "Path=\(socket.resolvedPath(environment: environment))",
                  "Mode=0" + String(socket.mode, radix: 8), "Group=\(socket.group?.name ?? "")",
                  "MetricsListen=\(socket.metricsListen?.description ?? "")", "PublishImages=\(socket.publishesImages ? "yes" : "no")",
                  "", "[Access]", "AllowUsers=\(list(access.allowUsers))", "AllowGroups=\(list(access.allowGroups))",
                  "SelectUsers=\(list(access.selectUsers))", "SelectGroups=\(list(access.selectGroups))",
                  "", "[Limits]", "MaxTableBytes=\(limits.maximumTableBytes)", "MaxTableObjects=\(limits.maximumTableObjects)",
                  "MaxRequestBytes=\(limits.maximumRequestBytes)", "MaxClients=\(limits.maximumClients)", "MaxClientsPerUser=\(limits.maximumClientsPerUser)",
                  "ReservedClients=\(limits.reservedClients)", "FirstRequestTimeout=\(Self.milliseconds(limits.firstRequestTimeout))ms",
                  "MaxHold=\(Self.milliseconds(limits.maximumHold))ms",
                  "MaxSubscriptions=\(limits.maximumSubscriptions)", "MaxFilterNames=\(limits.maximumFilterNames)", "Misses=\(limits.maximumMisses)", "SharedImages=\(limits.sharedImages)",
                  "ClientQueueBytes=\(limits.clientQueueBytes)", "UserQueueBytes=\(limits.userQueueBytes)", "HistoryLength=\(limits.historyLength)", "HistoryBytes=\(limits.historyBytes)",
                  "RollbackGenerations=\(limits.rollbackGenerations)", "RollbackBytes=\(limits.rollbackBytes)",
                  "", "[State]", "Directory=\(state.resolvedDirectory(environment: environment))", "MaxApps=\(state.maximumApps)",
                  "", "[Log]", "Level=\(log.level.rawValue)"]
        return lines.joined(separator: "\n")
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
