/// A request a client sends: one JSON object on one line with an `id`, an
/// `op` naming the request type, and the type's own fields. Fields a
/// receiver does not know are ignored.
public protocol Request: Codable, Sendable {
    /// The `op` on the wire, e.g. `"subscribe"`.
    static var op: String { get }
    /// What a successful reply carries.
    associatedtype Reply: Codable & Sendable
}

/// A request's `id`, echoed in its reply: a number or a string, as the client chose.
public enum RequestID: Hashable, Sendable, Codable, CustomStringConvertible {
    case number(Int64)
    case string(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else {
            throw DecodingError.typeMismatch(RequestID.self, .init(codingPath: decoder.codingPath,
                                                                   debugDescription: "an id is a number or a string"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let number): try container.encode(number)
        case .string(let string): try container.encode(string)
        }
    }

    public var description: String {
        switch self {
        case .number(let number): return String(number)
        case .string(let string): return "\"\(string)\""
        }
    }
}

/// Why a request failed, in the error reply: a stable `code`, a message for
/// people, and the request `field` at fault when there is one.
public struct ProtocolError: Error, Hashable, Sendable, Codable {
    /// Stable codes a client may test for.
    public enum Code: String, Hashable, Sendable, Codable {
        case malformed = "malformed"              // not a JSON object
        case unknownOperation = "unknown-op"
        case missingField = "missing-field"
        case invalidField = "invalid-field"
        case lineTooLong = "line-too-long"
        case notFound = "not-found"               // no such bundle, table or subscription
        case outsideRoots = "outside-roots"       // a path outside every watched root
        case forbidden = "forbidden"              // the peer may not do this
        case unsupportedVersion = "unsupported-protocol"
        case busy = "busy"                        // the daemon is at a limit (clients, descriptors)
        case limit = "limit"                      // this connection or request is at a limit (the field, when one, names it)
        case `internal` = "internal"
    }

    public var code: Code
    public var message: String
    public var field: String?

    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }
}
