import Foundation
import LprojClient
import LprojCommandLine
import LprojProtocol

/// `lproj-bench soak`: lprojd and 20 LiveBundle processes under a seeded
/// random run of saves, batches, rollbacks, stopped and continued clients,
/// the daemon killed (-9) and restarted, a full file system (ENOSPC) and
/// descriptor exhaustion, for a given time. After every step: once `wait`
/// answers, every process shows what is on disk (asked, key by key). At the
/// end: the steps, the slowest convergence and the daemon's memory slope.
/// `make soak` runs it for an hour (outside `make test`).
enum Soak {
    static let help = """
        Usage: lproj-bench soak [--minutes N] [--processes N] [--seed N]

        Runs lprojd (its root on a 4 MB tmpfs, so that a full file system can
        be made) and N LiveBundle processes (default 20) for N minutes (default
        60) of seeded random steps: saves in place and atomic, batches, rollbacks,
        a process stopped (SIGSTOP) while saves go on and continued, the daemon
        killed with SIGKILL and restarted (at most every 5 minutes, so that its
        memory is watched over instances that live), the file system filled (a save that
        fails with ENOSPC, then the space freed and the table saved whole), and
        the daemon's descriptors exhausted (its limit lowered under what it
        holds, clients refused, a save read at the next poll). After each step,
        once every process is connected and `wait` answers, each process is
        asked for every key in each language and must show what the files hold.
        Prints the steps, failures, the slowest convergence and the daemon's
        resident memory slope; exits 1 on the first failure. Needs root (tmpfs,
        prlimit).
        """

    static func run(_ argv: [String]) {
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help"], options: ["minutes", "processes", "seed"])
        } catch {
            Console.usage("\(program) soak", error)
        }
        if arguments.has("help") { Console.out(help); return }
        let minutes = Double(arguments.value("minutes") ?? "60") ?? 60
        let count = Int(arguments.value("processes") ?? "20") ?? 20
        var random = SoakRandom(seed: UInt64(arguments.value("seed") ?? "1") ?? 1)
        let daemon = DaemonUnderTest()
        let bundle = daemon.root + "/App"
        try? FileManager.default.createDirectory(atPath: daemon.root, withIntermediateDirectories: true)
        guard mountTmpfs(daemon.root) else { Console.fail(program, "cannot mount a tmpfs on \(daemon.root) (root is needed)", status: 1) }
        defer { _ = umount(daemon.root) }
        let pool = (0..<20).map { String(format: "k%02d", $0) }
        var files: [String: [String: String]] = [:]
        /// A new random table for `language`, written at `path` (default: its place in the bundle).
        func write(_ language: String, atomically: Bool, at path: String? = nil) {
            var table: [String: String] = [:]
            // Every key in every table, so that what a view shows does not depend on the fallback rules (tested elsewhere).
            for key in pool { table[key] = "\(language) \(key) \(random.next(1_000_000))" }
            files[language] = table
            let text = table.sorted { $0.key < $1.key }.map { "\"\($0.key)\" = \"\($0.value)\";\n" }.joined()
            try? FileManager.default.createDirectory(atPath: bundle + "/\(language).lproj", withIntermediateDirectories: true)
            DaemonUnderTest.save(at: path ?? bundle + "/\(language).lproj/Localizable.strings", Array(text.utf8), atomically: atomically)
        }
        write("en", atomically: false)
        write("fr", atomically: false)
        daemon.start()
        let clients = (0..<count).map { _ in SoakClient(socket: daemon.socket, bundle: bundle) }
        let lprojctl = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("lprojctl").path

