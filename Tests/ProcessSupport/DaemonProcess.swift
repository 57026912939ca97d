import Foundation
import LprojBundles
import LprojClient
import LprojPaths
import LprojProtocol
import LprojTables
#if canImport(XCTest)
import XCTest
#endif

/// The built `lprojd` binary running on a temporary tree: started with a
/// NOTIFY_SOCKET of the test's own, so "ready" is the daemon's sd_notify
/// READY=1 — no sleeping, no polling the socket.
public final class DaemonProcess {
    public let directory: String
    public let root: String
    public let socket: String
    public let state: String
    private(set) var process: Process?
    private var notify: Int32 = -1
    private let notifyPath: String
    public let extraArguments: [String]
    private(set) var stderrPath: String

    /// Where `config` was written (`--config`), when there is one.
    private(set) var configPath: String?
    /// Whether `--root` is passed (false: the config's `Root=` decide, and a reload may change them).
    public let passesRoot: Bool
    /// A command lprojd is started through (its path and flags follow), e.g. a sandbox.
    public var wrapper: [String] = []
    /// The lprojd to run (default: the built one).
    public var binary: String?

    /// `config`: the text of a config file the daemon reads (`--config`), beside the flags.
    public init(extraArguments: [String] = [], config: String? = nil, passesRoot: Bool = true, file: StaticString = #filePath, line: UInt = #line) throws {
        var template = Array("/tmp/lpd-XXXXXX".utf8CString)
        directory = String(cString: mkdtemp(&template)!)
        root = directory + "/root"
        socket = directory + "/d.sock"
        state = directory + "/state"
        notifyPath = directory + "/n.sock"
        stderrPath = directory + "/stderr"
        self.passesRoot = passesRoot
        if let config {
            let path = directory + "/lprojd.conf"
            try Data(config.utf8).write(to: URL(fileURLWithPath: path))
            configPath = path
            self.extraArguments = ["--config", path] + extraArguments
        } else {
            self.extraArguments = extraArguments
        }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    deinit {
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        if notify >= 0 { close(notify) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Replaces the config file's text (for a reload).
    public func rewriteConfig(_ text: String) throws {
        guard let configPath else { throw DaemonTestError("no config file") }
        try Data(text.utf8).write(to: URL(fileURLWithPath: configPath))
    }

    /// Starts lprojd and waits for READY=1 (or its exit, which fails the test).
    /// `environment` is added to the test's own.
    public func start(timeout: Duration = .seconds(30), environment extra: [String: String] = [:]) throws {
        if notify < 0 { notify = try Self.bindDatagram(notifyPath) }
        let process = Process()
        let daemonArguments = ["--foreground"] + (passesRoot ? ["--root", root] : []) + ["--socket", socket, "--state", state] + extraArguments
        let binary = self.binary ?? binaryDirectory().appendingPathComponent("lprojd").path
        process.executableURL = URL(fileURLWithPath: wrapper.first ?? binary)
        process.arguments = wrapper.isEmpty ? daemonArguments : Array(wrapper.dropFirst()) + [binary] + daemonArguments
        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        environment["NOTIFY_SOCKET"] = notifyPath
        environment.removeValue(forKey: "LISTEN_FDS")
        process.environment = environment
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = ContinuousClock.now + timeout
        while true {
            guard process.isRunning else {
                throw DaemonTestError("lprojd exited (\(process.terminationStatus)) before it was ready: \(log)")
            }
            guard ContinuousClock.now < deadline else { throw DaemonTestError("lprojd not ready in time: \(log)") }
            if let message = nextNotification(waitingMilliseconds: 200), message.split(separator: "\n").contains("READY=1") { return }
        }
    }

    /// Every message the daemon sent to its NOTIFY_SOCKET, in order, as read so far.
    public private(set) var notifications: [String] = []

    /// Reads the daemon's notifications until one has the line `line`
    /// (`READY=1`) or a line starting with it; returns that message.
    @discardableResult
    public func awaitNotification(_ line: String, timeout: Duration = .seconds(30)) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let message = nextNotification(waitingMilliseconds: 100),
               message.split(separator: "\n").contains(where: { $0 == line || $0.hasPrefix(line) }) { return message }
        }
        throw DaemonTestError("no \(line) among the notifications \(notifications)")
    }

    /// The next message on the notify socket (kept in `notifications`), nil when none came in time.
    private func nextNotification(waitingMilliseconds: Int32) -> String? {
        var poll = pollfd(fd: notify, events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&poll, 1, waitingMilliseconds) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(notify, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        let message = String(decoding: buffer.prefix(count), as: UTF8.self)
        notifications.append(message)
        return message
    }

    /// SIGTERM, then waits for the exit; returns the status.
    @discardableResult
    public func stop() -> Int32 {
        guard let process else { return -1 }
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// SIGKILL: no cleanup at all.
    public func killHard() {
        guard let process else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    public func signal(_ number: Int32) {
        if let process { kill(process.processIdentifier, number) }
    }

    public var pid: Int32 { process?.processIdentifier ?? 0 }

    /// The daemon's resident memory now (VmRSS).
    public func residentBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { throw DaemonTestError("no VmRSS") }
        return kilobytes * 1024
    }

    /// What the daemon wrote on standard error.
    public var log: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    public func connect() throws -> DaemonConnection { try DaemonConnection(path: socket) }

    /// A connection that said hello (as `tests`) and subscribed to every event as `name`: how most tests start.
    public func subscriber(_ name: String = "all", diagnostics: Bool? = nil) throws -> DaemonConnection {
        let connection = try connect()
        _ = try connection.send(Hello(client: "tests"))
        _ = try connection.send(Subscribe(name: name, diagnostics: diagnostics))
        return connection
    }

    // MARK: files

    public func path(_ relative: String) -> String { root + "/" + relative }

    public func write(_ relative: String, _ contents: String) throws {
        let url = URL(fileURLWithPath: path(relative))
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: url)
    }

    /// Runs a shell command in the root (or in `directory`).
    public func shell(_ command: String, in directory: String? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.currentDirectoryURL = URL(fileURLWithPath: directory ?? root)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw DaemonTestError("shell command failed (\(process.terminationStatus)): \(command)") }
    }

    private static func bindDatagram(_ path: String) throws -> Int32 {
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw DaemonTestError("cannot bind the notify socket \(path)") }
        // A daemon run as another user (a sandbox test) may send to it too.
        chmod(path, 0o666)
        return descriptor
    }
}

