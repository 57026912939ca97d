import Foundation
import LprojFormats

/// Encoding and decoding whole lines of the protocol.
public enum Wire {
    /// The protocol version this module speaks.
    public static let version = 1

    /// The `id` and `op` of a request line, read before its type is known.
    public struct Header: Decodable, Sendable {
        public var id: RequestID
        public var op: String
    }

    /// A request line whose `op` is known and whose fields decoded.
    public struct Decoded<R: Request>: Sendable {
        public var id: RequestID
        public var request: R
    }

    /// Reads the header of a request line, or says what is wrong with it.
    public static func header(of line: [UInt8]) -> Result<Header, ProtocolErrorWithID> {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(line))
        } catch {
            return .failure(.init(id: nil, error: ProtocolError(.malformed, "the line is not JSON")))
        }
        guard let dictionary = object as? [String: Any] else {
            return .failure(.init(id: nil, error: ProtocolError(.malformed, "a request is a JSON object")))
        }
        let id = (try? JSONDecoder().decode(IDOnly.self, from: Data(line)))?.id
        guard id != nil else {
            let field = dictionary["id"] == nil ? ProtocolError(.missingField, "a request needs an \"id\"", field: "id")
                : ProtocolError(.invalidField, "\"id\" must be a number or a string", field: "id")
            return .failure(.init(id: nil, error: field))
        }
        guard let op = dictionary["op"] as? String else {
            let error = dictionary["op"] == nil ? ProtocolError(.missingField, "a request needs an \"op\"", field: "op")
                : ProtocolError(.invalidField, "\"op\" must be a string", field: "op")
            return .failure(.init(id: id, error: error))
        }
        return .success(Header(id: id!, op: op))
    }

    /// Decodes the fields of request type `R` from its line; errors name the field.
    public static func decode<R: Request>(_ type: R.Type, from line: [UInt8], id: RequestID) -> Result<R, ProtocolError> {
        do {
            return .success(try JSONDecoder().decode(R.self, from: Data(line)))
        } catch let error as DecodingError {
            return .failure(describe(error))
        } catch {
            return .failure(ProtocolError(.malformed, "\(error)"))
        }
    }

    /// A request line: `{"id":…,"op":…, fields…}` and a newline.
    public static func encode<R: Request>(_ request: R, id: RequestID) throws -> [UInt8] {
        try line(Merged(body: request, fields: [(.id, .id(id)), (.op, .text(R.op))]))
    }

    /// A success reply line: `{"id":…,"ok":true, fields…}`.
    public static func reply<Reply: Encodable>(_ reply: Reply, to id: RequestID) throws -> [UInt8] {
        // The empty reply (an `ack`'s, a thousand after every save) written as JSONEncoder writes it, without it.
        if Reply.self == EmptyReply.self {
            var output = Array("{\"id\":".utf8)
            switch id {
            case .number(let number): output += Array(String(number).utf8)
            case .string(let text): JSONStringEscape.quote(text, into: &output)
            }
            output += Array(",\"ok\":true}\n".utf8)
            return output
        }
        return try line(Merged(body: reply, fields: [(.id, .id(id)), (.ok, .flag(true))]))
    }

    /// An error reply line: `{"id":…,"ok":false,"error":{"code","message","field"}}`.
    public static func failure(_ error: ProtocolError, to id: RequestID?) -> [UInt8] {
        (try? line(FailureEnvelope(id: id, ok: false, error: error))) ?? Array("{\"ok\":false}\n".utf8)
    }

    /// An event line: `{"sub":…,"event":…, fields…}`, `sub` first (as
    /// every event line starts, so a reader can tell it from a reply).
    public static func event<E: Event>(_ event: E, subscription: String) throws -> [UInt8] {
        var output: [UInt8] = []
        appendAddressed(try eventBody(event), prefix: eventPrefix(subscription: subscription), to: &output)
        return output
    }

    /// An event line without its `sub`: encoded once, then addressed to each
    /// subscription with `addressed(_:to:)` (fan-out costs no re-encoding).
    public static func eventBody<E: Event>(_ event: E) throws -> [UInt8] {
        if let line = event.handWrittenLine() { return line }
        return try encodedEventBody(event)
    }

    /// The event's line as the encoder writes it (what a hand-written line must equal).
    public static func encodedEventBody<E: Event>(_ event: E) throws -> [UInt8] {
        try line(Merged(body: event, fields: [(.event, .text(E.name))]))
    }

    /// The start of every event line for a subscription: `{"sub":"name",`.
    public static func eventPrefix(subscription: String) -> [UInt8] {
        Array("{\"sub\":".utf8) + ((try? JSONEncoder().encode(subscription)).map(Array.init) ?? Array("\"\"".utf8)) + [UInt8(ascii: ",")]
    }

    /// Appends an event body (from `eventBody`, which always has fields)
    /// addressed with a prefix from `eventPrefix(subscription:)` to `output`:
    /// the line is built where it is sent from, with no copy per subscriber.
    public static func appendAddressed(_ body: [UInt8], prefix: [UInt8], to output: inout [UInt8]) {
        output += prefix
        output += afterPrefix(body)
    }

    /// What of an event body follows a prefix from `eventPrefix(subscription:)`
    /// (the prefix has the body's opening `{`).
    package static func afterPrefix(_ body: [UInt8]) -> ArraySlice<UInt8> {
        body.dropFirst()
    }

    /// The most bytes `text` can take as a JSON string on the wire, quotes
    /// included (a control character as `\u00XX`), without encoding it.
    public static func encodedBound(of text: String) -> Int {
        text.utf8.reduce(2) { total, byte in total + (byte < 0x20 ? 6 : byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") ? 2 : 1) }
    }

    /// One JSON object and a newline; keys sorted, slashes unescaped.
    static func line(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        // Exactly the line's size: appending the newline to an array of the encoding's size would double its capacity, and
        // the history keeps these lines (64 MiB of events held 100 MiB).
        return [UInt8](unsafeUninitializedCapacity: data.count + 1) { buffer, count in
            _ = data.copyBytes(to: buffer)
            buffer[data.count] = 0x0A
            count = data.count + 1
        }
    }

    /// A decoding failure as a protocol error naming the field.
    static func describe(_ error: DecodingError) -> ProtocolError {
        func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            (codingPath + (last.map { [$0] } ?? [])).map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
                .joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let field = path(context.codingPath, key)
            return ProtocolError(.missingField, "missing field \"\(field)\"", field: field)
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            let field = path(context.codingPath)
            return ProtocolError(.invalidField, "field \"\(field)\" has the wrong type: \(context.debugDescription)", field: field)
        case .dataCorrupted(let context):
            let field = path(context.codingPath)
            return ProtocolError(.invalidField, field.isEmpty ? context.debugDescription : "field \"\(field)\": \(context.debugDescription)",
                                 field: field.isEmpty ? nil : field)
        @unknown default:
            return ProtocolError(.malformed, "\(error)")
        }
    }

    private struct IDOnly: Decodable { var id: RequestID }
}

