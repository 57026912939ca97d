extension Wire {
    /// A request line's `id` and `op` read in one pass, the line checked as
    /// JSON on the way: `header(of:)` parses the line with
    /// `JSONSerialization`, then again with `JSONDecoder` for the id,
    /// before the request's own decoding reads it a third time (a
    /// reconnecting service's processes send three requests each). Only
    /// the plain form is taken — valid UTF-8 without a single escape; one
    /// object; `id` an integer or a string, `op` a string, each once; every
    /// other value strings, integers of at most 18 digits, `true`, `false`,
    /// `null`, arrays and objects of them, at most 32 deep —; anything else
    /// gives nil, for `header(of:)` to read (and to explain). What it takes
    /// is JSON that the general path reads the same.
    public static func scannedHeader(of line: [UInt8]) -> Header? {
        guard !line.contains(UInt8(ascii: "\\")), String(validating: line, as: UTF8.self) != nil else { return nil }
        var scanner = Scanner(bytes: line)
        var id: RequestID?, op: String?
        guard scanner.skipSpace(), scanner.take(UInt8(ascii: "{")), scanner.skipSpace() else { return nil }
        while true {
            guard let key = scanner.plainBytes(), scanner.skipSpace(), scanner.take(UInt8(ascii: ":")), scanner.skipSpace() else { return nil }
            if line[key].elementsEqual("id".utf8) {
                guard id == nil else { return nil }
                if let number = scanner.integer() { id = .number(number) } else if let text = scanner.plainString() { id = .string(text) } else { return nil }
            } else if line[key].elementsEqual("op".utf8) {
                guard op == nil, let text = scanner.plainString() else { return nil }
                op = text
            } else {
                guard scanner.skipPlainValue(depth: 1) else { return nil }
            }
            scanner.skipSpace()
            if scanner.take(UInt8(ascii: "}")) { break }
            guard scanner.take(UInt8(ascii: ",")), scanner.skipSpace() else { return nil }
        }
        scanner.skipSpace()
        guard scanner.atEnd, let id, let op else { return nil }
        return Header(id: id, op: op)
    }
}

extension Wire.Scanner {
    /// Skips one value of the plain form `scannedHeader` takes, checked as
    /// JSON (strings without escapes or control characters, short integers,
    /// literals, and arrays and objects of them up to 32 deep); false for
    /// anything else.
    mutating func skipPlainValue(depth: Int) -> Bool {
        guard index < bytes.count, depth <= 32 else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return plainBytes() != nil
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            let object = bytes[index] == UInt8(ascii: "{")
            let close = object ? UInt8(ascii: "}") : UInt8(ascii: "]")
            index += 1
            skipSpace()
            if take(close) { return true }
            while true {
                if object {
                    guard plainBytes() != nil, skipSpace(), take(UInt8(ascii: ":")), skipSpace() else { return false }
                }
                guard skipPlainValue(depth: depth + 1) else { return false }
                skipSpace()
                if take(close) { return true }
                guard take(UInt8(ascii: ",")), skipSpace() else { return false }
            }
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            return boolean() != nil && delimited
        case UInt8(ascii: "n"):
            return null() && delimited
        default:
            // -?(0|[1-9][0-9]*), at most 18 digits: what every JSON reader takes alike.
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            let count = index - digits
            return count > 0 && count <= 18 && (count == 1 || bytes[digits] != UInt8(ascii: "0")) && delimited
        }
    }

    /// Whether the next byte ends a value (or there is none).
    private var delimited: Bool {
        index == bytes.count || [0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")].contains(bytes[index])
    }
}
