import LprojTables
/// Old-style `.strings` text opened for editing in place: an edit changes
/// the bytes of its entry and nothing else — comments, order, spacing,
/// escapes elsewhere, line endings and the encoding (UTF-16 with its byte
/// order mark stays so) are kept. A new key goes at the end, with its
/// comment — where it sorts, in a file whose keys are sorted.
public struct StringsTextDocument: Sendable {
    /// The file's encoding, kept on write.
    public let encoding: TextEncoding
    private let hasByteOrderMark: Bool
    private let path: String
    /// The text as UTF-8, edited in place.
    private var text: [UInt8]
    private var layout: StringsTextLayout
    /// The text changed since `layout` was made (made again before the next edit, not after the last).
    private var layoutIsStale = false

    /// Opens `bytes` (a `.strings` file in any text encoding). Refuses text
    /// with errors, and text whose bytes would not survive decoding and
    /// encoding again (invalid sequences): an edit would change them.
    public init(bytes: [UInt8], path: String) throws(TableEditError) {
        self.path = path
        let decoded = bytes.withUnsafeBufferPointer { DecodedText(bytes: $0) }
        encoding = decoded.encoding
        let mark = encoding.byteOrderMark
        hasByteOrderMark = !mark.isEmpty && bytes.starts(with: mark)
        text = bytes.withUnsafeBufferPointer { input in decoded.withUTF8(of: input) { Array($0) } }
        if let problem = decoded.problems.first(where: { $0.severity == .error }) ?? decoded.problems.first {
            throw TableEditError(path: path, "cannot be edited in place: \(problem.message) (lprojctl lint shows every problem)")
        }
        guard encoding.encode(text, byteOrderMark: hasByteOrderMark) == bytes else {
            throw TableEditError(path: path, "cannot be edited in place: its \(encoding.rawValue) bytes do not read back the same (invalid sequences; lprojctl lint shows them)")
        }
        layout = StringsTextLayout()
        try relayout()
    }

    /// A new, empty `.strings` file (UTF-8).
    public init(newFileAt path: String) {
        self.path = path
        encoding = .utf8
        hasByteOrderMark = false
        text = []
        layout = StringsTextLayout()
    }

    /// The file's bytes, in its encoding.
    public var bytes: [UInt8] {
        if text.isEmpty { return Array("/* No entries. */\n".utf8) }
        return encoding.encode(text, byteOrderMark: hasByteOrderMark)
    }

    /// Sets `key` to `value`: the value's bytes are replaced where the
    /// entry is (the last one, which is the one read, when a key is written
    /// twice), or a new entry is written at the end. `comment`, when given,
    /// replaces the entry's comment or is written above it.
    public mutating func set(_ key: String, to value: String, comment: String? = nil) throws(TableEditError) {
        if let comment, comment.contains("*/") { throw TableEditError(path: path, "a comment cannot contain \"*/\"") }
        if layoutIsStale { try relayout() }
        layoutIsStale = true
        guard let index = layout.entries.lastIndex(where: { $0.key == key }) else {
            return append(key: key, value: value, comment: comment)
        }
        let entry = layout.entries[index]
        let commentRange = layout.comment(of: index, in: text)
        let quotedValue = Array(StringsWriter.quoted(value).utf8)
        if let valueRange = entry.valueRange {
            text.replaceSubrange(valueRange, with: quotedValue)
        } else {
            // `"key";` stands for `"key" = "key";`.
            text.replaceSubrange(entry.keyRange.upperBound..<(entry.end - 1), with: Array(" = ".utf8) + quotedValue)
        }
        if let comment {
            let written = Array("/* \(comment) */".utf8)
            if let commentRange {
                text.replaceSubrange(commentRange, with: written)
            } else {
                text.insert(contentsOf: written + lineEnding + indentation(before: entry.keyRange.lowerBound), at: entry.keyRange.lowerBound)
            }
        }
    }

