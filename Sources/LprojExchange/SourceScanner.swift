import Foundation

/// Finds the localized keys Swift and Objective-C sources use — what
/// Xcode's extraction and `genstrings` find — read without compiling or
/// running anything.
///
/// Swift: a string literal is a key where it is given a localizable type
/// (`LocalizedStringKey`, `LocalizedStringResource`,
/// `String.LocalizationValue`, App Intents' types), as the compiler gives
/// it and Xcode extracts it:
///
/// - an argument at one of `LocalizablePositions` — SwiftUI's `Text("key")`,
///   `Button`, `Toggle`, `.navigationTitle`, `.alert` …, `String(localized:)`,
///   `LocalizedStringResource("key", table:)`, `@Parameter(title:)` … —, or
///   of a function or initializer the sources declare with a parameter of
///   a localizable type (`RenameView("key", …)`), or one the user names;
/// - the value of a declaration of a localizable type (`static var title:
///   LocalizedStringResource = "key"`, an array of them, a parameter's
///   default), what a function or computed property of that type returns
///   (`return "key"`, a `switch` whose cases are literals), a value
///   assigned to a name declared with that type;
/// - each branch of a `?:` or `??` there.
///
/// An interpolation becomes the specifier its type makes (`\(count)` of an
/// `Int` → `%lld`, a `Double` → `%lf`, `\(x, specifier: "%.1f")` → `%.1f`,
/// anything else `%@`), as `LocalizedStringKey` makes it; a `%` beside one
/// becomes `%%`. A name's type is what its declaration in the sources
/// writes, the file's own first.
///
/// Both languages: `NSLocalizedString("key", tableName:, comment:)` and
/// `NSLocalizedString(@"key", …)`, `NSLocalizedStringFromTable(@"key",
/// @"T", …)`, `…FromTableInBundle`, `NSLocalizedStringWithDefaultValue`,
/// `bundle.localizedString(forKey:value:table:)`, `[bundle
/// localizedStringForKey:@"key" value:… table:@"T"]`, and macros the
/// caller names. Literals are read as the compiler reads them (escapes,
/// raw and multi-line strings); comments, and literals that only look like
/// calls, are skipped; a call may span lines.
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
        /// Why the literal is a key: the position (`Button:_`), or the declaration that types it.
        public var reason: String

        public init(key: String, table: String?, comment: String? = nil, defaultValue: String? = nil, file: String, line: Int, column: Int,
                    reason: String = "") {
            self.key = key
            self.table = table
            self.comment = comment
            self.defaultValue = defaultValue
            self.file = file
            self.line = line
            self.column = column
            self.reason = reason
        }
    }

    /// A string literal that is not a key, where it is: for saying why a key is not found.
    public struct Literal: Equatable, Sendable {
        public var text: String
        public var file: String
        public var line: Int
        public var column: Int
    }

    /// What the sources use, and the literals that are not keys.
    public struct Scan: Sendable {
        public var uses: [Use] = []
        public var otherLiterals: [Literal] = []
    }

    /// Names of macros that take a key first (`--macro`).
    public var macros: Set<String>
    /// Where a literal is a key: Apple's APIs, and the user's.
    public var positions: LocalizablePositions

    public init(macros: Set<String> = [], positions: LocalizablePositions = .apple) {
        self.macros = macros
        self.positions = positions
    }

    /// The keys `text` (the source of `file`) uses, in order, reading that file's declarations only.
    public func uses(in text: String, file: String) -> [Use] {
        scan([(text, file)]).uses
    }

    /// The keys a project's sources use, in order: each Swift file's declarations are read first, so that a
    /// call in one file of a function another declares counts.
    public func scan(_ sources: [(text: String, file: String)]) -> Scan {
        let files = sources.map { (tokens: Self.tokens(of: $0.text), file: $0.file) }
        var project = SourceDeclarations()
        var own: [SourceDeclarations] = []
        for source in files {
            var declarations = SourceDeclarations()
            if source.file.hasSuffix(".swift") { declarations.read(source.tokens) }
            own.append(declarations)
            project.merge(declarations)
        }
        var scan = Scan()
        for (index, source) in files.enumerated() {
            var reader = FileReader(tokens: source.tokens, file: source.file, scanner: self, project: project, own: own[index])
            reader.read()
            scan.uses += reader.uses
            scan.otherLiterals += reader.otherLiterals
        }
        return scan
    }

    static func tokens(of text: String) -> [SourceToken] {
        var lexer = SourceLexer(text: text)
        return lexer.tokens()
    }

    /// The specifier an interpolation's expression makes in a key, as `LocalizedStringKey` and
    /// `String.LocalizationValue` make it: by the type of what it interpolates.
    static func specifier(for expression: String, type: (String) -> String?) -> String {
        let wrapped = Self.tokens(of: "(" + expression + ")")
        let arguments = SourceCall.arguments(wrapped, open: 0)
        if arguments.count > 1 {
            // `\(value, specifier: "%.2f")` writes its own; `\(date, style: .date)`, `\(x, format: …)` are objects.
            if let given = arguments.first(where: { $0.label == "specifier" }), let literal = wrapped.at(given.value)?.literal {
                return literal.plain
            }
            return "%@"
        }
        let tokens = Array(wrapped.dropFirst().dropLast())
        guard let first = tokens.first else { return "%@" }
        if tokens.count == 1, case .number(let number) = first.kind {
            return SourceDeclarations.isFraction(number) ? "%lf" : "%lld"
        }
        // A conversion: `Int(x)`, `Double(y)`.
        if let name = first.identifier, tokens.at(1)?.isPunctuation("(") == true, SourceCall.close(tokens, of: 1) == tokens.count - 1,
           let specifier = specifiers[name] {
            return specifier
        }
        // A name or a member path: `count`, `self.count`, `bottle.settings.name`.
        let isPath = tokens.enumerated().allSatisfy { offset, token in offset % 2 == 0 ? token.identifier != nil : token.isPunctuation(".") }
        guard isPath, tokens.count % 2 == 1, let last = tokens.last?.identifier else { return "%@" }
        if last == "count", tokens.count > 1 { return "%lld" }
        return type(last).flatMap { specifiers[$0] } ?? "%@"
    }

    /// `LocalizedStringKey.StringInterpolation`'s specifiers by type; any other type is an object, `%@`.
    static let specifiers: [String: String] = [
        "Int": "%lld", "Int64": "%lld", "Int32": "%d", "Int16": "%d", "Int8": "%d",
        "UInt": "%llu", "UInt64": "%llu", "UInt32": "%u", "UInt16": "%u", "UInt8": "%u",
        "Double": "%lf", "CGFloat": "%lf", "TimeInterval": "%lf", "Float": "%f",
    ]
}

