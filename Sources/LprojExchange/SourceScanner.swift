/// Finds the localized keys Swift and Objective-C sources use — what
/// `genstrings` finds, read without compiling or running anything:
///
/// - `NSLocalizedString("key", tableName: "T", …)` and `NSLocalizedString(@"key", …)`;
///   `NSLocalizedStringFromTable(@"key", @"T", …)`, `…FromTableInBundle`,
///   `NSLocalizedStringWithDefaultValue(@"key", @"T", …)`;
/// - `String(localized: "key", table: "T")`, `LocalizedStringKey("key")`,
///   `LocalizedStringResource("key", table: "T")`, SwiftUI's `Text("key")`
///   (not `Text(verbatim:)`);
/// - `bundle.localizedString(forKey: "key", value: …, table: "T")` and
///   `[bundle localizedStringForKey:@"key" value:… table:@"T"]`;
/// - macros named by the caller: `RDLocalizedString(@"key")`.
///
/// String literals are read as the compiler reads them: escapes (`\"`,
/// `\n`, `\u{e9}`), raw strings (`#"…"#`), multi-line strings (`"""`);
/// an interpolation `\(…)` becomes `%@`, as `LocalizedStringKey` makes it.
/// Comments (nested ones in Swift) and string literals that only look like
/// calls are skipped; a call may span lines.
public struct SourceScanner: Sendable {
    /// A key used in a source file.
    public struct Use: Equatable, Sendable {
        public var key: String
        /// The table it names; nil for `Localizable`.
        public var table: String?
        /// The developer's comment for translators (`comment:`), when the call gives one as a literal.
        public var comment: String?
        /// The text the source gives besides the key (`value:`, `defaultValue:`), when it does.
        public var defaultValue: String?
        public var file: String
        /// Of the key's literal: 1-based.
        public var line: Int
        public var column: Int

        public init(key: String, table: String?, comment: String? = nil, defaultValue: String? = nil, file: String, line: Int, column: Int) {
            self.key = key
            self.table = table
            self.comment = comment
            self.defaultValue = defaultValue
            self.file = file
            self.line = line
            self.column = column
        }
    }

    /// Names of macros that take a key first (`--macro`).
    public var macros: Set<String>

    public init(macros: Set<String> = []) {
        self.macros = macros
    }

