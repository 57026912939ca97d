#if canImport(Glibc)
import Glibc
#endif
import CSystemd
import Synchronization

/// The daemon's log: one line per message on standard error (the journal
/// reads it under systemd), or the journal itself once detached.
public final class Log: Sendable {
    /// Where lines go.
    public enum Destination: Sendable {
        case standardError
        case journal
    }

    private let level: Mutex<Configuration.LogLevel>
    private let destination: Destination

    public init(level: Configuration.LogLevel, destination: Destination = .standardError) {
        self.level = Mutex(level)
        self.destination = destination
    }

    /// Says more or less from now on (a reload).
    public func setLevel(_ level: Configuration.LogLevel) {
        self.level.withLock { $0 = level }
    }

    public func error(_ message: @autoclosure () -> String) { write(.error, message) }
    public func warning(_ message: @autoclosure () -> String) { write(.warning, message) }
    public func info(_ message: @autoclosure () -> String) { write(.info, message) }
    public func debug(_ message: @autoclosure () -> String) { write(.debug, message) }

    private func write(_ severity: Configuration.LogLevel, _ message: () -> String) {
        guard severity <= level.withLock({ $0 }) else { return }
        switch destination {
        case .journal:
            _ = lproj_journal_print(syslogPriority(severity), message())
        case .standardError:
            // "<N>" prefixes let journald keep the priority when it reads standard error.
            let prefix = getenv("JOURNAL_STREAM") != nil ? "<\(syslogPriority(severity))>" : "lprojd: \(severity.rawValue): "
            var line = prefix + message() + "\n"
            line.withUTF8 { buffer in _ = Glibc.write(STDERR_FILENO, buffer.baseAddress, buffer.count) }
        }
    }

    private func syslogPriority(_ severity: Configuration.LogLevel) -> Int32 {
        switch severity {
        case .error: LOG_ERR
        case .warning: LOG_WARNING
        case .info: LOG_INFO
        case .debug: LOG_DEBUG
        }
    }
}