extension SourceDeclarations {
    mutating func merge(_ other: SourceDeclarations) {
        for (callee, labels) in other.positions.labels {
            for label in labels { try? positions.add(callee + ":" + label) }
        }
        types.merge(other.types) { $0.union($1) }
    }
}

/// One file's uses, read from its tokens.
private struct FileReader {
    let tokens: [SourceToken]
    let file: String
    let scanner: SourceScanner
    let project: SourceDeclarations
    let own: SourceDeclarations
    var uses: [SourceScanner.Use] = []
    var otherLiterals: [SourceScanner.Literal] = []
    private var counted: Set<Int> = []

    init(tokens: [SourceToken], file: String, scanner: SourceScanner, project: SourceDeclarations, own: SourceDeclarations) {
        self.tokens = tokens
        self.file = file
        self.scanner = scanner
        self.project = project
        self.own = own
    }

    mutating func read() {
        let swift = file.hasSuffix(".swift")
        for index in tokens.indices {
            switch tokens[index].kind {
            case .identifier(let name):
                if !readFoundationForm(name, at: index), swift { readSwiftPosition(name, at: index) }
            case .punctuation(":") where swift:
                readTypedDeclaration(colon: index)
            case .punctuation("-") where swift && tokens.at(index + 1)?.isPunctuation(">") == true:
                // `-> LocalizedStringKey {`: what the function returns.
                if let type = SourceDeclarations.typeName(tokens, from: index + 2), LocalizablePositions.types.contains(type),
                   let open = bodyOpen(after: index + 2) {
                    readReturns(body: open, reason: "returned as \(type)")
                }
            default:
                break
            }
        }
        for (index, token) in tokens.enumerated() where !counted.contains(index) {
            if let literal = token.literal { otherLiterals.append(.init(text: literal.plain, file: file, line: token.line, column: token.column)) }
        }
    }

