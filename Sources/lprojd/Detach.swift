#if canImport(Glibc)
import Glibc
#endif
import LprojCommandLine

/// Leaving the terminal: fork, and let the parent wait until the child
/// serves (exit 0) or reports why it cannot (exit 1, with the reason).
/// Must run before any thread starts.
struct Detach {
    private let descriptor: Int32

    /// In the child: a handle to report readiness. The parent never returns.
    static func start(program: String) -> Detach {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { Console.fail(program, "pipe: \(String(cString: strerror(errno)))", status: 1) }
        let child = fork()
        if child < 0 { Console.fail(program, "fork: \(String(cString: strerror(errno)))", status: 1) }
        if child > 0 {
            close(ends[1])
            var message: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 512)
            while true {
                let count = read(ends[0], &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                message += buffer.prefix(count)
            }
            guard let status = message.first else { Console.fail(program, "the daemon exited before it was ready", status: 1) }
            let text = String(decoding: message.dropFirst(), as: UTF8.self)
            if status == UInt8(ascii: "0") {
                Console.out(text)
                exit(0)
            }
            Console.fail(program, text, status: 1)
        }
        close(ends[0])
        setsid()
        let null = open("/dev/null", O_RDWR)
        if null >= 0 {
            dup2(null, STDIN_FILENO)
            dup2(null, STDOUT_FILENO)
            dup2(null, STDERR_FILENO)
            if null > STDERR_FILENO { close(null) }
        }
        return Detach(descriptor: ends[1])
    }

    func ready(_ message: String) { finish("0" + message) }

    func fail(_ message: String) { finish("1" + message) }

    private func finish(_ text: String) {
        Console.write(text, to: descriptor)
        close(descriptor)
    }
}