    /// Removes every entry of `key` with its comment; false when there is none.
    @discardableResult
    public mutating func remove(_ key: String) throws(TableEditError) -> Bool {
        if layoutIsStale { try relayout() }
        var removed = false
        while let index = layout.entries.lastIndex(where: { $0.key == key }) {
            let entry = layout.entries[index]
            var start = layout.comment(of: index, in: text)?.lowerBound ?? entry.keyRange.lowerBound
            var end = entry.end
            // Whole lines go when the entry had its lines to itself.
            let lineStart = self.lineStart(of: start)
            let ownsLine = text[lineStart..<start].allSatisfy { $0 == 0x20 || $0 == 0x09 }
            var after = end
            while after < text.count, text[after] == 0x20 || text[after] == 0x09 { after += 1 }
            if ownsLine, after == text.count || text[after].isLineBreak {
                start = lineStart
                end = after < text.count ? lineEndEnd(at: after) : after
                // ... and one of the blank lines around them, when there is one on each side.
                if endsWithBlankLine(before: start), end < text.count, text[end].isLineBreak { end = lineEndEnd(at: end) }
            }
            text.removeSubrange(start..<end)
            removed = true
            try relayout()
        }
        return removed
    }

    /// Renames every entry of `key` to `newKey`, in place.
    public mutating func rename(_ key: String, to newKey: String) throws(TableEditError) {
        let quotedKey = Array(StringsWriter.quoted(newKey).utf8)
        if layoutIsStale { try relayout() }
        while let index = layout.entries.lastIndex(where: { $0.key == key }) {
            let entry = layout.entries[index]
            if entry.valueRange == nil {
                // `"old";` meant `"old" = "old";`: the text stays the old key.
                text.replaceSubrange(entry.keyRange.lowerBound..<(entry.end - 1),
                                     with: quotedKey + Array(" = ".utf8) + Array(StringsWriter.quoted(key).utf8))
            } else {
                text.replaceSubrange(entry.keyRange, with: quotedKey)
            }
            try relayout()
        }
    }

    // MARK: - Helpers

    private mutating func relayout() throws(TableEditError) {
        let (layout, problems) = text.withUnsafeBufferPointer { StringsTextParser.layout(of: $0) }
        if let error = problems.first(where: { $0.severity == .error }) {
            let line = text[..<min(error.offset, text.count)].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            throw TableEditError(path: path, "cannot be edited in place: line \(line): \(error.message) (lprojctl lint shows every problem)")
        }
        self.layout = layout
        layoutIsStale = false
    }

