import LprojTables
/// An XML property list's text with where each element lies, so that an
/// edit rewrites one element and keeps every other byte: the layout, the
/// order of keys, comments and the prolog of a `.stringsdict` or an XML
/// `.strings` file stay as their author (or their tool) wrote them.
struct PropertyListText: Sendable {
    indirect enum Value: Sendable {
        case dictionary(Dictionary)
        case string(StringElement)
        /// Any other element (array, number, date, data, boolean), kept as it is.
        case other(Range<Int>)

        var range: Range<Int> {
            switch self {
            case .dictionary(let dictionary): return dictionary.range
            case .string(let string): return string.range
            case .other(let range): return range
            }
        }
    }

    struct Dictionary: Sendable {
        /// From `<dict>` to just past `</dict>` (or the whole `<dict/>`).
        var range: Range<Int>
        var members: [Member]
        var isSelfClosing: Bool

        func member(_ key: String) -> Member? { members.last { $0.key == key } }
    }

    struct Member: Sendable {
        var key: String
        /// The whole `<key>…</key>` element.
        var keyRange: Range<Int>
        var value: Value
    }

    struct StringElement: Sendable {
        var range: Range<Int>
        var text: String
    }

    /// The UTF-8 text.
    let text: [UInt8]
    /// The value inside `<plist>`.
    let root: Value

    /// Scans `text`; a message saying where it stopped when it is not an
    /// XML property list this scanner follows.
    init(text: [UInt8]) throws(Failure) {
        self.text = text
        var scanner = Scanner(text: text)
        root = try scanner.document()
    }

    /// Where and why scanning stopped.
    struct Failure: Error, Sendable {
        var offset: Int
        var message: String
    }

    /// The dictionary at `path` (keys from the root), if every step is one.
    func dictionary(at path: [String]) -> Dictionary? {
        guard case .dictionary(var dictionary) = root else { return nil }
        for key in path {
            guard case .dictionary(let inner)? = dictionary.member(key)?.value else { return nil }
            dictionary = inner
        }
        return dictionary
    }

    private struct Scanner {
        let text: [UInt8]
        var index = 0

        mutating func document() throws(Failure) -> Value {
            try skipMisc()
            guard startsWith("<plist") else { throw Failure(offset: index, message: "expected <plist>") }
            try skip(past: ">")
            let value = try self.value()
            try skipMisc()
            guard startsWith("</plist>") else { throw Failure(offset: index, message: "expected </plist>") }
            return value
        }

        mutating func value() throws(Failure) -> Value {
            try skipMisc()
            let start = index
            guard index < text.count, text[index] == UInt8(ascii: "<") else { throw Failure(offset: index, message: "expected an element") }
            let (name, selfClosing) = try openTag()
            switch name {
            case "dict":
                if selfClosing { return .dictionary(Dictionary(range: start..<index, members: [], isSelfClosing: true)) }
                var members: [Member] = []
                while true {
                    try skipMisc()
                    if startsWith("</dict") {
                        try skip(past: ">")
                        return .dictionary(Dictionary(range: start..<index, members: members, isSelfClosing: false))
                    }
                    let keyStart = index
                    let (keyName, keyClosed) = try openTag()
                    guard keyName == "key" else { throw Failure(offset: keyStart, message: "expected <key> in a <dict>, found <\(keyName)>") }
                    let key = keyClosed ? "" : try content(closing: "key")
                    let keyRange = keyStart..<index
                    members.append(Member(key: key, keyRange: keyRange, value: try value()))
                }
            case "string":
                let text = selfClosing ? "" : try content(closing: "string")
                return .string(StringElement(range: start..<index, text: text))
            case "array":
                if selfClosing { return .other(start..<index) }
                while true {
                    try skipMisc()
                    if startsWith("</array") {
                        try skip(past: ">")
                        return .other(start..<index)
                    }
                    _ = try value()
                }
            default:
                if !selfClosing { _ = try content(closing: name) }
                return .other(start..<index)
            }
        }

