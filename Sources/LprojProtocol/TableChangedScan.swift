import Foundation
import LprojFormats
import LprojTables

extension TableChanged {
    /// The event read from its line in one pass, without `JSONDecoder`:
    /// every client reads one on every save, and decoding it through
    /// `Codable` cost more than the rest of taking its image in. Strings are
    /// read as JSON reads them (escapes, surrogate pairs); an entry that is
    /// not a plain string is decoded by `JSONDecoder` alone. Anything this
    /// pass is not sure of — a member given twice, a field of another type,
    /// invalid UTF-8, a line that is not one object — gives nil, for
    /// `JSONDecoder` to read (and to explain).
    static func scanned(_ line: [UInt8]) -> TableChanged? {
        var scanner = Wire.Scanner(bytes: line)
        var clock: Clock?, bundle: String?, language: String?, table: String?
        var added: [String: Entry]?, changed: [String: Entry]?, removed: [String]?
        var deleted: Bool?, image: Bool?
        // The members read, a bit each.
        var seen = 0
        guard scanner.skipSpace(), scanner.take(UInt8(ascii: "{")), scanner.skipSpace(), !scanner.take(UInt8(ascii: "}")) else { return nil }
        while true {
            guard let key = scanner.string(), scanner.skipSpace(), scanner.take(UInt8(ascii: ":")), scanner.skipSpace() else { return nil }
            if let member = Self.members.firstIndex(of: key) {
                guard seen & 1 << member == 0 else { return nil }
                seen |= 1 << member
            }
            switch key {
            case "clock":
                guard let text = scanner.string(), let value = Clock(text) else { return nil }
                clock = value
            case "bundle", "language", "table":
                guard let value = scanner.string() else { return nil }
                if key == "bundle" { bundle = value } else if key == "language" { language = value } else { table = value }
            case "added", "changed":
                guard let entries = scanner.entries(in: line) else { return nil }
                if key == "added" { added = entries } else { changed = entries }
            case "removed":
                guard let keys = scanner.strings() else { return nil }
                removed = keys
            case "deleted", "image":
                var value: Bool?
                if !scanner.null() {
                    guard let flag = scanner.boolean() else { return nil }
                    value = flag
                }
                if key == "deleted" { deleted = value } else { image = value }
            default:
                guard scanner.skipValue() != nil else { return nil }
            }
            scanner.skipSpace()
            if scanner.take(UInt8(ascii: ",")) { scanner.skipSpace(); continue }
            guard scanner.take(UInt8(ascii: "}")) else { return nil }
            break
        }
        scanner.skipSpace()
        guard scanner.atEnd, let clock, let bundle, let language, let table, let added, let changed, let removed else { return nil }
        var event = TableChanged(clock: clock, bundle: bundle, language: language, table: table, diff: TableDiff(from: Table(), to: Table()))
        event.added = added
        event.changed = changed
        event.removed = removed
        event.deleted = deleted
        event.image = image
        return event
    }

    /// The members `scanned` reads (each at most once).
    private static let members = ["clock", "bundle", "language", "table", "added", "changed", "removed", "deleted", "image"]
}

extension Wire.Scanner {
    /// A JSON string, its escapes decoded; nil when it is not one (or not valid UTF-8).
    mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        var start = index
        // Made only when an escape is met: most strings are their bytes.
        var decoded: [UInt8]?
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                guard var decoded else { return String(validating: bytes[start..<index], as: UTF8.self) }
                decoded += bytes[start..<index]
                return String(validating: decoded, as: UTF8.self)
            }
            if byte < 0x20 { return nil }
            guard byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            var text = decoded ?? []
            text += bytes[start..<index]
            guard index + 1 < bytes.count else { return nil }
            let escaped = bytes[index + 1]
            index += 2
            if let byte = JSONStringEscape.byte(for: escaped) {
                text.append(byte)
            } else {
                guard escaped == UInt8(ascii: "u"), let scalar = escapedScalar() else { return nil }
                text += Array(String(Character(scalar)).utf8)
            }
            decoded = text
            start = index
        }
        return nil
    }

    /// The scalar of a `\u` escape whose `\u` is read: four hex digits, or
    /// a surrogate pair's two escapes; nil for a lone surrogate.
    private mutating func escapedScalar() -> Unicode.Scalar? {
        guard let unit = hexUnit() else { return nil }
        switch unit {
        case 0xD800...0xDBFF:
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { return nil }
            index += 2
            guard let low = hexUnit(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + (unit - 0xD800) << 10 + (low - 0xDC00))
        case 0xDC00...0xDFFF:
            return nil
        default:
            return Unicode.Scalar(unit)
        }
    }

    private mutating func hexUnit() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var unit: UInt32 = 0
        for byte in bytes[index..<(index + 4)] {
            guard let digit = UInt8(ascii: "0")...UInt8(ascii: "9") ~= byte ? byte - UInt8(ascii: "0")
                    : UInt8(ascii: "a")...UInt8(ascii: "f") ~= byte | 0x20 ? (byte | 0x20) - UInt8(ascii: "a") + 10 : nil else { return nil }
            unit = unit << 4 | UInt32(digit)
        }
        index += 4
        return unit
    }

    /// `[string, …]`.
    mutating func strings() -> [String]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var strings: [String] = []
        skipSpace()
        if take(UInt8(ascii: "]")) { return strings }
        while true {
            skipSpace()
            guard let string = string() else { return nil }
            strings.append(string)
            skipSpace()
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "]")) ? strings : nil
        }
    }

    /// `{key: entry, …}`: a plain string entry read here, any other decoded
    /// from its bytes in `line` by `JSONDecoder`; nil for a key given twice.
    mutating func entries(in line: [UInt8]) -> [String: Entry]? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var entries: [String: Entry] = [:]
        skipSpace()
        if take(UInt8(ascii: "}")) { return entries }
        while true {
            skipSpace()
            guard let key = string(), entries[key] == nil, skipSpace(), take(UInt8(ascii: ":")), skipSpace(), index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "\"") {
                guard let text = string() else { return nil }
                entries[key] = Entry(text: text)
            } else {
                guard let range = skipValue(), let entry = try? JSONDecoder().decode(Entry.self, from: Data(line[range])) else { return nil }
                entries[key] = entry
            }
            skipSpace()
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "}")) ? entries : nil
        }
    }
}
