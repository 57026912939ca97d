/// A point in a daemon's history: `<instance>:<sequence>`. Every published
/// event gets the next sequence number; the instance id changes whenever
/// the daemon restarts, so a clock from another instance is never mistaken
/// for one of this instance's.
public struct Clock: Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    public var instance: String
    public var sequence: UInt64

    public init(instance: String, sequence: UInt64) {
        self.instance = instance
        self.sequence = sequence
    }

    /// Parses `instance:sequence`; nil when malformed.
    public init?(_ text: String) {
        // Read as bytes (every client reads a clock with every event): the instance is ASCII letters, digits and "-".
        let bytes = text.utf8
        guard let colon = bytes.lastIndex(of: UInt8(ascii: ":")), colon != bytes.startIndex,
              let sequence = UInt64(Substring(bytes[bytes.index(after: colon)...])) else { return nil }
        guard bytes[..<colon].allSatisfy({ byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
        }) else { return nil }
        self.init(instance: String(Substring(bytes[..<colon])), sequence: sequence)
    }

    public var description: String { "\(instance):\(sequence)" }

    /// Orders clocks of one instance; clocks of different instances do not compare meaningfully.
    public static func < (lhs: Clock, rhs: Clock) -> Bool {
        (lhs.instance, lhs.sequence) < (rhs.instance, rhs.sequence)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let clock = Clock(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "a clock is \"<instance>:<sequence>\", not \"\(text)\""))
        }
        self = clock
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
