import Foundation
import LprojCommandLine
import LprojProtocol

/// A real lprojd (the binary beside this one) on a scratch tree, for the
/// daemon benchmarks; and raw subscriber sockets, many per process.
final class DaemonUnderTest {
    let directory: String
    let root: String
    let socket: String
    private(set) var pid: Int32 = 0

    /// A scratch directory with an empty root.
    init() {
        var template = Array("/tmp/lproj-bench-XXXXXX".utf8CString)
        directory = String(cString: mkdtemp(&template)!)
        root = directory + "/root"
        socket = directory + "/d.sock"
        mkdir(root, 0o755)
    }

    deinit {
        stop()
        _ = try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts lprojd (it detaches once it serves, so this returns when it is
    /// ready) and returns the seconds that took.
    @discardableResult
    func start(extraArguments: [String] = []) -> Double {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("lprojd").path
        let arguments = [binary, "--root", root, "--socket", socket, "--state", directory + "/state", "--log-level", "warning"]
            + extraArguments
        let started = Measure.now()
        // posix_spawn and waitpid: Foundation's Process.waitUntilExit can miss the
        // exit of a process that forks (lprojd's parent leaves once the child serves).
        var ends: [Int32] = [0, 0]
        pipe(&ends)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, ends[1], STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, ends[0])
        posix_spawn_file_actions_addclose(&actions, ends[1])
        var child: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        let environment = ProcessInfo.processInfo.environment.filter { $0.key != "NOTIFY_SOCKET" }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        let spawned = posix_spawn(&child, binary, &actions, nil, argv, environment)
        posix_spawn_file_actions_destroy(&actions)
        for pointer in argv + environment { free(pointer) }
        close(ends[1])
        guard spawned == 0 else { Console.fail(program, "cannot run \(binary): \(String(cString: strerror(spawned)))", status: 1) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case let count = read(ends[0], &buffer, buffer.count), count > 0 { output += buffer.prefix(count) }
        close(ends[0])
        var status: Int32 = 0
        waitpid(child, &status, 0)
        let text = String(decoding: output, as: UTF8.self)
        let elapsed = Measure.now() - started
        guard status == 0, let open = text.range(of: "(pid "), let number = Int32(text[open.upperBound...].prefix { $0.isNumber }) else {
            Console.fail(program, "lprojd did not start: \(text)", status: 1)
        }
        pid = number
        return elapsed
    }

    func stop() {
        guard pid > 0 else { return }
        kill(pid, SIGTERM)
        // The daemon removes its socket last; wait for that (bounded).
        for _ in 0..<200 where FileManager.default.fileExists(atPath: socket) { usleep(10_000) }
        pid = 0
    }

    /// The daemon's resident memory in bytes (VmRSS).
    var residentBytes: Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes * 1024
    }

    /// `App` under the root: a generated `de.lproj/Localizable.strings` of
    /// `keys` keys with `en.lproj` beside it as the development table; its path.
    func translatedBundle(keys: Int) -> String {
        for language in ["en", "de"] {
            try? FileManager.default.createDirectory(atPath: root + "/App/\(language).lproj", withIntermediateDirectories: true)
            // German translated: a table the same as the English would be a thousand values left unchanged, each a warning.
            let table = String(decoding: LatencyBenchmark.table(keys: keys, marker: 0), as: UTF8.self)
            let text = language == "en" ? table : table.replacingOccurrences(of: "Value ", with: "Wert ")
            save("App/\(language).lproj/Localizable.strings", Array(text.utf8), atomically: false)
        }
        return root + "/App"
    }

    /// Writes `contents` at `relative` under the root: in place, or to a temporary then renamed.
    func save(_ relative: String, _ contents: [UInt8], atomically: Bool) {
        Self.save(at: root + "/" + relative, contents, atomically: atomically)
    }

    /// Saves `contents` at `path` as an editor does: in place, or written
    /// beside it and renamed over it.
    static func save(at path: String, _ contents: [UInt8], atomically: Bool) {
        let target = atomically ? (path as NSString).deletingLastPathComponent + "/.save.tmp" : path
        let descriptor = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        _ = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        if atomically { rename(target, path) }
    }
}

/// A subscriber reduced to a socket: many of them fit in one process.
struct RawSubscriber {
    let descriptor: Int32
    private var pending: [UInt8] = []

    /// One end of a connection made elsewhere (the fan-out's floor: a socket pair).
    init(connected descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Connects and (unless `subscribe` is false) subscribes (`{"id":1,"op":"subscribe","name":"b"}`), waiting for the reply.
    init?(socket path: String, subscribe: Bool = true) {
        descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        guard subscribe else { return }
        let request = Array("{\"id\":1,\"op\":\"subscribe\",\"name\":\"b\"}\n".utf8)
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard let reply = readLine(timeoutMilliseconds: 10_000), reply.contains("\"ok\":true") else { return nil }
    }

    /// The next whole line, waiting at most the timeout.
    mutating func readLine(timeoutMilliseconds: Int32) -> String? {
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            var poll = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&poll, 1, timeoutMilliseconds) > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            pending += buffer.prefix(count)
        }
    }

    /// Reads what is there now (without waiting) into `buffer`; whether a line holding `needle` has arrived.
    mutating func receive(containing needle: [UInt8], buffer: UnsafeMutableRawBufferPointer) -> Bool {
        let count = recv(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
        guard count > 0 else { return false }
        let read = UnsafeRawBufferPointer(rebasing: buffer[..<count])
        // What came is searched where it was read; only a line's unfinished end is kept for the next read.
        if pending.isEmpty {
            let found = Self.contains(needle, read)
            pending += read[(read.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0)...]
            return found
        }
        pending += read
        let found = pending.withUnsafeBytes { Self.contains(needle, $0) }
        if let newline = pending.lastIndex(of: 0x0A) { pending.removeSubrange(...newline) }
        return found
    }

    private static func contains(_ needle: [UInt8], _ haystack: UnsafeRawBufferPointer) -> Bool {
        needle.withUnsafeBytes { needle in
            guard haystack.count >= needle.count else { return false }
            for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
                if memcmp(haystack.baseAddress! + start, needle.baseAddress!, needle.count) == 0 { return true }
            }
            return false
        }
    }
}

/// Percentiles of a sample, in milliseconds.
struct Distribution: Encodable {
    var count: Int
    var p50: Double
    var p99: Double
    var max: Double

    init(seconds: [Double]) {
        let sorted = seconds.sorted()
        count = sorted.count
        func at(_ fraction: Double) -> Double {
            guard !sorted.isEmpty else { return .nan }
            return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded(.up)))] * 1000
        }
        p50 = at(0.5)
        p99 = at(0.99)
        max = (sorted.last ?? .nan) * 1000
    }

    var text: String { "p50 \(Measure.format(p50, 2)) ms, p99 \(Measure.format(p99, 2)) ms, max \(Measure.format(max, 2)) ms (n=\(count))" }
}
