import CByteScan
#if canImport(Glibc)
import Glibc
@_spi(LprojInternals) import LprojTables
#endif

/// Parses old-style `.strings` text (already decoded to UTF-8) the way
/// CoreFoundation does — the same values on every file CoreFoundation accepts —
/// but reports every problem instead of stopping at the first, and reports
/// the places where CoreFoundation silently drops the rest of a table.
///
/// The grammar is in STRINGS-GRAMMAR.md. The parser works on raw bytes: every
/// syntax character is ASCII, so multi-byte UTF-8 sequences only ever appear
/// inside strings, comments, or as errors.
struct StringsTextParser: ~Copyable {
    /// A problem at a byte offset, placed on a line later.
    typealias Problem = TextProblem

    private(set) var problems: [Problem] = []

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// Keys and values are written straight into the table being made;
    /// text past `committed` belongs to an entry not (yet) added.
    private var builder: TableBuilder
    private var committed = 0
    /// When set, records every entry's key and offset instead of building a table.
    private var keyOffsets: [(key: String, offset: Int)]?
    /// When set, records where every entry and comment lies (for editing
    /// a file in place) instead of building a table.
    private var layout: StringsTextLayout?

    /// Whether strings and comments must be checked for invalid UTF-8, and
    /// where the text starts in its file (for byte offsets in messages).
    private let validatesUTF8: Bool
    private let byteBase: Int
    private var invalidUTF8Reported = 0
    /// Whether strings are copied 32 bytes a step where the processor can
    /// (`ByteScan`; false for tests of the 16-byte steps).
    private let wideScan: Bool

    init(bytes: UnsafeBufferPointer<UInt8>, validatesUTF8: Bool = true, byteBase: Int = 0, wideScan: Bool = true) {
        self.bytes = bytes
        self.validatesUTF8 = validatesUTF8
        self.byteBase = byteBase
        self.wideScan = wideScan
        builder = TableBuilder(expectedCount: bytes.count / 64, expectedTextBytes: bytes.count)
    }

    /// The table parsed; `duplicates` gets the positions (in the order of
    /// `keyOffsets(in:)`) of entries whose key was already defined.
    /// A table whose keys are a set of `sharing`'s, in order, is made over it.
    consuming func table(duplicates: inout [Int], sharing: [SharedKeys] = []) -> Table {
        builder.finish(duplicates: &duplicates, sharing: sharing)
    }

    /// Parses the whole text.
    mutating func parse() {
        guard skipSpace() else { return }
        let first = bytes[index]
        if first == .openBrace {
            let open = index
            index += 1
            parseEntries(closingBraceAt: open)
            if skipSpace() {
                report(.error, at: index, "unexpected \(describe(at: index)) after the closing '}' of the table",
                       hint: "CoreFoundation rejects text after the table")
            }
        } else if first == .openParen || first == .openAngle {
            report(.error, at: index, "a .strings file must hold \"key\" = \"value\"; pairs, not \(first == .openParen ? "an array" : "data")")
        } else {
            parseEntries(closingBraceAt: nil)
        }
    }

    /// Every entry's key and offset, in file order (a second pass, run
    /// only to explain duplicates).
    static func keyOffsets(in bytes: UnsafeBufferPointer<UInt8>) -> [(key: String, offset: Int)] {
        var parser = StringsTextParser(bytes: bytes)
        parser.keyOffsets = []
        parser.parse()
        return parser.keyOffsets ?? []
    }

    /// Where every entry and comment of `bytes` lies, in file order, with
    /// the problems found (an editor refuses text with errors).
    static func layout(of bytes: UnsafeBufferPointer<UInt8>) -> (layout: StringsTextLayout, problems: [Problem]) {
        var parser = StringsTextParser(bytes: bytes)
        parser.layout = StringsTextLayout()
        parser.parse()
        parser.layout!.closingBrace = parser.closingBrace
        return (parser.layout!, parser.problems)
    }

    /// The offset of the `}` that closes a table written in braces.
    private var closingBrace: Int?

    // MARK: - Entries

