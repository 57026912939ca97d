/// The range of every number `lprojd.conf` takes: the one place its bounds
/// live. lprojd.conf(5) names each range as `description` spells it (a test
/// holds the page to this table), and a value out of range is refused with
/// that range — at start, by `--check-config` and by a reload, which then
/// keeps the configuration it had.
///
/// Values are read as 64-bit numbers with overflow checked at every step,
/// so no spelling of a number, however long, can do more than be refused.
public struct ValueRange: Sendable, Equatable {
    /// What the number measures, and so how it is written.
    public enum Unit: Sendable, Equatable {
        /// A whole number.
        case count
        /// Bytes, with an optional K, M or G (binary multiples).
        case bytes
        /// Milliseconds, written with `ms` or `s` (or a bare 0).
        case milliseconds
    }

    public var unit: Unit
    public var minimum: Int64
    public var maximum: Int64

    /// Every number key, by the name its section gives it.
    public static let keys: [(key: String, range: ValueRange)] = [
        ("RemovalGrace", .init(.milliseconds, 0, 60_000)),
        ("QuietPeriod", .init(.milliseconds, 0, 10_000)),
        ("PollInterval", .init(.milliseconds, 50, 3_600_000)),
        ("MaxTableBytes", .init(.bytes, 1, 1 << 30)),
        ("MaxTableObjects", .init(.count, 1_000, 100_000_000)),
        ("MaxRequestBytes", .init(.bytes, 1 << 10, 64 << 20)),
        ("MaxClients", .init(.count, 1, 65_536)),
        ("MaxClientsPerUser", .init(.count, 1, 65_536)),
        ("ReservedClients", .init(.count, 0, 1_024)),
        ("FirstRequestTimeout", .init(.milliseconds, 100, 3_600_000)),
        ("MaxHold", .init(.milliseconds, 100, 3_600_000)),
        ("MaxSubscriptions", .init(.count, 1, 4_096)),
        ("MaxFilterNames", .init(.count, 1, 65_536)),
        ("Misses", .init(.count, 0, 1_000_000)),
        ("SharedImages", .init(.count, 0, 65_536)),
        ("ClientQueueBytes", .init(.bytes, 4 << 10, 1 << 30)),
        ("UserQueueBytes", .init(.bytes, 4 << 10, 16 << 30)),
        ("HistoryLength", .init(.count, 0, 1_000_000)),
        ("HistoryBytes", .init(.bytes, 0, 4 << 30)),
        ("RollbackGenerations", .init(.count, 1, 1000)),
        ("RollbackBytes", .init(.bytes, 0, 16 << 30)),
        ("MaxApps", .init(.count, 1, 1_000_000)),
    ]

    /// The range of `key` (a key of `keys`).
    public static func of(_ key: String) -> ValueRange {
        keys.first { $0.key == key }!.range
    }

    init(_ unit: Unit, _ minimum: Int64, _ maximum: Int64) {
        self.unit = unit
        self.minimum = minimum
        self.maximum = maximum
    }

    /// `from 0 to 60s`, `from 1K to 1G`, `from 1 to 65536`.
    public var description: String { "from \(Self.spell(minimum, unit)) to \(Self.spell(maximum, unit))" }

    /// Whether `value` lies in the range.
    public func contains(_ value: Int64) -> Bool { value >= minimum && value <= maximum }

    /// The value `text` spells in this range's unit (milliseconds for a
    /// duration), or nil when it spells none (or overflows 64 bits).
    public func parse(_ text: String) -> Int64? {
        let suffixes: [(String, Int64)] = switch unit {
        case .count: [("", 1)]
        case .bytes: [("K", 1 << 10), ("k", 1 << 10), ("M", 1 << 20), ("m", 1 << 20), ("G", 1 << 30), ("g", 1 << 30), ("", 1)]
        case .milliseconds: [("ms", 1), ("s", 1000)]
        }
        if unit == .milliseconds, text == "0" { return 0 }
        for (suffix, scale) in suffixes where text.hasSuffix(suffix) {
            let digits = text.dropLast(suffix.count)
            // Digits only: no sign, no spaces, no "0x".
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int64(digits) else { return nil }
            let (value, overflow) = number.multipliedReportingOverflow(by: scale)
            return overflow ? nil : value
        }
        return nil
    }

    /// The message for `text` out of range, or not a number of this unit.
    func refusal(of text: String) -> String {
        let example = switch unit {
        case .count: ""
        case .bytes: " (a number of bytes, or with K, M or G: 512K, 16M)"
        case .milliseconds: " (a duration in ms or s: 250ms, 2s)"
        }
        return "must be \(description)\(example), not '\(text)'"
    }

    private static func spell(_ value: Int64, _ unit: Unit) -> String {
        switch unit {
        case .count:
            return String(value)
        case .bytes:
            for (suffix, scale) in [("G", Int64(1) << 30), ("M", 1 << 20), ("K", 1 << 10)] where value >= scale && value % scale == 0 {
                return "\(value / scale)\(suffix)"
            }
            return String(value)
        case .milliseconds:
            if value == 0 { return "0" }
            return value % 1000 == 0 ? "\(value / 1000)s" : "\(value)ms"
        }
    }
}