    /// The keys `text` (the source of `file`) uses, in order.
    public func uses(in text: String, file: String) -> [Use] {
        var lexer = Lexer(text: text)
        let tokens = lexer.tokens()
        var uses: [Use] = []
        var index = 0
        func string(at position: Int) -> Token? {
            guard position >= 0, position < tokens.count, case .string = tokens[position].kind else { return nil }
            return tokens[position]
        }
        func isPunctuation(_ position: Int, _ character: Character) -> Bool {
            position >= 0 && position < tokens.count && tokens[position].kind == Token.Kind.punctuation(character)
        }
        func isIdentifier(_ position: Int, _ name: String) -> Bool {
            position >= 0 && position < tokens.count && tokens[position].kind == Token.Kind.identifier(name)
        }
        /// The string after `label:` within the call that opens at `open` (a `(` or `[`), before it closes.
        func labelled(_ label: String, from open: Int) -> String? {
            var depth = 0
            var position = open
            while position < tokens.count {
                switch tokens[position].kind {
                case .punctuation("("), .punctuation("["): depth += 1
                case .punctuation(")"), .punctuation("]"):
                    depth -= 1
                    if depth == 0 { return nil }
                case .identifier(let name) where name == label && depth == 1 && isPunctuation(position + 1, ":"):
                    if let literal = string(at: position + 2), case .string(let value) = literal.kind { return value }
                default: break
                }
                position += 1
            }
            return nil
        }
        /// The `n`th plain argument (0-based, split at top-level commas) of the call that opens at `open`, when it is a string.
        func argument(_ n: Int, from open: Int) -> String? {
            var depth = 0, commas = 0
            var position = open
            while position < tokens.count {
                switch tokens[position].kind {
                case .punctuation("("), .punctuation("["), .punctuation("{"): depth += 1
                case .punctuation(")"), .punctuation("]"), .punctuation("}"):
                    depth -= 1
                    if depth == 0 { return nil }
                case .punctuation(",") where depth == 1:
                    commas += 1
                case .string(let value) where depth == 1 && commas == n && (isPunctuation(position - 1, "(") || isPunctuation(position - 1, ",")):
                    return value
                default: break
                }
                position += 1
            }
            return nil
        }
        func record(_ literal: Token, table: String?, comment: String? = nil, value: String? = nil) {
            guard case .string(let key) = literal.kind else { return }
            uses.append(Use(key: key, table: table.flatMap { $0.isEmpty || $0 == "Localizable" ? nil : $0 },
                            comment: comment.flatMap { $0.isEmpty ? nil : $0 }, defaultValue: value.flatMap { $0 == key ? nil : $0 },
                            file: file, line: literal.line, column: literal.column))
        }
        while index < tokens.count {
            defer { index += 1 }
            guard case .identifier(let name) = tokens[index].kind else { continue }
            // Not a method of that name on something else (`x.Text(`), except where that is the form (`bundle.localizedString(`).
            let afterDot = isPunctuation(index - 1, ".")
            let open = index + 1
            switch name {
            case "NSLocalizedString" where isPunctuation(open, "(") && !afterDot:
                // Swift labels its arguments; Objective-C's macro takes (key, comment).
                if let literal = string(at: open + 1) {
                    record(literal, table: labelled("tableName", from: open),
                           comment: labelled("comment", from: open) ?? argument(1, from: open), value: labelled("value", from: open))
                }
            case "NSLocalizedStringFromTable", "NSLocalizedStringFromTableInBundle", "NSLocalizedStringWithDefaultValue":
                guard isPunctuation(open, "("), !afterDot, let literal = string(at: open + 1) else { continue }
                switch name {
                case "NSLocalizedStringFromTable": record(literal, table: argument(1, from: open), comment: argument(2, from: open))
                case "NSLocalizedStringFromTableInBundle": record(literal, table: argument(1, from: open), comment: argument(3, from: open))
                default: record(literal, table: argument(1, from: open), comment: argument(4, from: open), value: argument(3, from: open))
                }
            case "String" where isPunctuation(open, "(") && isIdentifier(open + 1, "localized") && isPunctuation(open + 2, ":"):
                if let literal = string(at: open + 3) {
                    record(literal, table: labelled("table", from: open), comment: labelled("comment", from: open),
                           value: labelled("defaultValue", from: open))
                }
            case "LocalizedStringKey", "LocalizedStringResource", "Text":
                guard isPunctuation(open, "("), !afterDot, let literal = string(at: open + 1) else { continue }
                record(literal, table: labelled("table", from: open) ?? labelled("tableName", from: open), comment: labelled("comment", from: open),
                       value: labelled("defaultValue", from: open))
            case "localizedString" where afterDot && isPunctuation(open, "(") && isIdentifier(open + 1, "forKey") && isPunctuation(open + 2, ":"):
                if let literal = string(at: open + 3) { record(literal, table: labelled("table", from: open), value: labelled("value", from: open)) }
            case "localizedStringForKey" where isPunctuation(open, ":"):
                // Objective-C: the message's bracket is the call.
                var bracket = index - 1
                var depth = 0
                while bracket >= 0 {
                    if tokens[bracket].kind == Token.Kind.punctuation("]") { depth += 1 }
                    if tokens[bracket].kind == Token.Kind.punctuation("[") {
                        if depth == 0 { break }
                        depth -= 1
                    }
                    bracket -= 1
                }
                if let literal = string(at: open + 1) {
                    record(literal, table: bracket >= 0 ? labelled("table", from: bracket) : nil, value: bracket >= 0 ? labelled("value", from: bracket) : nil)
                }
            default:
                if macros.contains(name), isPunctuation(open, "("), !afterDot, let literal = string(at: open + 1) {
                    record(literal, table: nil, comment: argument(1, from: open))
                }
            }
        }
        return uses
    }

    // MARK: - Tokens