    private mutating func parseEntries(closingBraceAt open: Int?) {
        while true {
            guard skipSpaceQuickly() else {
                if let open { report(.error, at: open, "the '{' that opens the table is never closed", hint: "add '}' at the end") }
                return
            }
            if open != nil, bytes[index] == .closeBrace {
                closingBrace = index
                index += 1
                return
            }
            if builder.text.count > committed { builder.text.truncate(to: committed) }
            let keyStart = index
            let keyText = builder.text.count
            guard parseStringQuickly(role: "key") else { continue }
            let key = keyText..<builder.text.count
            let keyEnd = index
            guard skipSpaceQuickly() else {
                report(.error, at: keyEnd, "expected '=' or ';' after key \"\(pendingText(key))\", found the end of the file")
                return
            }
            var separator = bytes[index]
            if separator != .semicolon, separator != .equals, let confusable = confusable(at: index),
               confusable.ascii == .semicolon || confusable.ascii == .equals {
                report(.error, at: index, "expected '=' or ';' after key \"\(pendingText(key))\", found \(describe(at: index))",
                       hint: "use the ASCII '\(Character(Unicode.Scalar(confusable.ascii)))'")
                separator = confusable.ascii
                index += confusable.length - 1
            }
            if separator == .semicolon {
                index += 1
                if layout != nil { layout!.entries.append(.init(key: pendingText(key), keyRange: keyStart..<keyEnd, valueRange: nil, end: index)) }
                insert(key: key, value: key, at: keyStart)
                continue
            }
            guard separator == .equals else {
                report(.error, at: index, "expected '=' or ';' after key \"\(pendingText(key))\", found \(describe(at: index))",
                       hint: "write entries as \"key\" = \"value\";")
                skipLine()
                continue
            }
            index += 1
            guard skipSpaceQuickly() else {
                report(.error, at: index, "expected a value after '=', found the end of the file")
                return
            }
            let valueStart = index
            let valueText = builder.text.count
            guard parseStringQuickly(role: "value") else { continue }
            let valueEnd = index
            let keyString = layout != nil ? pendingText(key) : ""
            insert(key: key, value: valueText..<builder.text.count, at: keyStart)
            // The common case inline: the ';' right after the value.
            if index < bytes.count, bytes[index] == .semicolon {
                index += 1
            } else {
                expectSemicolon(valueStart: valueStart, valueEnd: valueEnd)
            }
            if layout != nil { layout!.entries.append(.init(key: keyString, keyRange: keyStart..<keyEnd, valueRange: valueStart..<valueEnd, end: index)) }
        }
    }

    /// Consumes the `;` after a value, or reports it missing and recovers.
    private mutating func expectSemicolon(valueStart: Int, valueEnd: Int) {
        let found = skipSpaceQuickly()
        if found, bytes[index] == .semicolon {
            index += 1
            return
        }
        if found, let confusable = confusable(at: index), confusable.ascii == .semicolon {
            report(.error, at: index, "expected ';' after value, found \(describe(at: index))", hint: "use the ASCII ';'")
            index += confusable.length
            return
        }
        guard found else {
            report(.error, at: valueEnd, "expected ';' after value, found the end of the file", hint: "add ';' after the value")
            return
        }
        let quoted = bytes[valueStart] == .doubleQuote || bytes[valueStart] == .singleQuote
        let sameLine = !containsLineBreak(valueEnd..<index)
        let hint: String
        if quoted, containsLineBreak(valueStart..<valueEnd) {
            // Named where the quote opened (where the fix goes), and where the string ran to.
            report(.error, at: valueStart, "this string runs from line \(lineNumber(at: valueStart)) to line \(lineNumber(at: valueEnd)), "
                   + "where \(describe(at: index)) follows it instead of ';'", hint: "its closing quote is probably missing on line \(lineNumber(at: valueStart))")
            if sameLine { skipRestOfStatement() }
            return
        } else if quoted, sameLine {
            hint = "a quote inside a value ends it early: write it as \\\""
        } else {
            hint = "add ';' after the value"
        }
        report(.error, at: valueEnd, "expected ';' after value, found \(describe(at: index))", hint: hint)
        // Recovery: an inner quote spoils the rest of its line; a missing ';'
        // before the next line's key spoils nothing.
        if sameLine { skipRestOfStatement() }
    }

    /// Adds the entry whose key and value were just written to the builder's text.
    private mutating func insert(key: Range<Int>, value: Range<Int>, at offset: Int) {
        if keyOffsets != nil {
            keyOffsets!.append((pendingText(key), offset))
            return
        }
        if layout != nil { return }
        builder.add(key: key, value: value)
        committed = builder.text.count
    }