/// A protocol error and the id of the request it answers (nil when the id could not be read).
public struct ProtocolErrorWithID: Error, Sendable {
    public var id: RequestID?
    public var error: ProtocolError
}

private enum EnvelopeKeys: String, CodingKey {
    case id, op, ok, error, sub, event
}

/// A message's own fields with the envelope's (`id`/`op`, `id`/`ok`,
/// `sub`/`event`) added at the same level of the JSON object.
private struct Merged<Body: Encodable>: Encodable {
    enum Value: Encodable {
        case id(RequestID)
        case text(String)
        case flag(Bool)

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .id(let id): try id.encode(to: encoder)
            case .text(let text): try text.encode(to: encoder)
            case .flag(let flag): try flag.encode(to: encoder)
            }
        }
    }

    var body: Body
    var fields: [(EnvelopeKeys, Value)]

    func encode(to encoder: any Encoder) throws {
        try body.encode(to: encoder)
        var container = encoder.container(keyedBy: EnvelopeKeys.self)
        for (key, value) in fields { try container.encode(value, forKey: key) }
    }
}

/// `{"error":…,"id":…,"ok":false}`; an id that could not be read is `null`, never left out.
private struct FailureEnvelope: Encodable {
    var id: RequestID?
    var ok: Bool
    var error: ProtocolError

    private enum CodingKeys: String, CodingKey { case id, ok, error }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let id { try container.encode(id, forKey: .id) } else { try container.encodeNil(forKey: .id) }
        try container.encode(ok, forKey: .ok)
        try container.encode(error, forKey: .error)
    }
}

/// Something the daemon pushes to a subscription, unasked.
public protocol Event: Codable, Sendable {
    /// The `event` on the wire, e.g. `"table-changed"`.
    static var name: String { get }
    /// The event's whole line, written by hand where the encoder is too slow
    /// for the event's size — byte for byte what `Wire.eventBody` encodes
    /// (a test holds them equal); nil: encoded.
    func handWrittenLine() -> [UInt8]?
}

extension Event {
    public func handWrittenLine() -> [UInt8]? { nil }
}
