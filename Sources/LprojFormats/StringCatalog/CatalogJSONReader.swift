@_spi(LprojInternals) import LprojTables
/// Reading a catalog's JSON: one pass over its bytes, each key with the
/// offset where it is written.
extension CatalogJSON {
    /// A key written twice in one object, at the offsets of both (the
    /// last one counts, as every JSON reader takes it).
    struct DuplicateKey: Equatable, Sendable {
        var key: String
        var first: Int
        var second: Int
    }

    /// Parses `text` (UTF-8).
    static func parse(_ text: [UInt8]) throws(Failure) -> CatalogJSON {
        try read(text).value
    }

    /// Parses `text` (UTF-8; a byte order mark is skipped), and names the
    /// keys any object has twice.
    static func read(_ text: [UInt8]) throws(Failure) -> (value: CatalogJSON, duplicates: [DuplicateKey]) {
        let result = text.withUnsafeBufferPointer { buffer in
            Result { () throws(Failure) in
                var parser = Reader(text: buffer)
                if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
                parser.skipSpace()
                let value = try parser.value(depth: 0)
                parser.skipSpace()
                guard parser.index == buffer.count else {
                    throw Failure(offset: parser.index, message: "unexpected text after the catalog's closing '}'")
                }
                return (value, parser.duplicates)
            }
        }
        return try result.get()
    }

    /// Reads objects, arrays and strings in one pass over the bytes; a
    /// string's spelling is kept only where writing its value again would
    /// spell it otherwise (an escape Xcode does not write).
    struct Reader {
        let text: UnsafeBufferPointer<UInt8>
        var index = 0
        var duplicates: [DuplicateKey] = []

        init(text: UnsafeBufferPointer<UInt8>) {
            self.text = text
        }

        mutating func skipSpace() {
            while index < text.count {
                let byte = text[index]
                guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
                index += 1
            }
        }

