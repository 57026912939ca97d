import Foundation
import LprojCommandLine

extension WorkersBenchmark {
    /// A worker: this program run with `--worker MODE`, told when to start and to end on its standard input.
    final class WorkerProcess {
        let process = Process()
        private let input = Pipe(), output = Pipe()
        private var buffered: [UInt8] = []
        var pid: Int32 { process.processIdentifier }

        init(mode: Mode, bundle: String, socket: String, serves: Int) {
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["workers", "--worker", mode.rawValue, "--bundle", bundle, "--socket", socket, "--serves", String(serves)]
            process.standardInput = input
            process.standardOutput = output
            do { try process.run() } catch { Console.fail(program, "cannot start a worker: \(error)", status: 1) }
        }

        func send(_ line: String) {
            input.fileHandleForWriting.write(Data((line + "\n").utf8))
        }

        /// The next line, which must start with `word` (else the benchmark stops: a worker failed, or said nothing for two minutes).
        func readLine(expecting word: String) -> String {
            while true {
                if let end = buffered.firstIndex(of: 10) {
                    let line = String(decoding: buffered[..<end], as: UTF8.self)
                    buffered.removeSubrange(...end)
                    guard line.hasPrefix(word) else { Console.fail(program, "a worker said \"\(line)\", not \(word)", status: 1) }
                    return line
                }
                var poll = pollfd(fd: output.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
                guard Glibc.poll(&poll, 1, 120_000) > 0 else { Console.fail(program, "a worker did not say \(word) within two minutes", status: 1) }
                let data = output.fileHandleForReading.availableData
                guard !data.isEmpty else { Console.fail(program, "a worker ended before saying \(word)", status: 1) }
                buffered += data
            }
        }

        func finish() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }
}
