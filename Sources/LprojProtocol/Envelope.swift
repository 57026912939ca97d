import Foundation

extension Wire {
    /// The members that route a message line: `id`, `ok`, `error`, `sub`,
    /// `event`, `clock`, and `image` (a descriptor came with the line).
    struct Envelope: Decodable, Equatable {
        var id: RequestID?
        var ok: Bool?
        var error: ProtocolError?
        var sub: String?
        var event: String?
        var clock: String?
        var image: Bool?

        /// The envelope of `line`, scanned (`scan`), else decoded by `JSONDecoder`; nil when it is neither.
        static func read(_ line: [UInt8]) -> Envelope? {
            scan(line) ?? (try? JSONDecoder().decode(Envelope.self, from: Data(line)))
        }

        /// The envelope read in one pass over the line's top-level object,
        /// every other member skipped unread: a client decodes an event's
        /// body once, as the type it wants, not twice. Anything this pass is
        /// not sure of (a key or routing string with an escape, invalid
        /// UTF-8, a number that is not a plain integer, a routing member
        /// given twice, a line that is not exactly one object) gives nil,
        /// for `JSONDecoder` to read.
        static func scan(_ line: [UInt8]) -> Envelope? {
            var envelope = Envelope()
            guard envelope.scan(line) else { return nil }
            return envelope
        }

        private mutating func scan(_ line: [UInt8]) -> Bool {
            var scanner = Scanner(bytes: line)
            guard scanner.skipSpace(), scanner.take(UInt8(ascii: "{")) else { return false }
            scanner.skipSpace()
            if !scanner.take(UInt8(ascii: "}")) {
                // Routing members seen, a bit each (a set of strings cost a hash and an allocation per line).
                var seen = 0
                while true {
                    guard let keyRange = scanner.plainBytes(), scanner.skipSpace(), scanner.take(UInt8(ascii: ":")), scanner.skipSpace() else { return false }
                    let routing = Self.routing.firstIndex { line[keyRange].elementsEqual($0.utf8) }
                    // A routing member given twice: which one counts is the decoder's to say.
                    if let routing {
                        guard seen & 1 << routing == 0 else { return false }
                        seen |= 1 << routing
                    } else if String(validating: line[keyRange], as: UTF8.self) == nil {
                        return false
                    }
                    let key = routing.map { Self.routing[$0] } ?? ""
                    switch key {
                    case "id":
                        if scanner.null() {
                            id = nil
                        } else if let number = scanner.integer() {
                            id = .number(number)
                        } else if let text = scanner.plainString() {
                            id = .string(text)
                        } else {
                            return false
                        }
                    case "ok", "image":
                        if key == "image", scanner.null() { break }
                        guard let value = scanner.boolean() else { return false }
                        if key == "ok" { ok = value } else { image = value }
                    case "error":
                        guard let range = scanner.skipValue() else { return false }
                        // Rare (a failed request): its fields are ProtocolError's to read.
                        error = try? JSONDecoder().decode(ProtocolError.self, from: Data(line[range]))
                        if error == nil, !line[range].elementsEqual("null".utf8) { return false }
                    case "sub", "event", "clock":
                        if !scanner.null() {
                            guard let value = scanner.plainString() else { return false }
                            if key == "sub" { sub = value } else if key == "event" { event = value } else { clock = value }
                        }
                    default:
                        guard scanner.skipValue() != nil else { return false }
                    }
                    scanner.skipSpace()
                    if scanner.take(UInt8(ascii: ",")) { scanner.skipSpace(); continue }
                    guard scanner.take(UInt8(ascii: "}")) else { return false }
                    break
                }
            }
            scanner.skipSpace()
            return scanner.atEnd
        }

        private static let routing = ["id", "ok", "error", "sub", "event", "clock", "image"]
    }

    /// One pass over a line's JSON, for the readers that skip `JSONDecoder`
    /// (`Envelope`, `TableChanged.scanned`): each method takes what it reads
    /// or says it cannot, and the caller then gives up.
    struct Scanner {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }

        /// Skips JSON whitespace; true, to chain in a `guard`.
        @discardableResult
        mutating func skipSpace() -> Bool {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
            return true
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// The bytes of a string without escapes (not checked as UTF-8); nil otherwise.
        mutating func plainBytes() -> Range<Int>? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return start..<(index - 1)
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                index += 1
            }
            return nil
        }

        /// A string without escapes, as valid UTF-8; nil otherwise (nothing consumed that matters: the caller gives up).
        mutating func plainString() -> String? {
            plainBytes().flatMap { String(validating: bytes[$0], as: UTF8.self) }
        }

        /// `null`, taken.
        mutating func null() -> Bool {
            guard bytes[index...].starts(with: "null".utf8) else { return false }
            index += 4
            return true
        }


        mutating func boolean() -> Bool? {
            if bytes[index...].starts(with: "true".utf8) { index += 4; return true }
            if bytes[index...].starts(with: "false".utf8) { index += 5; return false }
            return nil
        }

        /// A plain integer (`-?[0-9]+`, in Int64) followed by a delimiter; nil, consuming nothing, otherwise.
        mutating func integer() -> Int64? {
            var position = index
            let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
            if negative { position += 1 }
            var value: Int64 = 0
            let digits = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                let digit = Int64(bytes[position] - UInt8(ascii: "0"))
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
                guard !overflow, !overflow2 else { return nil }
                value = sum
                position += 1
            }
            guard position > digits, position - digits == 1 || bytes[digits] != UInt8(ascii: "0") else { return nil }
            guard position == bytes.count || [0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: "}")].contains(bytes[position]) else { return nil }
            index = position
            return value
        }

        /// Skips one value of any kind, checking only its shape; its byte range.
        mutating func skipValue() -> Range<Int>? {
            let start = index
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                guard skipString() else { return nil }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while index < bytes.count {
                    switch bytes[index] {
                    case UInt8(ascii: "\""):
                        guard skipString() else { return nil }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                    default: break
                    }
                    index += 1
                    if depth == 0 { return start..<index }
                }
                return nil
            default:
                // true, false, null or a number: up to the next delimiter.
                while index < bytes.count, !([0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")].contains(bytes[index])) {
                    index += 1
                }
                guard index > start else { return nil }
            }
            return start..<index
        }

        /// Skips a string, escapes included.
        private mutating func skipString() -> Bool {
            index += 1
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index += 1
                    return true
                case UInt8(ascii: "\\"):
                    index += 2
                default:
                    index += 1
                }
            }
            return false
        }
    }
}