        var steps: [String: Int] = [:]
        var slowest = 0.0
        var memory: [(instance: Int, minute: Double, bytes: Int)] = []
        var instance = 0
        let start = Date()
        let end = start.addingTimeInterval(minutes * 60)
        var step = 0
        var lastRestart = start
        let restartEvery = min(300, minutes * 60 / 4)
        while Date() < end {
            step += 1
            let kind: String
            switch random.next(20) {
            case 0..<10:
                kind = "save"
                write(random.next(2) == 0 ? "en" : "fr", atomically: random.next(2) == 0)
            case 10, 11:
                kind = "batch"
                // Both tables staged outside the root, then copied in under one hold: one generation.
                write("en", atomically: false, at: daemon.directory + "/stage-en")
                write("fr", atomically: false, at: daemon.directory + "/stage-fr")
                let copy = "cp \(daemon.directory)/stage-en \(bundle)/en.lproj/Localizable.strings && "
                    + "cp \(daemon.directory)/stage-fr \(bundle)/fr.lproj/Localizable.strings"
                _ = run(lprojctl, ["batch", "--bundle", bundle, "--socket", daemon.socket, "--", "/bin/sh", "-c", copy])
            case 12:
                kind = "rollback"
                if run(lprojctl, ["rollback", "--bundle", bundle, "--socket", daemon.socket]) == 0 {
                    for language in ["en", "fr"] { files[language] = read(bundle + "/\(language).lproj/Localizable.strings") }
                }
            case 13, 14:
                kind = "stop-continue"
                let client = clients[random.next(clients.count)]
                kill(client.pid, SIGSTOP)
                for _ in 0..<3 { write(random.next(2) == 0 ? "en" : "fr", atomically: true) }
                usleep(UInt32(200_000 + random.next(1_000_000)))
                kill(client.pid, SIGCONT)
            case 15 where Date().timeIntervalSince(lastRestart) >= restartEvery:
                // At most once every few minutes: the memory slope is read over the instances that lived long.
                kind = "kill-restart"
                lastRestart = Date()
                let killed = daemon.pid
                kill(killed, SIGKILL)
                // Gone once the kernel says so (it is not our child: it detached when it started).
                let gone = Date().addingTimeInterval(10)
                while kill(killed, 0) == 0, Date() < gone { usleep(10_000) }
                write("fr", atomically: true)
                daemon.start()
                instance += 1
            case 16:
                kind = "enospc"
                let filler = daemon.root + "/filler"
                let descriptor = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                let block = [UInt8](repeating: 0x41, count: 65536)
                while block.withUnsafeBytes({ Glibc.write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
                close(descriptor)
                // A save that cannot be written whole, then the space freed and the table saved whole.
                write("en", atomically: false)
                unlink(filler)
                write("en", atomically: false)
            case 17:
                kind = "descriptors"
                let limit = "\(prlimitNumber(daemon.pid) ?? 65536)"
                _ = run("/usr/bin/prlimit", ["--pid", "\(daemon.pid)", "--nofile=48:\(limit)"])
                let extra = (0..<40).compactMap { _ in RawSubscriber(socket: daemon.socket, subscribe: false) }
                write("fr", atomically: true)
                _ = run("/usr/bin/prlimit", ["--pid", "\(daemon.pid)", "--nofile=\(limit):\(limit)"])
                for connection in extra { close(connection.descriptor) }
                write("en", atomically: true)
            default:
                kind = "save"
                write("fr", atomically: false)
            }
            steps[kind, default: 0] += 1
            if ProcessInfo.processInfo.environment["LPROJ_SOAK_TRACE"] != nil { Console.error("step \(step): \(kind)") }
            let began = Date()
            if let failure = converge(clients: clients, daemon: daemon, bundle: bundle, files: files, pool: pool) {
                Console.out("soak: step \(step) (\(kind)) failed after \(Int(Date().timeIntervalSince(start))) s: \(failure)")
                finish(clients, daemon)
                exit(1)
            }
            slowest = max(slowest, Date().timeIntervalSince(began))
            memory.append((instance, Date().timeIntervalSince(start) / 60, daemon.residentBytes))
        }
        finish(clients, daemon)
        // The memory slope of the longest-lived daemon, its first tenth left out (warming up).
        let longest = Dictionary(grouping: memory, by: \.instance).values.max { $0.count < $1.count } ?? []
        let settled = Array(longest.dropFirst(longest.count / 10))
        let slope = Self.slope(settled.map(\.minute), settled.map { Double($0.bytes) / 1_048_576 }) * 60
        Console.out("soak: \(step) steps in \(Int(Date().timeIntervalSince(start) / 60)) min, \(count) processes, seed \(arguments.value("seed") ?? "1"): "
                    + steps.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        Console.out("soak: 0 failures; slowest convergence \(String(format: "%.2f", slowest)) s; daemon RSS "
                    + "\(String(format: "%.1f", Double(settled.first?.bytes ?? 0) / 1_048_576)) → \(String(format: "%.1f", Double(settled.last?.bytes ?? 0) / 1_048_576)) MiB "
                    + "over the longest-lived instance (\(settled.count) samples), slope \(String(format: "%+.2f", slope)) MiB/hour")
    }

    /// Once every process is connected and acknowledges, `wait` answers; then each shows the files, key by key.
    private static func converge(clients: [SoakClient], daemon: DaemonUnderTest, bundle: String, files: [String: [String: String]],
                                 pool: [String]) -> String? {
        let deadline = Date().addingTimeInterval(120)
        var connection: DaemonConnection?
        while Date() < deadline {
            if connection == nil { connection = try? DaemonConnection(path: daemon.socket) }
            guard let open = connection else { usleep(50_000); continue }
            do {
                trace("sync")
                _ = try open.send(Sync(), timeout: .seconds(30))
                trace("list")
                let followers = try open.send(List()).bundles.first { $0.path == bundle }?.followers ?? []
                if followers.filter(\.acknowledges).count < clients.count {
                    usleep(50_000)
                    continue
                }
                // `wait` is a barrier for what the daemon published: a save it could not read yet (out of descriptors: read
                // at its next poll) is waited for here, until what it serves is the files.
                let served = try open.send(Snapshot(bundle: bundle)).tables
                let matches = ["en", "fr"].allSatisfy { language in
                    let table = served.first { $0.language == language }?.entries.compactMapValues(\.text) ?? [:]
                    return table == (files[language] ?? [:])
                }
                if !matches {
                    usleep(50_000)
                    continue
                }
                trace("wait")
                let waited = try open.send(Wait(bundles: [bundle], timeout: 60), timeout: .seconds(70))
                trace("waited \(waited.done)")
                guard waited.done else { return "wait timed out: \(waited.lagging)" }
                break
            } catch {
                trace("error \(error)")
                connection = nil
                usleep(50_000)
            }
        }
        guard Date() < deadline else { return "the processes did not all reconnect within 120 s" }
        for (index, client) in clients.enumerated() {
            for language in ["en", "fr"] {
                guard let shown = client.check(language: language, keys: pool) else { return "process \(index) does not answer" }
                for (key, value) in zip(pool, shown) {
                    let expected = files[language]?[key] ?? key
                    if value != expected { return "process \(index) shows \(language) \(key) = \"\(value)\", the files \"\(expected)\"" }
                }
            }
        }
        return nil
    }

    private static func trace(_ text: String) {
        if ProcessInfo.processInfo.environment["LPROJ_SOAK_TRACE"] != nil { Console.error("  \(Date().timeIntervalSince1970): \(text)") }
    }

    private static func finish(_ clients: [SoakClient], _ daemon: DaemonUnderTest) {
        for client in clients { client.stop() }
        daemon.stop()
    }

    /// A table the soak wrote (`"key" = "value";` a line), as the files hold it after a rollback.
    private static func read(_ path: String) -> [String: String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        var table: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "\"")   // key, " = ", value, ";"
            if parts.count >= 3 { table[String(parts[0])] = String(parts[2]) }
        }
        return table
    }