    /// Text written to the builder, as a string (for messages).
    private func pendingText(_ range: Range<Int>) -> String {
        builder.text.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    // MARK: - Strings

    /// `parseString`, with the common case inline: a string in double
    /// quotes, copied whole in one scan.
    @inline(__always)
    private mutating func parseStringQuickly(role: String) -> Bool {
        guard bytes[index] == .doubleQuote else { return parseString(role: role) }
        index += 1
        if wideScan, let (quote, written) = ByteScan.copyWholeQuotedText(.doubleQuote, from: bytes, at: index,
                                                                         to: builder.text.room(for: bytes.count - index),
                                                                         validating: validatesUTF8) {
            builder.text.commit(written)
            index = quote + 1
            return true
        }
        return parseQuoted(quote: .doubleQuote, openedAt: index - 1)
    }

    /// Writes the quoted or unquoted string at `index` to the builder's
    /// text; false after reporting why there is none (and moving on to
    /// where parsing can resume).
    private mutating func parseString(role: String) -> Bool {
        let first = bytes[index]
        if first == .doubleQuote || first == .singleQuote {
            index += 1
            return parseQuoted(quote: first, openedAt: index - 1)
        }
        if first.isUnquotedStringByte {
            let start = index
            while index < bytes.count, bytes[index].isUnquotedStringByte { index += 1 }
            appendText(start..<index)
            return true
        }
        if first == .at, index + 1 < bytes.count, bytes[index + 1] == .doubleQuote {
            report(.error, at: index, "Objective-C string literal @\"…\" in a .strings file", hint: "remove the '@'")
            index += 2
            return parseQuoted(quote: .doubleQuote, openedAt: index - 1)
        }
        if role == "value", first == .openBrace || first == .openParen || first == .openAngle {
            report(.error, at: index, "a value must be a string, found \(first == .openBrace ? "a dictionary" : first == .openParen ? "an array" : "data")",
                   hint: "quote the text: \"…\"")
            skipStructure()
            if skipSpace(), bytes[index] == .semicolon { index += 1 }
            return false
        }
        if let confusable = confusable(at: index), confusable.ascii == .doubleQuote || confusable.ascii == .singleQuote {
            report(.error, at: index, "a \(role) must start with '\"', found \(describe(at: index))",
                   hint: "use ASCII quotes \"…\"; typographic quotes are text, not syntax")
            return parseTypographicQuoted(openedAt: index)
        }
        let hint: String
        if first >= 0x80 {
            hint = "quote the \(role): \"…\"; CoreFoundation silently drops the rest of the table from here"
        } else if role == "key" {
            hint = "CoreFoundation silently drops the rest of the table from here"
        } else {
            hint = "quote the value: \"…\""
        }
        report(.error, at: index, "a \(role) cannot start with \(describe(at: index))", hint: hint)
        skipLine()
        return false
    }

    /// The body of a quoted string after its opening quote, copied to the
    /// text as it is read (escapes written as what they stand for).
    private mutating func parseQuoted(quote: UInt8, openedAt open: Int) -> Bool {
        let start = index
        let textStart = builder.text.count
        let count = bytes.count
        // Escapes write valid UTF-8 of their own: only the text copied needs checking, and the copy checks it as it goes.
        var doubtful = false
        while true {
            // The text of a string is never longer than its source (each escape is longer than what it writes).
            let destination = builder.text.room(for: count - index)
            let (found, copied, runDoubtful) = ByteScan.copyQuotedText(quote, from: bytes, at: index, to: destination,
                                                                       validating: validatesUTF8, wide: wideScan)
            doubtful = doubtful || runDoubtful
            builder.text.commit(copied)
            guard let stop = found else { break }
            index = stop + 1
            if bytes[stop] == quote {
                if doubtful, builder.text.withUnsafeBufferPointer({ UTF8Validation.firstInvalidOffset(in: $0, from: textStart) }) != nil {
                    reportInvalidUTF8(in: start..<stop)
                    let repaired = Array(pendingText(textStart..<builder.text.count).utf8)
                    builder.text.replace(from: textStart, with: repaired)
                }
                return true
            }
            guard index < count else { break }
            // An escaped byte that is not ASCII is written alone: the copy after it does not check it.
            if validatesUTF8, bytes[index] >= 0x80 { doubtful = true }
            writeEscape(startingAt: stop)
        }
        reportUnterminated(openedAt: open)
        return false
    }

    /// Writes what the escape whose backslash is at `escapeStart` stands
    /// for, and moves past it.
    private mutating func writeEscape(startingAt escapeStart: Int) {
        let count = bytes.count
        let escaped = bytes[index]
        index += 1
        switch escaped {
        case UInt8(ascii: "0")...UInt8(ascii: "7"):
            var number = escaped &- UInt8(ascii: "0")
            for _ in 0..<2 {
                guard index < count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "7") else { break }
                number = number &<< 3 &+ (bytes[index] &- UInt8(ascii: "0"))
                index += 1
            }
            builder.text.append(scalar: NeXTSTEPLatin.scalar(for: number))
        case UInt8(ascii: "U"):
            let unit = readHexUnit()
            if unit >= 0xD800 && unit < 0xDC00 {
                let save = index
                if index + 1 < count, bytes[index] == .backslash, bytes[index + 1] == UInt8(ascii: "U") {
                    index += 2
                    let low = readHexUnit()
                    if low >= 0xDC00 && low < 0xE000 {
                        builder.text.append(scalar: 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                        return
                    }
                    index = save
                }
                reportLoneSurrogate(unit, at: escapeStart)
            } else if unit >= 0xDC00 && unit < 0xE000 {
                reportLoneSurrogate(unit, at: escapeStart)
            } else {
                builder.text.append(scalar: unit)
            }
        case UInt8(ascii: "u"), UInt8(ascii: "x"):
            // Kept as the letter, as CoreFoundation does; warn when it looks
            // like a Unicode or hex escape from another language.
            builder.text.append(escaped)
            let isUnicode = escaped == UInt8(ascii: "u")
            let digits = countHexDigits(from: index, limit: isUnicode ? 4 : 2)
            if digits >= 2 {
                let sequence = String(decoding: UnsafeBufferPointer(rebasing: bytes[escapeStart..<index + digits]), as: UTF8.self)
                let hex = String(sequence.dropFirst(2))
                report(.warning, at: escapeStart, "'\(sequence)' is not an escape in .strings: the value gets '\(sequence.dropFirst())'",
                       hint: "write \\U\(String(repeating: "0", count: 4 - hex.count))\(hex) for that character")
            }
        case 0x80...:
            // A byte of a multi-byte character stands for itself: the backslash
            // is dropped (the rest of the character is copied with the text after it).
            builder.text.append(escaped)
        default:
            // One byte: a control for the letters a b f n r t v, else itself.
            builder.text.append(lproj_escaped_byte(escaped))
        }
    }

    /// Up to four hex digits after `\U`, as CoreFoundation reads them.
    private mutating func readHexUnit() -> UInt32 {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = bytes[index].hexValue else { break }
            unit = unit << 4 | UInt32(digit)
            index += 1
        }
        return unit
    }