extension DaemonProcess {
    /// lprojd started by `systemd-socket-activate` on this daemon's socket
    /// path, with `arguments`, NOTIFY_SOCKET unset; returns once the socket
    /// listens (the daemon starts on the first connection). The caller ends it.
    public func startSocketActivated(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-socket-activate")
        process.arguments = ["-l", socket, binaryDirectory().appendingPathComponent("lprojd").path] + arguments
        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        environment.removeValue(forKey: "NOTIFY_SOCKET")
        process.environment = environment
        let err = Pipe()
        process.standardError = err
        try process.run()
        var said = ""
        while !said.contains("Listening on") {
            let data = err.fileHandleForReading.availableData
            guard !data.isEmpty else { throw DaemonTestError("systemd-socket-activate said: \(said)") }
            said += String(decoding: data, as: UTF8.self)
        }
        return process
    }
}

#if canImport(XCTest)
/// A test that needs what only some machines give (root, the staged
/// install) skips elsewhere, saying why — but under CI (`CI` set), where
/// it must run, a missing precondition is a failure, never a silent skip.
public func requirement(_ met: Bool, _ reason: String) throws {
    guard !met else { return }
    if ProcessInfo.processInfo.environment["CI"] != nil { throw DaemonTestError("CI must run this test, but: \(reason)") }
    throw XCTSkip(reason)
}
#endif

public struct DaemonTestError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The directory of the built executables: `$LPROJ_BIN_DIR`, else the test bundle's.
public func binaryDirectory() -> URL {
    if let path = ProcessInfo.processInfo.environment["LPROJ_BIN_DIR"] { return URL(fileURLWithPath: path) }
    var url = Bundle(for: DaemonProcess.self).bundleURL
    while url.pathExtension == "xctest" || url.lastPathComponent == "Contents" { url.deleteLastPathComponent() }
    return url
}

