import LprojTables
/// Where the entries and comments of old-style `.strings` text lie, as byte
/// ranges of its UTF-8 text: what an edit needs to change one entry's bytes
/// and no others.
struct StringsTextLayout: Sendable {
    /// One `"key" = "value";` (or `"key";`) statement.
    struct Entry: Sendable {
        /// The key, unescaped.
        var key: String
        /// The key as written, quotes included.
        var keyRange: Range<Int>
        /// The value as written, quotes included; nil for `"key";`.
        var valueRange: Range<Int>?
        /// Just past the `;`.
        var end: Int
    }

    /// Every entry, in file order (a key written twice appears twice; the last wins).
    var entries: [Entry] = []
    /// Every comment (`/* … */` and `// …`), in file order.
    var comments: [Range<Int>] = []
    /// The `}` that closes a table written as `{ … }`.
    var closingBrace: Int?

    /// The comment that belongs to the entry at `index`: the last one
    /// before its key with nothing but white space between, after the
    /// previous entry.
    func comment(of index: Int, in text: [UInt8]) -> Range<Int>? {
        let entry = entries[index]
        let previousEnd = index > 0 ? entries[index - 1].end : 0
        guard let comment = comments.last(where: { $0.upperBound <= entry.keyRange.lowerBound }),
              comment.lowerBound >= previousEnd,
              text[comment.upperBound..<entry.keyRange.lowerBound].allSatisfy(\.isWhiteSpace)
        else { return nil }
        return comment
    }
}

extension UInt8 {
    /// Space, tab, and the line breaks.
    var isWhiteSpace: Bool { self == 0x20 || (self >= 0x09 && self <= 0x0D) }
}
