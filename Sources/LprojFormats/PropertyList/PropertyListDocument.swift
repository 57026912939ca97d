import LprojTables
/// An XML property list (a `.stringsdict`, or a `.strings` file stored as
/// XML) opened for editing in place: each edit rewrites one element, and a
/// new key is written in the indentation and line breaks of its neighbours.
struct PropertyListDocument {
    /// A value to write.
    indirect enum NewValue {
        case string(String)
        case dictionary([(key: String, value: NewValue)])
    }

    private let path: String
    private(set) var text: [UInt8]
    private var plist: PropertyListText

    init(text: [UInt8], path: String) throws(TableEditError) {
        self.path = path
        self.text = text
        plist = try Self.scan(text, path: path)
    }

    /// The dictionary at `path`, if there is one.
    func dictionary(at path: [String]) -> PropertyListText.Dictionary? { plist.dictionary(at: path) }

    /// Sets the string at `path` (its last key in the dictionary the
    /// others lead to), writing a new member when the key is not there.
    mutating func setString(_ value: String, at path: [String]) throws(TableEditError) {
        guard let key = path.last, let dictionary = plist.dictionary(at: Array(path.dropLast())) else {
            throw TableEditError(path: self.path, "no dictionary at \(path.dropLast().joined(separator: " → "))")
        }
        let element = Array("<string>\(XMLEscape.content(value))</string>".utf8)
        guard let member = dictionary.member(key) else {
            return try insert(key: key, value: .string(value), into: Array(path.dropLast()))
        }
        guard case .string(let string) = member.value else {
            throw TableEditError(path: self.path, "\(path.joined(separator: " → ")) is not a string")
        }
        try replace(string.range, with: element)
    }

    /// Writes `key` with `value` as the last member of the dictionary at `path`.
    mutating func insert(key: String, value: NewValue, into path: [String]) throws(TableEditError) {
        guard let dictionary = plist.dictionary(at: path) else {
            throw TableEditError(path: self.path, "no dictionary at \(path.joined(separator: " → "))")
        }
        let keyElement = Array("<key>\(XMLEscape.content(key))</key>".utf8)
        if let last = dictionary.members.last {
            let indent = indentation(before: last.keyRange.lowerBound)
            let between = Array(text[last.keyRange.upperBound..<last.value.range.lowerBound])
            let separator = between.allSatisfy(\.isWhiteSpace) ? between : lineEnding + indent
            let rendered = render(value, indent: indent)
            try replace(last.value.range.upperBound..<last.value.range.upperBound,
                        with: lineEnding + indent + keyElement + separator + rendered)
        } else {
            let outer = indentation(before: dictionary.range.lowerBound)
            try replace(dictionary.range, with: render(.dictionary([(key, value)]), indent: outer))
        }
    }

    /// Removes `key` from the dictionary at `path`, with the lines it had to itself.
    mutating func remove(key: String, from path: [String]) throws(TableEditError) -> Bool {
        guard let member = plist.dictionary(at: path)?.member(key) else { return false }
        var start = member.keyRange.lowerBound
        var end = member.value.range.upperBound
        let lineStart = self.lineStart(of: start)
        var after = end
        while after < text.count, text[after] == 0x20 || text[after] == 0x09 { after += 1 }
        if text[lineStart..<start].allSatisfy({ $0 == 0x20 || $0 == 0x09 }), after < text.count, text[after].isLineBreak {
            // From the start of the key's line to the end of the value's line.
            start = lineStart
            end = after + ((text[after] == 0x0D && after + 1 < text.count && text[after + 1] == 0x0A) ? 2 : 1)
        }
        try replace(start..<end, with: [])
        return true
    }

    /// Renames `key` in the dictionary at `path`.
    mutating func rename(key: String, to newKey: String, in path: [String]) throws(TableEditError) {
        guard let member = plist.dictionary(at: path)?.member(key) else { return }
        try replace(member.keyRange, with: Array("<key>\(XMLEscape.content(newKey))</key>".utf8))
    }

    // MARK: - Helpers

    private static func scan(_ text: [UInt8], path: String) throws(TableEditError) -> PropertyListText {
        do {
            return try PropertyListText(text: text)
        } catch {
            let line = text[..<min(error.offset, text.count)].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            throw TableEditError(path: path, "cannot be edited in place: line \(line): \(error.message)")
        }
    }

    private mutating func replace(_ range: Range<Int>, with bytes: [UInt8]) throws(TableEditError) {
        text.replaceSubrange(range, with: bytes)
        plist = try Self.scan(text, path: path)
    }

    /// A new value: a string on one line, a dictionary over several, its
    /// members one indentation step further in than `indent`.
    private func render(_ value: NewValue, indent: [UInt8]) -> [UInt8] {
        switch value {
        case .string(let string):
            return Array("<string>\(XMLEscape.content(string))</string>".utf8)
        case .dictionary(let members):
            let inner = indent + indentUnit
            var output = Array("<dict>".utf8)
            for (key, member) in members {
                output += lineEnding + inner + Array("<key>\(XMLEscape.content(key))</key>".utf8)
                output += lineEnding + inner + render(member, indent: inner)
            }
            return output + lineEnding + indent + Array("</dict>".utf8)
        }
    }

    /// `\r\n` when the file uses it, else `\n`.
    private var lineEnding: [UInt8] {
        if let newline = text.firstIndex(of: 0x0A), newline > 0, text[newline - 1] == 0x0D { return [0x0D, 0x0A] }
        return [0x0A]
    }

    /// One step of indentation: what the root dictionary's first member is
    /// indented by beyond the dictionary (Apple's writer: a tab).
    private var indentUnit: [UInt8] {
        guard case .dictionary(let root) = plist.root, let first = root.members.first else { return [0x09] }
        let outer = indentation(before: root.range.lowerBound)
        let inner = indentation(before: first.keyRange.lowerBound)
        guard inner.count > outer.count, inner.starts(with: outer) else { return inner.isEmpty ? [0x09] : inner }
        return Array(inner.dropFirst(outer.count))
    }

    private func lineStart(of offset: Int) -> Int {
        var start = offset
        while start > 0, !text[start - 1].isLineBreak { start -= 1 }
        return start
    }

    private func indentation(before offset: Int) -> [UInt8] {
        Array(text[lineStart(of: offset)..<offset].prefix { $0 == 0x20 || $0 == 0x09 })
    }
}