    // MARK: - Positions

    /// A call at a localizable position: `Button("key")`, `.help("key")`, `@Parameter(title: "key")`, `RenameView("key", …)`.
    private mutating func readSwiftPosition(_ name: String, at index: Int) {
        guard tokens.at(index + 1)?.isPunctuation("(") == true else { return }
        let prefix = tokens.at(index - 1)?.isPunctuation(".") == true ? "." : tokens.at(index - 1)?.isPunctuation("@") == true ? "@" : ""
        // `x.Text(` is a method of that name on something else; `SwiftUI.Text(` is the type.
        if prefix == ".", scanner.positions.labels["." + name] == nil, project.positions.labels[name] == nil,
           tokens.at(index - 2)?.identifier != "SwiftUI" {
            return
        }
        let open = index + 1
        let callee = prefix == "." && scanner.positions.labels["." + name] == nil ? name : prefix + name
        var unlabelled = 0
        for argument in SourceCall.arguments(tokens, open: open) {
            // Only the first unlabelled argument is `_`: a second one is never a title.
            var label = argument.label
            if label == "_" {
                unlabelled += 1
                if unlabelled > 1 { label = "_\(unlabelled)" }
            }
            guard scanner.positions.takes(callee, label) || project.positions.takes(name, label) else { continue }
            let reason = "\(prefix)\(name)(\(label):)"
            for literal in literals(in: argument.value..<argument.range.upperBound) {
                record(literal, table: labelled("table", from: open) ?? labelled("tableName", from: open), comment: labelled("comment", from: open),
                       value: labelled("defaultValue", from: open), reason: reason)
            }
        }
    }

    /// `name: Type = value` (a declaration or a parameter's default), `var name: Type { … }`: literals given a localizable type.
    private mutating func readTypedDeclaration(colon: Int) {
        var index = colon + 1
        let typeName: String
        let collection: Bool
        if tokens.at(index)?.isPunctuation("[") == true {
            // `[LocalizedStringResource]`, `[Case: DisplayRepresentation]`: the elements, not the keys.
            let close = SourceCall.close(tokens, of: index)
            guard let element = tokens[(index + 1)..<min(close, tokens.count)].compactMap(\.identifier)
                .first(where: { LocalizablePositions.types.contains($0) }) else { return }
            (typeName, collection) = ("[\(element)]", true)
            index = close + 1
        } else {
            guard let type = SourceDeclarations.typeName(tokens, from: index), LocalizablePositions.types.contains(type) else { return }
            (typeName, collection) = (type, false)
            index = SourceDeclarations.typeEnd(tokens, from: index)
        }
        while tokens.at(index)?.isPunctuation("?") == true || tokens.at(index)?.isPunctuation("!") == true { index += 1 }
        if !collection, tokens.at(index)?.isPunctuation("{") == true, tokens.at(colon - 2)?.identifier == "var" {
            readReturns(body: index, reason: "returned as \(typeName)")
            return
        }
        guard tokens.at(index)?.isPunctuation("=") == true, tokens.at(index + 1)?.isPunctuation("=") != true else { return }
        let end = statementEnd(from: index + 1)
        for literal in literals(in: (index + 1)..<end, inCollection: collection) {
            record(literal, table: nil, comment: nil, value: nil, reason: "a \(typeName) declaration")
        }
    }

    /// The literals a body returns: its single expression, each `return`'s, each `case`'s single expression.
    private mutating func readReturns(body open: Int, reason: String) {
        let close = SourceCall.close(tokens, of: open)
        let inside = (open + 1)..<min(close, tokens.count)
        let statements = inside.filter { ["return", "switch", "if", "guard", "let", "var", "for", "while"].contains(tokens[$0].identifier) }
        if statements.isEmpty {
            for literal in literals(in: inside) { record(literal, table: nil, comment: nil, value: nil, reason: reason) }
            return
        }
        for index in inside {
            if tokens[index].identifier == "return" {
                for literal in literals(in: (index + 1)..<min(statementEnd(from: index + 1), close)) {
                    record(literal, table: nil, comment: nil, value: nil, reason: reason)
                }
            } else if tokens[index].isPunctuation(":"), tokens.at(index + 1)?.literal != nil, isCaseLabel(colon: index) {
                for literal in literals(in: (index + 1)..<min(statementEnd(from: index + 1), close)) {
                    record(literal, table: nil, comment: nil, value: nil, reason: reason)
                }
            }
        }
    }