    /// A new entry at the end (before a closing `}`), in the spacing of the
    /// entries before it — or, in a file whose keys are sorted, where its key
    /// sorts, on lines of its own before the first entry (and that entry's
    /// comment) whose key sorts after it.
    private mutating func append(key: String, value: String, comment: String?) {
        if let index = sortedPosition(of: key) {
            let entry = layout.entries[index]
            let start = lineStart(of: layout.comment(of: index, in: text)?.lowerBound ?? entry.keyRange.lowerBound)
            // Only where the entry starts its line (an entry sharing a line with another is left as it is: the end then).
            if text[start..<(layout.comment(of: index, in: text)?.lowerBound ?? entry.keyRange.lowerBound)].allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                let indent = indentation(before: entry.keyRange.lowerBound)
                var block: [UInt8] = []
                if let comment { block += indent + Array("/* \(comment) */".utf8) + lineEnding }
                block += indent + Array(StringsWriter.quoted(key).utf8) + separator + Array(StringsWriter.quoted(value).utf8) + [0x3B] + lineEnding
                if separatesWithBlankLines { block += lineEnding }
                text.insert(contentsOf: block, at: start)
                return
            }
        }
        var insertion = text.count
        if let brace = layout.closingBrace {
            // Before the closing brace: on a line of its own when it has one, else right before it.
            let start = lineStart(of: brace)
            insertion = text[start..<brace].allSatisfy({ $0 == 0x20 || $0 == 0x09 }) ? start : brace
        }
        var block: [UInt8] = []
        // A file whose last line has no line break keeps it so: the new entry becomes that last line.
        let endsOpen = insertion == text.count && insertion > 0 && !text[insertion - 1].isLineBreak
        if insertion > 0, !text[insertion - 1].isLineBreak { block += lineEnding }
        if separatesWithBlankLines, !endsWithBlankLine(before: insertion) { block += lineEnding }
        let indent = layout.entries.last.map { indentation(before: $0.keyRange.lowerBound) } ?? []
        if let comment { block += indent + Array("/* \(comment) */".utf8) + lineEnding }
        block += indent + Array(StringsWriter.quoted(key).utf8) + separator + Array(StringsWriter.quoted(value).utf8) + [0x3B]
        if !endsOpen { block += lineEnding }
        text.insert(contentsOf: block, at: insertion)
    }

    /// Where a new `key` goes in a file whose keys (two or more) are sorted by their Unicode scalars: the index of the
    /// first entry whose key sorts after it; nil when the keys are not sorted or it sorts last.
    private func sortedPosition(of key: String) -> Int? {
        let keys = layout.entries.map(\.key)
        guard keys.count >= 2, zip(keys, keys.dropFirst()).allSatisfy({ !$1.unicodeScalars.lexicographicallyPrecedes($0.unicodeScalars) })
        else { return nil }
        return keys.firstIndex { key.unicodeScalars.lexicographicallyPrecedes($0.unicodeScalars) }
    }

    /// `\r\n` when the file uses it, else `\n`.
    private var lineEnding: [UInt8] {
        if let newline = text.firstIndex(of: 0x0A), newline > 0, text[newline - 1] == 0x0D { return [0x0D, 0x0A] }
        if !text.contains(0x0A), text.contains(0x0D) { return [0x0D] }
        return [0x0A]
    }

    /// What the last entry writes between key and value (` = ` by default).
    private var separator: [UInt8] {
        guard let last = layout.entries.last(where: { $0.valueRange != nil }), let value = last.valueRange else { return Array(" = ".utf8) }
        let between = text[last.keyRange.upperBound..<value.lowerBound]
        guard between.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x3D }) else { return Array(" = ".utf8) }
        return Array(between)
    }

    /// Whether the last two entries are parted by a blank line (genstrings' layout).
    private var separatesWithBlankLines: Bool {
        let entries = layout.entries
        guard entries.count >= 2 else { return false }
        let gapStart = entries[entries.count - 2].end
        let gapEnd = layout.comment(of: entries.count - 1, in: text)?.lowerBound ?? entries[entries.count - 1].keyRange.lowerBound
        return text[gapStart..<gapEnd].filter { $0 == 0x0A }.count >= 2
            || (!text.contains(0x0A) && text[gapStart..<gapEnd].filter { $0 == 0x0D }.count >= 2)
    }

    private func lineStart(of offset: Int) -> Int {
        var start = offset
        while start > 0, !text[start - 1].isLineBreak { start -= 1 }
        return start
    }

    /// Just past the line ending that starts at `offset`.
    private func lineEndEnd(at offset: Int) -> Int {
        if text[offset] == 0x0D, offset + 1 < text.count, text[offset + 1] == 0x0A { return offset + 2 }
        return offset + 1
    }

    /// Whether the text before `offset` ends with an empty line (two line endings).
    private func endsWithBlankLine(before offset: Int) -> Bool {
        var breaks = 0
        var position = offset
        while position > 0, text[position - 1].isWhiteSpace {
            position -= 1
            if text[position] == 0x0A || (text[position] == 0x0D && (position + 1 >= text.count || text[position + 1] != 0x0A)) { breaks += 1 }
        }
        return breaks >= 2 || (position == 0 && breaks >= 1)
    }

    /// The spaces and tabs before `offset` on its line.
    private func indentation(before offset: Int) -> [UInt8] {
        let start = lineStart(of: offset)
        return Array(text[start..<offset].prefix { $0 == 0x20 || $0 == 0x09 })
    }
}