    private static func run(_ executable: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    private static func prlimitNumber(_ pid: Int32) -> Int? {
        guard let limits = try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8),
              let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") }) else { return nil }
        return line.split(separator: " ").compactMap { Int($0) }.last
    }

    private static func mountTmpfs(_ path: String) -> Bool {
        mount("tmpfs", path, "tmpfs", 0, "size=4m") == 0
    }

    /// Least squares: the slope of y over x.
    private static func slope(_ x: [Double], _ y: [Double]) -> Double {
        guard x.count > 1 else { return 0 }
        let mx = x.reduce(0, +) / Double(x.count), my = y.reduce(0, +) / Double(y.count)
        let sxy = zip(x, y).reduce(0) { $0 + ($1.0 - mx) * ($1.1 - my) }
        let sxx = x.reduce(0) { $0 + ($1 - mx) * ($1 - mx) }
        return sxx == 0 ? 0 : sxy / sxx
    }
}

/// One LiveBundle process (`lproj-bench soak-client`), asked over a pipe for its values.
final class SoakClient {
    let pid: pid_t
    private let input: FileHandle
    private let output: FileHandle
    private var pending = Data()

    init(socket: String, bundle: String) {
        let binary = CommandLine.arguments[0]
        let toChild = Pipe(), fromChild = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["soak-client", socket, bundle]
        process.standardInput = toChild
        process.standardOutput = fromChild
        process.standardError = FileHandle.nullDevice
        try? process.run()
        pid = process.processIdentifier
        input = toChild.fileHandleForWriting
        output = fromChild.fileHandleForReading
    }

    /// The values the process shows for `keys` in `language` (nil: it does not answer).
    func check(language: String, keys: [String]) -> [String]? {
        guard (try? input.write(contentsOf: Data((["check", language] + keys).joined(separator: " ").utf8 + [0x0A]))) != nil else { return nil }
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                return line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            }
            // (`availableData`: what has come, not a full buffer's worth.)
            let chunk = output.availableData
            guard !chunk.isEmpty else { return nil }
            pending += chunk
        }
    }

    func stop() {
        kill(pid, SIGCONT)
        kill(pid, SIGTERM)
    }

    /// The process's side: a LiveBundle following the bundle; `check LANGUAGE KEY...` answers the values, tab-separated.
    static func serve(_ argv: [String]) {
        guard argv.count == 2 else { Console.usage("\(program) soak-client", UsageError("give SOCKET BUNDLE")) }
        var options = LiveBundle.Options()
        options.socketPath = argv[0]
        options.development = "en"
        guard let bundle = try? LiveBundle(path: argv[1], app: "com.example.soak", options: options) else {
            Console.fail(program, "cannot open \(argv[1])", status: 1)
        }
        while let line = Swift.readLine() {
            let words = line.split(separator: " ").map(String.init)
            guard words.count >= 2, words[0] == "check" else { continue }
            let view = bundle.localization(preferences: [words[1]])
            let values = words.dropFirst(2).map { view.localizedString(forKey: $0, value: nil, table: nil) }
            Console.out(values.joined(separator: "\t"))
        }
    }
}

/// SplitMix64: the soak's steps are the same for a seed.
struct SoakRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return Int((z ^ (z >> 31)) % UInt64(max(1, bound)))
    }
}