    /// Whether the `:` at `colon` ends a `case …:` or `default:` label.
    private func isCaseLabel(colon: Int) -> Bool {
        var index = colon - 1
        while index >= 0, tokens[index].line == tokens[colon].line {
            if tokens[index].identifier == "default" && index == colon - 1 { return true }
            if tokens[index].identifier == "case", index == 0 || tokens[index - 1].line != tokens[index].line || tokens[index - 1].isPunctuation(";") {
                return true
            }
            index -= 1
        }
        return false
    }

    /// The `{` that opens the body after a return type at `index`.
    private func bodyOpen(after index: Int) -> Int? {
        var position = index
        while position < tokens.count, position < index + 12 {
            if tokens[position].isPunctuation("{") { return position }
            if tokens[position].isPunctuation("}") || tokens[position].isPunctuation("=") { return nil }
            position += 1
        }
        return nil
    }

    /// Where the expression that starts at `start` ends: a `,`, `;` or closing bracket of its own level, or a new line
    /// that does not continue it.
    private func statementEnd(from start: Int) -> Int {
        var depth = 0
        var position = start
        let continuing: Set<Character> = ["=", "?", ":", "+", "-", "*", "&", "|", ",", "(", "[", "."]
        while position < tokens.count {
            let token = tokens[position]
            if depth == 0, position > start, token.line != tokens[position - 1].line {
                let previousContinues = { if case .punctuation(let c) = tokens[position - 1].kind { continuing.contains(c) } else { false } }()
                let continues = token.isPunctuation("?") || token.isPunctuation(":") || token.isPunctuation(".")
                if !previousContinues && !continues { return position }
            }
            switch token.kind {
            case .punctuation("("), .punctuation("["), .punctuation("{"): depth += 1
            case .punctuation(")"), .punctuation("]"), .punctuation("}"):
                depth -= 1
                if depth < 0 { return position }
            case .punctuation(","), .punctuation(";"):
                if depth == 0 { return position }
            default: break
            }
            position += 1
        }
        return tokens.count
    }

    /// The string literals an expression gives its type: those at its own level (each branch of `?:` and `??`), or,
    /// for a collection, its elements (not a dictionary's keys); not one that is an operand of `+` or has a member called.
    private func literals(in range: Range<Int>, inCollection: Bool = false) -> [Int] {
        var found: [Int] = []
        var depth = 0
        var collection = false
        for position in range where position < tokens.count {
            switch tokens[position].kind {
            case .punctuation("("), .punctuation("["), .punctuation("{"):
                if depth == 0 { collection = inCollection && tokens[position].isPunctuation("[") }
                depth += 1
            case .punctuation(")"), .punctuation("]"), .punctuation("}"):
                depth -= 1
            case .string:
                guard depth == 0 || (depth == 1 && collection) else { continue }
                let next = tokens.at(position + 1), previous = tokens.at(position - 1)
                if next?.isPunctuation(".") == true || next?.isPunctuation("+") == true || previous?.isPunctuation("+") == true { continue }
                if depth == 1, next?.isPunctuation(":") == true { continue }
                found.append(position)
            default:
                break
            }
        }
        return found
    }

    // MARK: - Foundation's and Objective-C's forms

