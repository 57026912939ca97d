#if canImport(Glibc)
import Glibc
#endif

/// Writing to the standard streams and leaving with a status. Writes go
/// straight to the file descriptors (no stdio buffer), so output and exit
/// status never race.
public enum Console {
    /// The version every lprojd program reports.
    public static let version = "0.2.0"

    /// Writes `text` and a newline to standard output.
    public static func out(_ text: String) {
        write(text + "\n", to: STDOUT_FILENO)
    }

    /// Writes `text` and a newline to standard error.
    public static func error(_ text: String) {
        write(text + "\n", to: STDERR_FILENO)
    }

    /// Prints `message` prefixed by the program name to standard error and
    /// exits with `status`.
    public static func fail(_ program: String, _ message: String, status: Int32) -> Never {
        error("\(program): \(message)")
        exit(status)
    }

    /// For a usage error: the message, a pointer to `--help`, status 2.
    public static func usage(_ program: String, _ error: UsageError) -> Never {
        fail(program, "\(error.message)\nTry '\(program) --help'.", status: 2)
    }

    /// Writes all of `text` to `descriptor`, retrying short writes.
    public static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
