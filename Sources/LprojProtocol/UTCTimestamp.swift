#if canImport(Glibc)
import Glibc
#endif

/// A time as the protocol writes it: ISO 8601 in UTC to the second
/// (`2026-12-06T09:24:51Z`, a miss's `firstSeen` and `lastSeen`).
///
/// Made from the C library's calendar arithmetic: Foundation's
/// `ISO8601DateFormatter` opens ICU's time zone data, megabytes of pages a
/// daemon would otherwise never touch.
public enum UTCTimestamp {
    /// `seconds` since 1970 (UTC), to the second (a fraction is dropped).
    public static func string(secondsSince1970 seconds: Double) -> String {
        var time = time_t(seconds.rounded(.down))
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "1970-01-01T00:00:00Z" }
        func digits(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(digits(parts.tm_year + 1900, 4))-\(digits(parts.tm_mon + 1, 2))-\(digits(parts.tm_mday, 2))"
            + "T\(digits(parts.tm_hour, 2)):\(digits(parts.tm_min, 2)):\(digits(parts.tm_sec, 2))Z"
    }
}
