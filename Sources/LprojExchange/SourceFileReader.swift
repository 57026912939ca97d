import Foundation

/// One file's uses, read from its tokens.
struct SourceFileReader {
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

    /// The `n`th argument (0-based) of the call that opens at `open`, when it is a string literal alone.
    private func argument(_ n: Int, from open: Int) -> String? {
        let arguments = SourceCall.arguments(tokens, open: open)
        guard n < arguments.count, arguments[n].range.count == 1 else { return nil }
        return tokens[arguments[n].range.lowerBound].literal?.plain
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