        /// Reads `<name …>` or `<name …/>` at `index`.
        mutating func openTag() throws(Failure) -> (name: String, selfClosing: Bool) {
            let start = index
            index += 1
            while index < text.count, !text[index].isWhiteSpace, text[index] != UInt8(ascii: ">"), text[index] != UInt8(ascii: "/") { index += 1 }
            let name = String(decoding: text[(start + 1)..<index], as: UTF8.self)
            guard let close = text[index...].firstIndex(of: UInt8(ascii: ">")) else { throw Failure(offset: start, message: "unclosed <\(name)") }
            index = close + 1
            return (name, text[close - 1] == UInt8(ascii: "/"))
        }

        /// Character data up to `</name>`, entities and CDATA decoded.
        mutating func content(closing name: String) throws(Failure) -> String {
            let start = index
            var output: [UInt8] = []
            while index < text.count {
                let byte = text[index]
                if byte == UInt8(ascii: "<") {
                    if startsWith("<![CDATA[") {
                        guard let end = find("]]>", from: index + 9) else { throw Failure(offset: index, message: "unclosed CDATA section") }
                        output += text[(index + 9)..<end]
                        index = end + 3
                        continue
                    }
                    if startsWith("<!--") {
                        guard let end = find("-->", from: index + 4) else { throw Failure(offset: index, message: "unclosed comment") }
                        index = end + 3
                        continue
                    }
                    guard startsWith("</\(name)") else { throw Failure(offset: index, message: "expected </\(name)>") }
                    try skip(past: ">")
                    return String(decoding: output, as: UTF8.self)
                }
                if byte == UInt8(ascii: "&") {
                    guard let semicolon = text[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                        throw Failure(offset: index, message: "'&' that starts no entity")
                    }
                    let entity = String(decoding: text[(index + 1)..<semicolon], as: UTF8.self)
                    let scalar: Unicode.Scalar?
                    switch entity {
                    case "lt": scalar = "<"
                    case "gt": scalar = ">"
                    case "amp": scalar = "&"
                    case "quot": scalar = "\""
                    case "apos": scalar = "'"
                    default:
                        if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                            scalar = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                        } else if entity.hasPrefix("#") {
                            scalar = UInt32(entity.dropFirst()).flatMap(Unicode.Scalar.init)
                        } else {
                            scalar = nil
                        }
                    }
                    guard let scalar else { throw Failure(offset: index, message: "unknown entity &\(entity);") }
                    output += Array(String(scalar).utf8)
                    index = semicolon + 1
                    continue
                }
                output.append(byte)
                index += 1
            }
            throw Failure(offset: start, message: "unclosed <\(name)>")
        }

        /// White space, the XML declaration, a DOCTYPE and comments.
        mutating func skipMisc() throws(Failure) {
            while index < text.count {
                if text[index].isWhiteSpace {
                    index += 1
                } else if startsWith("<?") {
                    guard let end = find("?>", from: index) else { throw Failure(offset: index, message: "unclosed <?") }
                    index = end + 2
                } else if startsWith("<!--") {
                    guard let end = find("-->", from: index) else { throw Failure(offset: index, message: "unclosed comment") }
                    index = end + 3
                } else if startsWith("<!DOCTYPE") {
                    var depth = 0
                    while index < text.count {
                        if text[index] == UInt8(ascii: "[") { depth += 1 }
                        if text[index] == UInt8(ascii: "]") { depth -= 1 }
                        index += 1
                        if text[index - 1] == UInt8(ascii: ">"), depth == 0 { break }
                    }
                } else {
                    return
                }
            }
        }

        mutating func skip(past string: String) throws(Failure) {
            guard let end = find(string, from: index) else { throw Failure(offset: index, message: "expected \(string)") }
            index = end + string.utf8.count
        }

        func startsWith(_ prefix: String) -> Bool {
            let bytes = Array(prefix.utf8)
            return index + bytes.count <= text.count && text[index..<(index + bytes.count)].elementsEqual(bytes)
        }

        func find(_ string: String, from start: Int) -> Int? {
            let needle = Array(string.utf8)
            guard needle.count <= text.count else { return nil }
            var position = start
            while position + needle.count <= text.count {
                if text[position] == needle[0], text[position..<(position + needle.count)].elementsEqual(needle) { return position }
                position += 1
            }
            return nil
        }
    }
}