        mutating func value(depth: Int) throws(Failure) -> CatalogJSON {
            guard depth < 512 else { throw Failure(offset: index, message: "nested more than 512 levels deep") }
            guard index < text.count else { throw Failure(offset: index, message: "unexpected end of the file") }
            switch text[index] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""):
                let (value, spelling) = try string()
                return .string(value, spelling: spelling)
            case UInt8(ascii: "t"): return try word("true", .bool(true))
            case UInt8(ascii: "f"): return try word("false", .bool(false))
            case UInt8(ascii: "n"): return try word("null", .null)
            default: return try number()
            }
        }

        private mutating func object(depth: Int) throws(Failure) -> CatalogJSON {
            let open = index
            index += 1
            skipSpace()
            if index < text.count, text[index] == UInt8(ascii: "}") {
                index += 1
                return .object([], emptyForm: index - 2 == open ? .compact : .xcode)
            }
            var members: [Member] = []
            while true {
                skipSpace()
                guard index < text.count, text[index] == UInt8(ascii: "\"") else { throw Failure(offset: index, message: "expected a key in quotes") }
                let keyOffset = index
                let (key, spelling) = try string()
                skipSpace()
                guard index < text.count, text[index] == UInt8(ascii: ":") else { throw Failure(offset: index, message: "expected ':' after the key \"\(key)\"") }
                index += 1
                skipSpace()
                members.append(Member(key, try value(depth: depth + 1), keySpelling: spelling, keyOffset: keyOffset))
                skipSpace()
                guard index < text.count else { throw Failure(offset: index, message: "unexpected end of the file in an object") }
                if text[index] == UInt8(ascii: ",") { index += 1; continue }
                guard text[index] == UInt8(ascii: "}") else { throw Failure(offset: index, message: "expected ',' or '}' in an object") }
                index += 1
                noteDuplicates(in: members)
                return .object(members)
            }
        }

        private mutating func array(depth: Int) throws(Failure) -> CatalogJSON {
            let open = index
            index += 1
            skipSpace()
            if index < text.count, text[index] == UInt8(ascii: "]") {
                index += 1
                return .array([], emptyForm: index - 2 == open ? .compact : .xcode)
            }
            var values: [CatalogJSON] = []
            while true {
                skipSpace()
                values.append(try value(depth: depth + 1))
                skipSpace()
                guard index < text.count else { throw Failure(offset: index, message: "unexpected end of the file in an array") }
                if text[index] == UInt8(ascii: ",") { index += 1; continue }
                guard text[index] == UInt8(ascii: "]") else { throw Failure(offset: index, message: "expected ',' or ']' in an array") }
                index += 1
                return .array(values)
            }
        }

        /// A key written more than once in one object (compared as Swift
        /// compares strings, so as a table keys them).
        private mutating func noteDuplicates(in members: [Member]) {
            guard members.count > 1 else { return }
            if members.count <= 16 {
                for later in 1..<members.count {
                    if let earlier = members[..<later].firstIndex(where: { $0.key == members[later].key }) {
                        duplicates.append(DuplicateKey(key: members[later].key, first: members[earlier].keyOffset, second: members[later].keyOffset))
                    }
                }
                return
            }
            var seen: [String: Int] = [:]
            seen.reserveCapacity(members.count)
            for member in members {
                if let first = seen.updateValue(member.keyOffset, forKey: member.key) {
                    duplicates.append(DuplicateKey(key: member.key, first: first, second: member.keyOffset))
                    seen[member.key] = first
                }
            }
        }

        private mutating func word(_ word: StaticString, _ value: CatalogJSON) throws(Failure) -> CatalogJSON {
            let count = word.utf8CodeUnitCount
            guard index + count <= text.count, UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(text[index..<(index + count)]) else {
                throw Failure(offset: index, message: "unexpected character")
            }
            index += count
            return value
        }

        /// A number as JSON writes one: `-`, digits, a fraction, an exponent.
        private mutating func number() throws(Failure) -> CatalogJSON {
            let start = index
            func digits() -> Int {
                let first = index
                while index < text.count, (0x30...0x39).contains(text[index]) { index += 1 }
                return index - first
            }
            if index < text.count, text[index] == UInt8(ascii: "-") { index += 1 }
            let whole = index
            guard digits() > 0, text[whole] != 0x30 || index - whole == 1 else {
                throw Failure(offset: start, message: "unexpected character")
            }
            if index < text.count, text[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw Failure(offset: index, message: "a number needs digits after '.'") }
            }
            if index < text.count, text[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                if index < text.count, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw Failure(offset: index, message: "a number needs digits in its exponent") }
            }
            return .number(String(decoding: UnsafeBufferPointer(rebasing: text[start..<index]), as: UTF8.self))
        }

        /// A quoted string at `index`: its value, and its spelling (quotes
        /// included) when `quote` would write the value otherwise.
        mutating func string() throws(Failure) -> (String, [UInt8]?) {
            let start = index
            index += 1
            // Most strings have no escape: their bytes are the value.
            while index < text.count {
                let byte = text[index]
                if byte == UInt8(ascii: "\"") {
                    let bytes = UnsafeBufferPointer(rebasing: text[(start + 1)..<index])
                    index += 1
                    guard let value = String(validating: bytes, as: UTF8.self) else { throw invalidUTF8(in: start) }
                    return (value, nil)
                }
                if byte == UInt8(ascii: "\\") { break }
                if byte < 0x20 { throw Failure(offset: index, message: "a control character inside a string (write it as an escape)") }
                index += 1
            }
            var output = Array(UnsafeBufferPointer(rebasing: text[(start + 1)..<index]))
            while index < text.count {
                let byte = text[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    guard let value = String(validating: output, as: UTF8.self) else { throw invalidUTF8(in: start) }
                    let spelling = Array(UnsafeBufferPointer(rebasing: text[start..<index]))
                    var canonical: [UInt8] = []
                    JSONStringEscape.quote(value, into: &canonical)
                    return (value, canonical == spelling ? nil : spelling)
                }
                if byte < 0x20 { throw Failure(offset: index, message: "a control character inside a string (write it as an escape)") }
                guard byte == UInt8(ascii: "\\") else {
                    output.append(byte)
                    index += 1
                    continue
                }
                guard index + 1 < text.count else { break }
                let escape = text[index + 1]
                index += 2
                if let byte = JSONStringEscape.byte(for: escape) {
                    output.append(byte)
                    continue
                }
                guard escape == UInt8(ascii: "u") else {
                    throw Failure(offset: index - 2, message: "unknown escape '\\\(Character(Unicode.Scalar(escape)))'")
                }
                var unit = try hexUnit()
                if unit >= 0xD800, unit < 0xDC00, index + 1 < text.count, text[index] == 0x5C, text[index + 1] == UInt8(ascii: "u") {
                    index += 2
                    let low = try hexUnit()
                    guard low >= 0xDC00, low < 0xE000 else { throw Failure(offset: index - 12, message: "a lone UTF-16 surrogate escape") }
                    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(unit) else { throw Failure(offset: index - 6, message: "a lone UTF-16 surrogate escape") }
                output += Array(String(scalar).utf8)
            }
            throw Failure(offset: start, message: "a string that never ends")
        }

        private func invalidUTF8(in start: Int) -> Failure {
            let bytes = UnsafeBufferPointer(rebasing: text[..<index])
            let bad = UTF8Validation.firstInvalidOffset(in: bytes, from: start) ?? start
            return Failure(offset: bad, message: "a string that is not valid UTF-8 (byte 0x\(String(text[bad], radix: 16, uppercase: true)))")
        }

        private mutating func hexUnit() throws(Failure) -> UInt32 {
            var value: UInt32 = 0
            guard index + 4 <= text.count else { throw Failure(offset: index, message: "\\u needs four hex digits") }
            for byte in text[index..<(index + 4)] {
                guard let digit = Self.hexValue(byte) else { throw Failure(offset: index, message: "\\u needs four hex digits") }
                value = value << 4 | digit
            }
            index += 4
            return value
        }

        private static func hexValue(_ byte: UInt8) -> UInt32? {
            switch byte {
            case 0x30...0x39: UInt32(byte - 0x30)
            case 0x41...0x46: UInt32(byte - 0x41 + 10)
            case 0x61...0x66: UInt32(byte - 0x61 + 10)
            default: nil
            }
        }
    }
}