    private func countHexDigits(from start: Int, limit: Int) -> Int {
        var count = 0
        while count < limit, start + count < bytes.count, bytes[start + count].hexValue != nil { count += 1 }
        return count
    }

    /// Recovery for “typographic” quotes: the text up to the closing one on the same line.
    private mutating func parseTypographicQuoted(openedAt open: Int) -> Bool {
        index += confusable(at: open)!.length
        let start = index
        while index < bytes.count, !bytes[index].isLineBreak {
            if bytes[index] == .doubleQuote {
                index += 1
                appendText(start..<index - 1)
                return true
            }
            if let confusable = confusable(at: index), confusable.ascii == .doubleQuote || confusable.ascii == .singleQuote {
                let end = index
                index += confusable.length
                appendText(start..<end)
                return true
            }
            index += 1
        }
        return false
    }

    private mutating func reportUnterminated(openedAt open: Int) {
        let atEnd = bytes.count > 0 && bytes[bytes.count - 1] == .backslash
        report(.error, at: open, "unterminated string: the quote opened here on line \(lineNumber(at: open)) is never closed; "
               + "the string runs to the end of the file (line \(lineNumber(at: bytes.count)))",
               hint: atEnd ? "the file ends with a backslash" : "add the closing quote; CoreFoundation rejects the whole file")
        index = bytes.count
    }

    private mutating func reportLoneSurrogate(_ unit: UInt32, at offset: Int) {
        report(.warning, at: offset, "\\U\(String(unit, radix: 16, uppercase: true)) is half of a surrogate pair; it becomes U+FFFD",
               hint: "write characters beyond U+FFFF as two escapes, e.g. \\UD83D\\UDE00, or as the character itself")
        builder.text.append(scalar: 0xFFFD)
    }

