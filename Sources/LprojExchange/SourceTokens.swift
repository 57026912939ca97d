/// Swift and Objective-C source as the scanner reads it: identifiers,
/// string literals, numbers and punctuation, each with its line and
/// column; comments and spaces dropped.
struct SourceToken: Equatable {
    enum Kind: Equatable {
        case identifier(String)
        /// A string literal (Swift's, or Objective-C's `@"…"`).
        case string(StringLiteral)
        case number(String)
        case punctuation(Character)
    }

    var kind: Kind
    var line: Int
    var column: Int

    var identifier: String? { if case .identifier(let name) = kind { name } else { nil } }
    var literal: StringLiteral? { if case .string(let literal) = kind { literal } else { nil } }
    func isPunctuation(_ character: Character) -> Bool { kind == .punctuation(character) }
}

/// A string literal's text as the compiler reads it, its interpolations
/// kept as the expressions written (`\(count)` → `count`), so that a key
/// can be made from it as the type it is given makes it.
struct StringLiteral: Equatable {
    /// The text, each interpolation a private-use placeholder (U+F0000 + its index).
    var text: String
    /// Each interpolation's expression, as written.
    var interpolations: [String]

    /// The text with each interpolation as `%@`: what a plain `String` key would read.
    var plain: String { key { _ in "%@" } }

    /// The key a localizable type makes of the literal: each interpolation
    /// becomes the specifier `specifier` gives its expression, and a `%` of
    /// the text `%%` when there is any interpolation (as the key is then a format).
    func key(_ specifier: (String) -> String) -> String {
        guard !interpolations.isEmpty else { return text }
        var key = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let index = Int(scalar.value) - Int(Self.placeholderBase)
            if index >= 0, index < interpolations.count {
                key.append(contentsOf: specifier(interpolations[index]).unicodeScalars)
            } else if scalar == "%" {
                key.append(contentsOf: "%%".unicodeScalars)
            } else {
                key.append(scalar)
            }
        }
        return String(key)
    }

    static let placeholderBase: UInt32 = 0xF0000
}

/// Reads source text into `SourceToken`s.
struct SourceLexer {
    let scalars: [Unicode.Scalar]
    var position = 0
    var line = 1
    var column = 1

    init(text: String) {
        scalars = Array(text.unicodeScalars)
    }

    mutating func tokens() -> [SourceToken] {
        var tokens: [SourceToken] = []
        while position < scalars.count {
            let scalar = scalars[position]
            let (startLine, startColumn) = (line, column)
            if scalar == "/" && peek(1) == "/" {
                while position < scalars.count && scalars[position] != "\n" { advance() }
            } else if scalar == "/" && peek(1) == "*" {
                skipBlockComment()
            } else if scalar == "\"" || (scalar == "#" && rawStringFollows()) {
                if let value = readString() { tokens.append(SourceToken(kind: .string(value), line: startLine, column: startColumn)) }
            } else if scalar == "@" && peek(1) == "\"" {
                advance()
                if let value = readString() { tokens.append(SourceToken(kind: .string(value), line: startLine, column: startColumn)) }
            } else if scalar == "'" {
                // A C character literal: skipped whole (`'"'` must not open a string).
                advance()
                while position < scalars.count && scalars[position] != "'" && scalars[position] != "\n" {
                    if scalars[position] == "\\" { advance() }
                    advance()
                }
                advance()
            } else if scalar.properties.isXIDStart || scalar == "_" || scalar == "$" {
                tokens.append(SourceToken(kind: .identifier(readWhile { $0.properties.isXIDContinue || $0 == "$" }), line: startLine, column: startColumn))
            } else if scalar.properties.numericType != nil && scalar.isASCII {
                // Digits, `_`, a fraction and an exponent: `1_000`, `2.5`, `0x1F`, `1e-3`.
                var number = String.UnicodeScalarView()
                while position < scalars.count, scalars[position].properties.isXIDContinue || (scalars[position] == "." && nextIsDigit()) {
                    number.append(scalars[position])
                    advance()
                }
                tokens.append(SourceToken(kind: .number(String(number)), line: startLine, column: startColumn))
            } else if scalar.properties.isWhitespace {
                advance()
            } else {
                tokens.append(SourceToken(kind: .punctuation(Character(scalar)), line: startLine, column: startColumn))
                advance()
            }
        }
        return tokens
    }

    private mutating func readWhile(_ accept: (Unicode.Scalar) -> Bool) -> String {
        var text = String.UnicodeScalarView()
        while position < scalars.count, accept(scalars[position]) {
            text.append(scalars[position])
            advance()
        }
        return String(text)
    }

    private func nextIsDigit() -> Bool {
        peek(1).map { $0.properties.numericType != nil && $0.isASCII } ?? false
    }

    private func peek(_ offset: Int) -> Unicode.Scalar? {
        position + offset < scalars.count ? scalars[position + offset] : nil
    }

