import Foundation
#if canImport(XCTest)
import XCTest
#endif

/// A Python script run as another user (`setpriv`: needs root), its lines
/// of output read with a deadline and its standard input written to.
public final class UserScript {
    private let process = Process()
    private let input = Pipe(), output = Pipe()
    private var buffered: [UInt8] = []

    public init(uid: UInt32, _ script: String, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid", "\(uid)", "--regid", "\(uid)", "--clear-groups", "/usr/bin/python3", "-c", script] + arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// Writes `line` and a newline to its standard input.
    public func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// The next `count` lines it writes, waiting at most `timeout` in all.
    public func lines(_ count: Int, timeout: Duration = .seconds(30)) throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        var lines: [String] = []
        let descriptor = output.fileHandleForReading.fileDescriptor
        while lines.count < count {
            if let newline = buffered.firstIndex(of: 0x0A) {
                lines.append(String(decoding: buffered[..<newline], as: UTF8.self))
                buffered.removeSubrange(...newline)
                continue
            }
            let left = deadline - .now
            guard left > .zero else { throw DaemonTestError("only \(lines.count) of \(count) lines: \(lines)") }
            var poll = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            guard Glibc.poll(&poll, 1, max(1, milliseconds)) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let read = Glibc.read(descriptor, &chunk, chunk.count)
            guard read > 0 else { throw DaemonTestError("the script ended after \(lines)") }
            buffered += chunk.prefix(read)
        }
        return lines
    }

    /// Closes its standard input (the scripts exit then) and waits for it to end.
    public func finish() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