    /// Writes raw text `range` to the builder; invalid UTF-8 is reported
    /// and repaired (each bad sequence becomes U+FFFD).
    private mutating func appendText(_ range: Range<Int>) {
        let text = UnsafeBufferPointer(rebasing: bytes[range])
        if validatesUTF8, UTF8Validation.firstInvalidOffset(in: text, from: 0) != nil {
            reportInvalidUTF8(in: range)
            builder.text.append(contentsOf: String(decoding: text, as: UTF8.self).utf8)
        } else {
            builder.text.append(text)
        }
    }

    private mutating func reportInvalidUTF8(in range: Range<Int>) {
        let limit = DecodedText.maximumReportedProblems - invalidUTF8Reported
        guard limit > 0, keyOffsets == nil else { return }
        let found = UTF8Validation.problems(in: bytes, range: range, byteBase: byteBase, limit: limit)
        invalidUTF8Reported += found.count
        problems += found
    }

    // MARK: - Space, comments, recovery

    /// `skipSpace`, with the common cases between tokens inline: none, or
    /// one space or line feed, before a token.
    @inline(__always)
    private mutating func skipSpaceQuickly() -> Bool {
        let count = bytes.count
        if index < count, bytes[index].startsToken { return true }
        if index + 1 < count, bytes[index] == .space || bytes[index] == 0x0A, bytes[index + 1].startsToken {
            index += 1
            return true
        }
        return skipSpace()
    }

    /// Whether this parser reads the text an unclosed comment hides: it
    /// names no hidden entries of its own, and passes over a `/*` that is
    /// never closed (each part of a file is read at most three times).
    private var readsHiddenText = false

    /// The entries an unclosed comment at `open` hides, as words for its
    /// warning: those the text after it holds, read from just after the
    /// `/*` and from the next line (a comment left open at its line's end).
    private func droppedAfterComment(at open: Int) -> String {
        guard !readsHiddenText, open + 2 < bytes.count else { return "" }
        var starts = [open + 2]
        if let lineEnd = bytes[(open + 2)...].firstIndex(where: \.isLineBreak), lineEnd + 1 < bytes.count { starts.append(lineEnd + 1) }
        var keys: [(offset: Int, key: String)] = []
        for start in starts {
            var rest = StringsTextParser(bytes: UnsafeBufferPointer(rebasing: bytes[start...]), validatesUTF8: false)
            rest.readsHiddenText = true
            rest.layout = StringsTextLayout()
            rest.parse()
            keys += rest.layout!.entries.map { (start + $0.keyRange.lowerBound, $0.key) }
        }
        var seen = Set<Int>()
        let hidden = keys.sorted { $0.offset < $1.offset }.filter { seen.insert($0.offset).inserted }.map(\.key)
        guard !hidden.isEmpty else { return "" }
        let shown = hidden.prefix(5).map { "\"\($0)\"" }.joined(separator: ", ") + (hidden.count > 5 ? ", …" : "")
        return "; \(hidden.count) entr\(hidden.count == 1 ? "y" : "ies") after it \(hidden.count == 1 ? "is" : "are") not served: \(shown)"
    }

    /// Skips whitespace and comments; false at the end of the text.
    private mutating func skipSpace() -> Bool {
        let count = bytes.count
        // Plain white space, the common case, in a local loop.
        var position = index
        while position < count, bytes[position] == .space || (bytes[position] >= 0x09 && bytes[position] <= 0x0D) {
            position += 1
        }
        index = position
        if position < count, bytes[position] != .slash, bytes[position] < 0x80 { return true }
        while index < count {
            let byte = bytes[index]
            if byte == .space || (byte >= 0x09 && byte <= 0x0D) {
                index += 1
                continue
            }
            if byte == .slash, index + 1 < count {
                let next = bytes[index + 1]
                if next == .slash {
                    let open = index
                    index += 2
                    while index < count, !bytes[index].isLineBreak, !isUnicodeLineSeparator(at: index) { index += 1 }
                    if validatesUTF8 { validateComment(open..<index) }
                    if layout != nil { layout!.comments.append(open..<index) }
                    continue
                }
                if next == .asterisk {
                    let open = index
                    guard let close = commentEnd(from: index + 2) else {
                        if readsHiddenText {
                            index += 2
                            continue
                        }
                        // What Foundation serves, lprojd serves: the entries before it, with a warning naming what is lost.
                        report(.warning, at: open, "unclosed comment: this '/*' is never closed by '*/', so the rest of the file is "
                               + "ignored, as CoreFoundation ignores it" + droppedAfterComment(at: open),
                               hint: "close the comment with '*/'")
                        index = count
                        return false
                    }
                    index = close
                    if validatesUTF8 { validateComment(open..<close) }
                    if layout != nil { layout!.comments.append(open..<close) }
                    continue
                }
            }
            if byte >= 0x80 {
                if isUnicodeLineSeparator(at: index) {
                    index += 3
                    continue
                }
                if let length = spaceLookalikeLength(at: index) {
                    report(.error, at: index, "\(describe(at: index)) between tokens", hint: "replace it with a plain space; CoreFoundation rejects it")
                    index += length
                    continue
                }
            }
            return true
        }
        return false
    }