    struct Token: Equatable {
        enum Kind: Equatable {
            case identifier(String)
            /// A string literal's value (Swift's, or Objective-C's `@"…"`).
            case string(String)
            case punctuation(Character)
        }

        var kind: Kind
        var line: Int
        var column: Int
    }

    /// Swift and Objective-C source as identifiers, string literals and
    /// punctuation; comments, numbers and spaces dropped.
    struct Lexer {
        let scalars: [Unicode.Scalar]
        var position = 0
        var line = 1
        var column = 1

        init(text: String) {
            scalars = Array(text.unicodeScalars)
        }

        mutating func tokens() -> [Token] {
            var tokens: [Token] = []
            while position < scalars.count {
                let scalar = scalars[position]
                let (startLine, startColumn) = (line, column)
                if scalar == "/" && peek(1) == "/" {
                    while position < scalars.count && scalars[position] != "\n" { advance() }
                } else if scalar == "/" && peek(1) == "*" {
                    skipBlockComment()
                } else if scalar == "\"" || (scalar == "#" && rawStringFollows()) {
                    if let value = readString() { tokens.append(Token(kind: .string(value), line: startLine, column: startColumn)) }
                } else if scalar == "@" && peek(1) == "\"" {
                    advance()
                    if let value = readString() { tokens.append(Token(kind: .string(value), line: startLine, column: startColumn)) }
                } else if scalar == "'" {
                    // A C character literal: skipped whole (`'"'` must not open a string).
                    advance()
                    while position < scalars.count && scalars[position] != "'" && scalars[position] != "\n" {
                        if scalars[position] == "\\" { advance() }
                        advance()
                    }
                    advance()
                } else if scalar.properties.isXIDStart || scalar == "_" || scalar == "$" {
                    var name = String.UnicodeScalarView()
                    while position < scalars.count, scalars[position].properties.isXIDContinue || scalars[position] == "$" {
                        name.append(scalars[position])
                        advance()
                    }
                    tokens.append(Token(kind: .identifier(String(name)), line: startLine, column: startColumn))
                } else if scalar.properties.isWhitespace || scalar.properties.numericType != nil {
                    advance()
                } else {
                    tokens.append(Token(kind: .punctuation(Character(scalar)), line: startLine, column: startColumn))
                    advance()
                }
            }
            return tokens
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

        /// A string literal at `position` (its `#`s, quotes, body): its value, or nil when it never closes.
        private mutating func readString() -> String? {
            var hashes = 0
            while position < scalars.count && scalars[position] == "#" {
                hashes += 1
                advance()
            }
            let multiline = peek(0) == "\"" && peek(1) == "\"" && peek(2) == "\""
            for _ in 0..<(multiline ? 3 : 1) { advance() }
            var value = String.UnicodeScalarView()
            var lines: [String.UnicodeScalarView] = []
            while position < scalars.count {
                let scalar = scalars[position]
                if scalar == "\n" && !multiline { return nil }
                if scalar == "\"" && (!multiline || (peek(1) == "\"" && peek(2) == "\"")) && closes(after: multiline ? 3 : 1, hashes: hashes) {
                    for _ in 0..<((multiline ? 3 : 1) + hashes) { advance() }
                    if multiline {
                        // The closing delimiter's indentation is taken off every line; the first and last line breaks go.
                        lines.append(value)
                        return Self.multilineValue(lines)
                    }
                    return String(value)
                }
                if scalar == "\\" && Self.hashes(at: position + 1, in: scalars) >= hashes {
                    advance()
                    for _ in 0..<hashes { advance() }
                    readEscape(into: &value)
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

        /// After a `\`: the character it stands for, appended (an interpolation becomes `%@`).
        private mutating func readEscape(into value: inout String.UnicodeScalarView) {
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
                // An interpolation: skipped to its closing parenthesis (strings inside it included).
                var depth = 1
                while position < scalars.count && depth > 0 {
                    if scalars[position] == "(" { depth += 1 }
                    if scalars[position] == ")" { depth -= 1 }
                    if scalars[position] == "\"" {
                        _ = readString()
                        continue
                    }
                    advance()
                }
                value.append(contentsOf: "%@".unicodeScalars)
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
}