/// What a subscriber knows: tables built from a snapshot and the events
/// after it, exactly as a client library would keep them.
public struct Mirror: Equatable {
    public var tables: [ExactName: Table] = [:]   // "bundle|localization|table" (bytes) → entries
    public var resyncs = 0
    public var invalid: [TableInvalid] = []
    /// Bundles and "bundle|localization" as the structural events said.
    public var bundles = Set<ExactName>()
    public var localizations = Set<ExactName>()

    public static func key(_ bundle: String, _ localization: String, _ table: String) -> ExactName { ExactName("\(bundle)|\(localization)|\(table)") }

    /// The bundles and localizations the tables held imply.
    public var impliedStructure: (bundles: Set<ExactName>, localizations: Set<ExactName>) {
        var bundles = Set<ExactName>(), localizations = Set<ExactName>()
        for key in tables.keys {
            // "bundle|localization|table": up to the first bar, and up to the last.
            let text = key.string.utf8
            guard let first = text.firstIndex(of: UInt8(ascii: "|")), let last = text.lastIndex(of: UInt8(ascii: "|")) else { continue }
            bundles.insert(ExactName(String(key.string[..<first])))
            localizations.insert(ExactName(String(key.string[..<last])))
        }
        return (bundles, localizations)
    }

    public static func == (lhs: Mirror, rhs: Mirror) -> Bool { lhs.tables == rhs.tables }

    public init(snapshot: [TableSnapshot]) {
        for table in snapshot { tables[Self.key(table.bundle, table.language, table.table)] = Table(table.entries) }
        (bundles, localizations) = impliedStructure
    }

    /// The state a fresh parse of the disk gives, for the bundles under `root`.
    public init(disk bundles: [String]) throws {
        for path in bundles {
            let bundle = try LocalizedBundle.load(path: path)
            for (localization, byName) in bundle.tables {
                for (name, table) in byName { tables[Self.key(path, localization, name)] = table }
            }
        }
    }

    public mutating func apply(_ event: DaemonConnection.ReceivedEvent) throws {
        switch event.name {
        case TableChanged.name:
            let change = try event.decode(TableChanged.self)
            let key = Self.key(change.bundle, change.language, change.table)
            if change.deleted == true {
                tables[key] = nil
            } else {
                tables[key] = (tables[key] ?? Table()).updating(change.added.merging(change.changed) { $1 }, removing: change.removed)
            }
        case TableInvalid.name:
            invalid.append(try event.decode(TableInvalid.self))
        case BundleAdded.name:
            bundles.insert(ExactName(try event.decode(BundleAdded.self).bundle))
        case BundleRemoved.name:
            bundles.remove(ExactName(try event.decode(BundleRemoved.self).bundle))
        case LocalizationAdded.name:
            let added = try event.decode(LocalizationAdded.self)
            localizations.insert(ExactName(added.bundle + "|" + added.language))
        case LocalizationRemoved.name:
            let removed = try event.decode(LocalizationRemoved.self)
            localizations.remove(ExactName(removed.bundle + "|" + removed.language))
        case Resync.name:
            resyncs += 1
        default:
            break
        }
    }
}

/// Runs `executable` with `arguments` to its end, its output into the file
/// `output` (or nowhere), and returns its exit status. posix_spawn and
/// waitpid, because Foundation's `Process.waitUntilExit` can miss the exit
/// of a program that forks a daemon of its own (tmux starting its server).
public func runToEnd(_ executable: String, _ arguments: [String], output: String? = nil) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var child: pid_t = 0
    let spawned = posix_spawn(&child, executable, &actions, nil, argv, environ)
    guard spawned == 0 else { throw DaemonTestError("cannot run \(executable): \(String(cString: strerror(spawned)))") }
    var status: Int32 = 0
    while waitpid(child, &status, 0) < 0 && errno == EINTR {}
    return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
}