    /// The offset just past the `*/` that closes a comment whose body starts at `start`.
    private mutating func commentEnd(from start: Int) -> Int? {
        // No '*/' after one offset means none after any later one: the text is searched once.
        guard let base = bytes.baseAddress, start < noCloseFrom else { return nil }
        var position = start
        while position < bytes.count, let star = memchr(base + position, Int32(UInt8.asterisk), bytes.count - position) {
            let offset = base.distance(to: star.assumingMemoryBound(to: UInt8.self))
            if offset + 1 < bytes.count, bytes[offset + 1] == .slash { return offset + 2 }
            position = offset + 1
        }
        noCloseFrom = start
        return nil
    }

    /// An offset from which the text holds no '*/' (`.max`: not known).
    private var noCloseFrom = Int.max

    private mutating func validateComment(_ range: Range<Int>) {
        if UTF8Validation.firstInvalidOffset(in: UnsafeBufferPointer(rebasing: bytes[..<range.upperBound]), from: range.lowerBound) != nil {
            reportInvalidUTF8(in: range)
        }
    }

    @inline(__always)
    private func isUnicodeLineSeparator(at offset: Int) -> Bool {
        bytes[offset] == 0xE2 && offset + 2 < bytes.count && bytes[offset + 1] == 0x80
            && (bytes[offset + 2] == 0xA8 || bytes[offset + 2] == 0xA9)
    }

    /// Skips to the start of the next line.
    private mutating func skipLine() {
        index += 1
        while index < bytes.count, !bytes[index].isLineBreak { index += 1 }
    }

    /// Skips past the last ';' before the end of the line (or to the line end).
    private mutating func skipRestOfStatement() {
        var lineEnd = index
        while lineEnd < bytes.count, !bytes[lineEnd].isLineBreak { lineEnd += 1 }
        var resume = lineEnd
        var probe = lineEnd
        while probe > index {
            probe -= 1
            if bytes[probe] == .semicolon { resume = probe + 1; break }
        }
        index = resume
    }

    /// Skips a `{…}`, `(…)` or `<…>` value, strings and comments included.
    private mutating func skipStructure() {
        let open = index
        var depth = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case .openBrace, .openParen, .openAngle:
                depth += 1
                index += 1
            case .closeBrace, .closeParen, .closeAngle:
                depth -= 1
                index += 1
                if depth == 0 { return }
            case .doubleQuote, .singleQuote:
                index += 1
                while index < bytes.count, bytes[index] != byte {
                    index += bytes[index] == .backslash ? 2 : 1
                }
                index += 1
            default:
                index += 1
            }
        }
        report(.error, at: open, "this '\(Character(Unicode.Scalar(bytes[open])))' is never closed")
    }

    /// The 1-based line of `offset` (for a message that names another line than its own; errors only).
    private func lineNumber(at offset: Int) -> Int {
        var line = 1
        var position = 0
        let end = min(offset, bytes.count)
        while position < end {
            if bytes[position] == 0x0A {
                line += 1
            } else if bytes[position] == 0x0D {
                if position + 1 < end, bytes[position + 1] == 0x0A { position += 1 }
                line += 1
            }
            position += 1
        }
        return line
    }

    private func containsLineBreak(_ range: Range<Int>) -> Bool {
        for offset in range where bytes[offset].isLineBreak { return true }
        return false
    }

    // MARK: - Describing characters

    /// The character at `offset` for a message: `'x'`, or its code point and name.
    private func describe(at offset: Int) -> String {
        guard offset < bytes.count else { return "the end of the file" }
        guard let scalar = scalar(at: offset) else {
            let hex = String(bytes[offset], radix: 16, uppercase: true)
            return "an invalid UTF-8 byte 0x\(hex) at byte offset \(offset + byteBase)"
        }
        return CharacterDescription.describe(scalar.value)
    }

    /// The character at `offset`; nil where the bytes are not valid UTF-8.
    private func scalar(at offset: Int) -> (value: Unicode.Scalar, length: Int)? {
        let end = min(bytes.count, offset + 4)
        var iterator = UnsafeBufferPointer(rebasing: bytes[offset..<end]).makeIterator()
        var decoder = UTF8()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) {
            return (scalar, String(scalar).utf8.count)
        }
        return nil
    }

    /// A non-ASCII character that looks like a syntax character.
    private func confusable(at offset: Int) -> (ascii: UInt8, length: Int)? {
        guard bytes[offset] >= 0x80, let (scalar, length) = scalar(at: offset) else { return nil }
        guard let ascii = CharacterDescription.lookalikes[scalar.value] else { return nil }
        return (ascii, length)
    }

    private func spaceLookalikeLength(at offset: Int) -> Int? {
        guard let (scalar, length) = scalar(at: offset) else { return nil }
        return CharacterDescription.spaceLookalikes.contains(scalar.value) ? length : nil
    }

    private mutating func report(_ severity: Diagnostic.Severity, at offset: Int, _ message: String, hint: String? = nil) {
        guard keyOffsets == nil else { return }
        problems.append(Problem(severity: severity, offset: offset, message: message, hint: hint))
    }
}