    /// `NSLocalizedString` and its kin, `localizedString(forKey:)`, `localizedStringForKey:`, macros; false when `name` is none.
    private mutating func readFoundationForm(_ name: String, at index: Int) -> Bool {
        let afterDot = tokens.at(index - 1)?.isPunctuation(".") == true
        let open = index + 1
        let literalFirst = tokens.at(open + 1)?.literal != nil ? open + 1 : nil
        switch name {
        case "NSLocalizedString" where tokens.at(open)?.isPunctuation("(") == true && !afterDot:
            // Swift labels its arguments; Objective-C's macro takes (key, comment).
            if let literal = literalFirst {
                record(literal, table: labelled("tableName", from: open), comment: labelled("comment", from: open) ?? argument(1, from: open),
                       value: labelled("value", from: open), reason: name)
            }
        case "NSLocalizedStringFromTable", "NSLocalizedStringFromTableInBundle", "NSLocalizedStringWithDefaultValue":
            guard tokens.at(open)?.isPunctuation("(") == true, !afterDot, let literal = literalFirst else { return true }
            switch name {
            case "NSLocalizedStringFromTable": record(literal, table: argument(1, from: open), comment: argument(2, from: open), value: nil, reason: name)
            case "NSLocalizedStringFromTableInBundle":
                record(literal, table: argument(1, from: open), comment: argument(3, from: open), value: nil, reason: name)
            default: record(literal, table: argument(1, from: open), comment: argument(4, from: open), value: argument(3, from: open), reason: name)
            }
        case "localizedString" where afterDot && tokens.at(open)?.isPunctuation("(") == true && tokens.at(open + 1)?.identifier == "forKey"
            && tokens.at(open + 2)?.isPunctuation(":") == true:
            if tokens.at(open + 3)?.literal != nil {
                record(open + 3, table: labelled("table", from: open), comment: nil, value: labelled("value", from: open), reason: "localizedString(forKey:)")
            }
        case "localizedStringForKey" where tokens.at(open)?.isPunctuation(":") == true:
            // Objective-C: the message's bracket is the call.
            var bracket = index - 1
            var depth = 0
            while bracket >= 0 {
                if tokens[bracket].isPunctuation("]") { depth += 1 }
                if tokens[bracket].isPunctuation("[") {
                    if depth == 0 { break }
                    depth -= 1
                }
                bracket -= 1
            }
            if tokens.at(open + 1)?.literal != nil {
                record(open + 1, table: bracket >= 0 ? labelled("table", from: bracket) : nil, comment: nil,
                       value: bracket >= 0 ? labelled("value", from: bracket) : nil, reason: "localizedStringForKey:")
            }
        default:
            guard scanner.macros.contains(name) else { return false }
            if tokens.at(open)?.isPunctuation("(") == true, !afterDot, let literal = literalFirst {
                record(literal, table: nil, comment: argument(1, from: open), value: nil, reason: name)
            }
        }
        return true
    }

    /// The string after `label:` within the call that opens at `open` (a `(` or `[`), before it closes.
    private func labelled(_ label: String, from open: Int) -> String? {
        var depth = 0
        var position = open
        while position < tokens.count {
            switch tokens[position].kind {
            case .punctuation("("), .punctuation("["): depth += 1
            case .punctuation(")"), .punctuation("]"):
                depth -= 1
                if depth == 0 { return nil }
            case .identifier(let name) where name == label && depth == 1 && tokens.at(position + 1)?.isPunctuation(":") == true:
                if let literal = tokens.at(position + 2)?.literal { return literal.plain }
            default: break
            }
            position += 1
        }
        return nil
    }

    /// The `n`th plain argument (0-based, split at top-level commas) of the call that opens at `open`, when it is a string.
    private func argument(_ n: Int, from open: Int) -> String? {
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
            case .string(let literal) where depth == 1 && commas == n
                && (tokens.at(position - 1)?.isPunctuation("(") == true || tokens.at(position - 1)?.isPunctuation(",") == true):
                return literal.plain
            default: break
            }
            position += 1
        }
        return nil
    }

    private mutating func record(_ index: Int, table: String?, comment: String?, value: String?, reason: String) {
        guard !counted.contains(index), let literal = tokens[index].literal else { return }
        counted.insert(index)
        let key = literal.key { expression in
            SourceScanner.specifier(for: expression) { name in own.type(of: name) ?? project.type(of: name) }
        }
        uses.append(.init(key: key, table: table.flatMap { $0.isEmpty || $0 == "Localizable" ? nil : $0 },
                          comment: comment.flatMap { $0.isEmpty ? nil : $0 }, defaultValue: value.flatMap { $0 == key ? nil : $0 },
                          file: file, line: tokens[index].line, column: tokens[index].column, reason: reason))
    }
}
