/// JSON as a String Catalog holds it, written back as Xcode writes catalogs:
/// two-space indentation, `"key" : value`, members in their order (new
/// ones where Xcode's order puts them), nothing escaped that need not be.
/// Strings and numbers read from a file keep their spelling while their
/// value is unchanged, so an unchanged catalog reads and writes the same
/// bytes, and an edit's diff shows only what changed.
indirect enum CatalogJSON: Equatable, Sendable {
    case object([Member], emptyForm: EmptyForm = .xcode)
    case array([CatalogJSON], emptyForm: EmptyForm = .xcode)
    case string(String, spelling: [UInt8]? = nil)
    /// A number as written.
    case number(String)
    case bool(Bool)
    case null

    struct Member: Equatable, Sendable {
        var key: String
        var keySpelling: [UInt8]?
        var value: CatalogJSON
        /// Where the key is written in the text it was read from (0 for a
        /// member made in memory).
        var keyOffset: Int

        static func == (lhs: Member, rhs: Member) -> Bool { lhs.key == rhs.key && lhs.value == rhs.value }

        init(_ key: String, _ value: CatalogJSON, keySpelling: [UInt8]? = nil, keyOffset: Int = 0) {
            self.key = key
            self.value = value
            self.keySpelling = keySpelling
            self.keyOffset = keyOffset
        }
    }

    /// How an empty object or array is written: Xcode's `{` blank line `}`,
    /// or `{}` as a file had it.
    enum EmptyForm: Equatable, Sendable {
        case xcode
        case compact
    }

    /// Where and why reading stopped.
    struct Failure: Error, Sendable {
        var offset: Int
        var message: String
    }

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
                var parser = Parser(text: buffer)
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

    /// The text, in Xcode's layout.
    func rendered() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(4096)
        render(into: &output, indent: 0)
        return output
    }

    /// Equal values, however they were spelled.
    static func == (lhs: CatalogJSON, rhs: CatalogJSON) -> Bool {
        switch (lhs, rhs) {
        case (.object(let a, _), .object(let b, _)): return a == b
        case (.array(let a, _), .array(let b, _)): return a == b
        case (.string(let a, _), .string(let b, _)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null): return true
        default: return false
        }
    }

    // MARK: - Access

    subscript(key: String) -> CatalogJSON? {
        member(key)?.value
    }

    /// The member `key` of this object (the last, when it is written twice).
    func member(_ key: String) -> Member? {
        guard case .object(let members, _) = self else { return nil }
        return members.last { $0.key == key }
    }

    /// This object's members, each key once (the last where it is written
    /// twice), in their order; nil when this is not an object.
    var uniqueMembers: [Member]? {
        guard case .object(let members, _) = self else { return nil }
        guard members.count > 1 else { return members }
        if members.count <= 16 {
            return members.indices.filter { index in !members[(index + 1)...].contains { $0.key == members[index].key } }.map { members[$0] }
        }
        var last: [String: Int] = [:]
        last.reserveCapacity(members.count)
        for (index, member) in members.enumerated() { last[member.key] = index }
        guard last.count < members.count else { return members }
        return members.indices.filter { last[members[$0].key] == $0 }.map { members[$0] }
    }

    var stringValue: String? {
        if case .string(let value, _) = self { return value }
        return nil
    }

    /// Sets `key` of this object, in place when it is there, else where
    /// Xcode's order puts it. Does nothing to a value that is not an object.
    mutating func set(_ key: String, _ value: CatalogJSON) {
        guard case .object(var members, let form) = self else { return }
        if let index = members.lastIndex(where: { $0.key == key }) {
            if members[index].value != value { members[index].value = value }
        } else {
            let position = members.firstIndex { XcodeOrder.precedes(key, $0.key) } ?? members.count
            members.insert(Member(key, value), at: position)
        }
        self = .object(members, emptyForm: form)
    }

    /// Removes `key` from this object; false when it was not there.
    @discardableResult
    mutating func remove(_ key: String) -> Bool {
        guard case .object(var members, let form) = self else { return false }
        let count = members.count
        members.removeAll { $0.key == key }
        self = .object(members, emptyForm: form)
        return members.count != count
    }

    /// Changes the value at `path` (keys from here) with `body`, making
    /// empty objects on the way where keys are missing.
    mutating func update(_ path: ArraySlice<String>, _ body: (inout CatalogJSON) throws(TableEditError) -> Void) throws(TableEditError) {
        guard let key = path.first else { return try body(&self) }
        var child = self[key] ?? .object([])
        try child.update(path.dropFirst(), body)
        set(key, child)
    }

    // MARK: - Writing

    private func render(into output: inout [UInt8], indent: Int) {
        switch self {
        case .object(let members, let form):
            guard !members.isEmpty else { return Self.renderEmpty("{", "}", form, indent, &output) }
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                output.append(0x0A)
                output += repeatElement(0x20, count: indent + 2)
                if let spelling = member.keySpelling { output += spelling } else { Self.quote(member.key, into: &output) }
                output += Array(" : ".utf8)
                member.value.render(into: &output, indent: indent + 2)
                if index < members.count - 1 { output.append(UInt8(ascii: ",")) }
            }
            output.append(0x0A)
            output += repeatElement(0x20, count: indent)
            output.append(UInt8(ascii: "}"))
        case .array(let values, let form):
            guard !values.isEmpty else { return Self.renderEmpty("[", "]", form, indent, &output) }
            output.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                output.append(0x0A)
                output += repeatElement(0x20, count: indent + 2)
                value.render(into: &output, indent: indent + 2)
                if index < values.count - 1 { output.append(UInt8(ascii: ",")) }
            }
            output.append(0x0A)
            output += repeatElement(0x20, count: indent)
            output.append(UInt8(ascii: "]"))
        case .string(let value, let spelling):
            if let spelling { output += spelling } else { Self.quote(value, into: &output) }
        case .number(let text):
            output += Array(text.utf8)
        case .bool(let value):
            output += Array((value ? "true" : "false").utf8)
        case .null:
            output += Array("null".utf8)
        }
    }

    private static func renderEmpty(_ open: Character, _ close: Character, _ form: EmptyForm, _ indent: Int, _ output: inout [UInt8]) {
        output.append(open.asciiValue!)
        if form == .xcode {
            output += [0x0A, 0x0A]
            output += repeatElement(0x20, count: indent)
        }
        output.append(close.asciiValue!)
    }

    /// `value` in quotes: `"` and `\` escaped, control characters as
    /// `\n`-style or `\u00XX` escapes, everything else (`/` and non-ASCII
    /// included) as it is.
    static func quote(_ value: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += [0x5C, 0x22]
            case UInt8(ascii: "\\"): output += [0x5C, 0x5C]
            case 0x0A: output += [0x5C, UInt8(ascii: "n")]
            case 0x0D: output += [0x5C, UInt8(ascii: "r")]
            case 0x09: output += [0x5C, UInt8(ascii: "t")]
            case 0x08: output += [0x5C, UInt8(ascii: "b")]
            case 0x0C: output += [0x5C, UInt8(ascii: "f")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    // MARK: - Reading

    /// Reads objects, arrays and strings in one pass over the bytes; a
    /// string's spelling is kept only where writing its value again would
    /// spell it otherwise (an escape Xcode does not write).
    private struct Parser {
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
                    CatalogJSON.quote(value, into: &canonical)
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

/// The order Xcode writes a catalog's keys in: as Finder sorts names —
/// letters without regard to case, runs of digits by their number — and
/// by bytes where that finds them equal.
public enum XcodeOrder {
    public static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        var left = lhs.unicodeScalars.makeIterator(), right = rhs.unicodeScalars.makeIterator()
        var a = left.next(), b = right.next()
        while let x = a, let y = b {
            if x.properties.numericType == .decimal, y.properties.numericType == .decimal, x.isASCII, y.isASCII {
                var first = "", second = ""
                while let digit = a, digit.isASCII, digit.properties.numericType == .decimal { first.unicodeScalars.append(digit); a = left.next() }
                while let digit = b, digit.isASCII, digit.properties.numericType == .decimal { second.unicodeScalars.append(digit); b = right.next() }
                let trimmedFirst = first.drop { $0 == "0" }, trimmedSecond = second.drop { $0 == "0" }
                if trimmedFirst.count != trimmedSecond.count { return trimmedFirst.count < trimmedSecond.count }
                if trimmedFirst != trimmedSecond { return trimmedFirst < trimmedSecond }
                continue
            }
            let foldedX = x.properties.lowercaseMapping, foldedY = y.properties.lowercaseMapping
            if foldedX != foldedY { return foldedX.unicodeScalars.lexicographicallyPrecedes(foldedY.unicodeScalars) { $0.value < $1.value } }
            a = left.next()
            b = right.next()
        }
        if (a == nil) != (b == nil) { return a == nil }
        return Array(lhs.utf8).lexicographicallyPrecedes(Array(rhs.utf8))
    }
}