/// Names characters in messages, and knows the look-alikes translators type.
enum CharacterDescription {
    /// `'x'` for printable ASCII; `'；' (U+FF1B FULLWIDTH SEMICOLON)` otherwise.
    static func describe(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        if scalar.value >= 0x21 && scalar.value < 0x7F { return "'\(Character(scalar))'" }
        let name = scalar.properties.name ?? scalar.properties.nameAlias ?? ""
        let shown = scalar.properties.isWhitespace || scalar.value < 0x20 || scalar.properties.generalCategory == .format
            ? "" : "'\(Character(scalar))' "
        return "\(shown)(\(code)\(name.isEmpty ? "" : " " + name))"
    }

    /// Full-width and typographic characters and the ASCII syntax they imitate.
    static let lookalikes: [UInt32: UInt8] = [
        0xFF1B: .semicolon, 0x037E: .semicolon, 0x061B: .semicolon, 0xFE54: .semicolon,
        0xFF1D: .equals, 0xFE66: .equals,
        0x201C: .doubleQuote, 0x201D: .doubleQuote, 0x201E: .doubleQuote, 0x201F: .doubleQuote,
        0xFF02: .doubleQuote, 0x2033: .doubleQuote,
        0x2018: .singleQuote, 0x2019: .singleQuote, 0xFF07: .singleQuote,
    ]

    /// Spaces CoreFoundation does not treat as white space.
    static let spaceLookalikes: Set<UInt32> = [0x00A0, 0x3000, 0xFEFF, 0x200B, 0x2002, 0x2003, 0x2009, 0x202F]
}

extension UInt8 {
    static let space = UInt8(ascii: " ")
    static let doubleQuote = UInt8(ascii: "\"")
    static let singleQuote = UInt8(ascii: "'")
    static let backslash = UInt8(ascii: "\\")
    static let slash = UInt8(ascii: "/")
    static let asterisk = UInt8(ascii: "*")
    static let semicolon = UInt8(ascii: ";")
    static let equals = UInt8(ascii: "=")
    static let at = UInt8(ascii: "@")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let openParen = UInt8(ascii: "(")
    static let closeParen = UInt8(ascii: ")")
    static let openAngle = UInt8(ascii: "<")
    static let closeAngle = UInt8(ascii: ">")

    /// `[A-Za-z0-9_$/:.-]`, the characters of an unquoted string.
    @inline(__always)
    var isUnquotedStringByte: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: ":"), UInt8(ascii: "_"), UInt8(ascii: "$"),
             UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }

    @inline(__always)
    var isLineBreak: Bool { self == 0x0A || self == 0x0D }

    /// Whether `skipSpace` stops at this byte without looking further: not
    /// white space or a control character, not a comment's '/', ASCII.
    @inline(__always)
    var startsToken: Bool { self > 0x20 && self < 0x80 && self != .slash }

    var hexValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return self - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