    private mutating func advance() {
        guard position < scalars.count else { return }
        if scalars[position] == "\n" {
            line += 1
            column = 1
        } else {
            column += 1
        }
        position += 1
    }

    /// `/* … */`, nested as Swift nests them.
    private mutating func skipBlockComment() {
        var depth = 0
        while position < scalars.count {
            if scalars[position] == "/" && peek(1) == "*" {
                depth += 1
                advance()
            } else if scalars[position] == "*" && peek(1) == "/" {
                depth -= 1
                advance()
                if depth == 0 {
                    advance()
                    return
                }
            }
            advance()
        }
    }

    private func rawStringFollows() -> Bool {
        var offset = 0
        while peek(offset) == "#" { offset += 1 }
        return peek(offset) == "\""
    }

    /// A string literal at `position` (its `#`s, quotes, body), or nil when it never closes.
    private mutating func readString() -> StringLiteral? {
        var hashes = 0
        while position < scalars.count && scalars[position] == "#" {
            hashes += 1
            advance()
        }
        let multiline = peek(0) == "\"" && peek(1) == "\"" && peek(2) == "\""
        for _ in 0..<(multiline ? 3 : 1) { advance() }
        var value = String.UnicodeScalarView()
        var lines: [String.UnicodeScalarView] = []
        var interpolations: [String] = []
        while position < scalars.count {
            let scalar = scalars[position]
            if scalar == "\n" && !multiline { return nil }
            if scalar == "\"" && (!multiline || (peek(1) == "\"" && peek(2) == "\"")) && closes(after: multiline ? 3 : 1, hashes: hashes) {
                for _ in 0..<((multiline ? 3 : 1) + hashes) { advance() }
                if multiline {
                    // The closing delimiter's indentation is taken off every line; the first and last line breaks go.
                    lines.append(value)
                    return StringLiteral(text: Self.multilineValue(lines), interpolations: interpolations)
                }
                return StringLiteral(text: String(value), interpolations: interpolations)
            }
            if scalar == "\\" && Self.hashes(at: position + 1, in: scalars) >= hashes {
                advance()
                for _ in 0..<hashes { advance() }
                readEscape(into: &value, interpolations: &interpolations)
                continue
            }
            if scalar == "\n" {
                lines.append(value)
                value = String.UnicodeScalarView()
                advance()
                continue
            }
            value.append(scalar)
            advance()
        }
        return nil
    }

    private func closes(after quotes: Int, hashes: Int) -> Bool {
        (0..<hashes).allSatisfy { peek(quotes + $0) == "#" }
    }

    private static func hashes(at index: Int, in scalars: [Unicode.Scalar]) -> Int {
        var count = 0
        while index + count < scalars.count && scalars[index + count] == "#" { count += 1 }
        return count
    }

    /// After a `\`: the character it stands for, appended; an interpolation's expression is kept and a placeholder appended.
    private mutating func readEscape(into value: inout String.UnicodeScalarView, interpolations: inout [String]) {
        guard position < scalars.count else { return }
        let scalar = scalars[position]
        advance()
        switch scalar {
        case "n": value.append("\n")
        case "t": value.append("\t")
        case "r": value.append("\r")
        case "0": value.append("\u{0}")
        case "\"", "'", "\\": value.append(scalar)
        case "u" where peek(0) == "{":
            advance()
            var digits = ""
            while position < scalars.count && scalars[position] != "}" {
                digits.unicodeScalars.append(scalars[position])
                advance()
            }
            advance()
            if let code = UInt32(digits, radix: 16), let character = Unicode.Scalar(code) { value.append(character) }
        case "(":
            // An interpolation: read to its closing parenthesis (strings inside it included).
            let start = position
            var depth = 1
            while position < scalars.count && depth > 0 {
                if scalars[position] == "(" { depth += 1 }
                if scalars[position] == ")" { depth -= 1 }
                if depth == 0 { break }
                if scalars[position] == "\"" {
                    _ = readString()
                    continue
                }
                advance()
            }
            var expression = String.UnicodeScalarView()
            expression.append(contentsOf: scalars[start..<min(position, scalars.count)])
            advance()
            if let placeholder = Unicode.Scalar(StringLiteral.placeholderBase + UInt32(interpolations.count)) {
                value.append(placeholder)
                interpolations.append(String(expression))
            }
        default:
            value.append(scalar)
        }
    }

    private static func multilineValue(_ lines: [String.UnicodeScalarView]) -> String {
        var lines = lines.map(String.init)
        let indentation = lines.last.map { $0.prefix { $0 == " " || $0 == "\t" }.count } ?? 0
        if lines.first?.isEmpty == true { lines.removeFirst() }
        if !lines.isEmpty { lines.removeLast() }
        return lines.map { String($0.dropFirst(min(indentation, $0.prefix { $0 == " " || $0 == "\t" }.count))) }.joined(separator: "\n")
    }
}
