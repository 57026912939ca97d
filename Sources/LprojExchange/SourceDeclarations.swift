/// What a project's Swift sources declare that decides how a literal
/// elsewhere is read: the functions and initializers with a parameter of a
/// localizable type (a call's literal there is extracted, as Xcode
/// extracts it), and the type each name is declared with (an interpolation
/// of an `Int` makes `%lld` in the key).
///
/// Read from tokens, without compiling: `init(_ title: LocalizedStringKey)`
/// in `struct RenameView` makes `RenameView:_` a position; `func row(label:
/// LocalizedStringResource)` makes `row:label` one; `let count: Int`, a
/// parameter `count: Int` or `var count = 0` give `count` the type `Int`.
struct SourceDeclarations {
    /// Positions the sources declare: a type's initializers by the type's name, functions by theirs.
    var positions = LocalizablePositions()
    /// Declared types by name; a name declared with two types is ambiguous.
    var types: [String: Set<String>] = [:]

    /// Adds what `tokens` (one file) declare.
    mutating func read(_ tokens: [SourceToken]) {
        var enclosing: [(name: String, depth: Int, isStruct: Bool)] = []
        var depth = 0
        var index = 0
        while index < tokens.count {
            defer { index += 1 }
            let token = tokens[index]
            switch token.kind {
            case .punctuation("{"):
                depth += 1
            case .punctuation("}"):
                depth -= 1
                while let last = enclosing.last, last.depth > depth { enclosing.removeLast() }
            case .identifier("struct"), .identifier("class"), .identifier("enum"), .identifier("extension"), .identifier("actor"):
                if let name = tokens.at(index + 1)?.identifier { enclosing.append((name, depth + 1, token.identifier == "struct")) }
            case .identifier("init") where tokens.at(index - 1)?.isPunctuation(".") != true:
                // `init(`, `init?(`, `init!(`, `init<T>(`.
                guard let type = enclosing.last?.name,
                      let open = tokens.firstIndex(after: index, where: { !$0.isPunctuation("?") && !$0.isPunctuation("!") }),
                      tokens[open].isPunctuation("(") || tokens[open].isPunctuation("<") else { break }
                if let parameters = tokens[open].isPunctuation("(") ? open : tokens.firstIndex(after: open, where: { $0.isPunctuation("(") }) {
                    readParameters(tokens, open: parameters, callee: type)
                }
            case .identifier("func"):
                if let name = tokens.at(index + 1)?.identifier, tokens.at(index + 2)?.isPunctuation("(") == true {
                    readParameters(tokens, open: index + 2, callee: name)
                } else if let name = tokens.at(index + 1)?.identifier, tokens.at(index + 2)?.isPunctuation("<") == true,
                          let open = tokens.firstIndex(after: index + 2, where: { $0.isPunctuation("(") }) {
                    readParameters(tokens, open: open, callee: name)
                }
            case .identifier("let"), .identifier("var"):
                guard let name = tokens.at(index + 1)?.identifier else { break }
                if tokens.at(index + 2)?.isPunctuation(":") == true, let type = Self.typeName(tokens, from: index + 3) {
                    types[name, default: []].insert(type)
                    // A struct's stored property is a parameter of its memberwise initializer.
                    if let owner = enclosing.last, owner.isStruct, owner.depth == depth, LocalizablePositions.types.contains(type),
                       tokens.at(Self.typeEnd(tokens, from: index + 3))?.isPunctuation("{") != true {
                        try? positions.add(owner.name + ":" + name)
                    }
                } else if tokens.at(index + 2)?.isPunctuation("=") == true, let value = tokens.at(index + 3),
                          case .number(let number) = value.kind, tokens.at(index + 4)?.line != value.line || tokens.at(index + 4)?.isPunctuation(";") == true {
                    types[name, default: []].insert(Self.isFraction(number) ? "Double" : "Int")
                }
            default:
                break
            }
        }
    }

    /// The type a name is declared with, when it is declared with one only.
    func type(of name: String) -> String? {
        guard let found = types[name], found.count == 1 else { return nil }
        return found.first
    }

    /// The parameters of the list that opens at `open`: each one's type is recorded, and one of a localizable type makes a position.
    private mutating func readParameters(_ tokens: [SourceToken], open: Int, callee: String) {
        for parameter in SourceCall.arguments(tokens, open: open) {
            // `label name: Type`, `_ name: Type`, `name: Type`.
            let range = parameter.range
            guard let colon = tokens[range].firstIndex(where: { $0.isPunctuation(":") }), colon > range.lowerBound,
                  let internalName = tokens[colon - 1].identifier else { continue }
            let externalName = colon - 2 >= range.lowerBound ? tokens[colon - 2].identifier ?? internalName : internalName
            guard let type = Self.typeName(tokens, from: colon + 1) else { continue }
            types[internalName, default: []].insert(type)
            if LocalizablePositions.types.contains(type) { try? positions.add(callee + ":" + externalName) }
        }
    }

    /// The type written at `index` as one name: `Int`, `LocalizedStringKey?` → `LocalizedStringKey`,
    /// `String.LocalizationValue` → `LocalizationValue`; nil for anything else (arrays, closures, generics).
    static func typeName(_ tokens: [SourceToken], from index: Int) -> String? {
        var index = index
        while tokens.at(index)?.isPunctuation("@") == true || ["inout", "borrowing", "consuming", "some", "any"].contains(tokens.at(index)?.identifier) {
            index += tokens.at(index)?.isPunctuation("@") == true ? 2 : 1
        }
        guard var name = tokens.at(index)?.identifier else { return nil }
        while tokens.at(index + 1)?.isPunctuation(".") == true, let member = tokens.at(index + 2)?.identifier {
            name = member
            index += 2
        }
        return name
    }

    /// Where the type written at `index` ends: after its attributes, dotted name and generic arguments.
    static func typeEnd(_ tokens: [SourceToken], from index: Int) -> Int {
        var index = index
        while tokens.at(index)?.isPunctuation("@") == true || ["inout", "borrowing", "consuming", "some", "any"].contains(tokens.at(index)?.identifier) {
            index += tokens.at(index)?.isPunctuation("@") == true ? 2 : 1
        }
        guard tokens.at(index)?.identifier != nil else { return index }
        index += 1
        while tokens.at(index)?.isPunctuation(".") == true, tokens.at(index + 1)?.identifier != nil { index += 2 }
        if tokens.at(index)?.isPunctuation("<") == true {
            var depth = 0
            while index < tokens.count {
                if tokens[index].isPunctuation("<") { depth += 1 }
                if tokens[index].isPunctuation(">") { depth -= 1 }
                index += 1
                if depth == 0 { break }
            }
        }
        return index
    }

    static func isFraction(_ number: String) -> Bool {
        !number.hasPrefix("0x") && (number.contains(".") || number.contains("e") || number.contains("E"))
    }
}

extension Array where Element == SourceToken {
    func at(_ index: Int) -> SourceToken? {
        index >= 0 && index < count ? self[index] : nil
    }

    func firstIndex(after index: Int, where predicate: (SourceToken) -> Bool) -> Int? {
        guard index + 1 < count else { return nil }
        return self[(index + 1)...].firstIndex(where: predicate)
    }
}

/// A call's arguments (or a declaration's parameters) found from its opening parenthesis.
enum SourceCall {
    struct Argument {
        /// The label (`_` for an unlabelled argument).
        var label: String
        /// The argument's tokens, its label and colon included.
        var range: Range<Int>
        /// Where its value starts (after `label:`).
        var value: Int
    }

    /// The top-level arguments of the list that opens at `open` (a `(` or `[`), up to its close (or the end).
    static func arguments(_ tokens: [SourceToken], open: Int) -> [Argument] {
        var arguments: [Argument] = []
        var depth = 0
        var start = open + 1
        var position = open
        func finish(_ end: Int) {
            guard end > start else { return }
            var label = "_"
            var value = start
            if let name = tokens[start].identifier, tokens.at(start + 1)?.isPunctuation(":") == true, tokens.at(start + 2)?.isPunctuation(":") != true {
                label = name
                value = start + 2
            }
            arguments.append(Argument(label: label, range: start..<end, value: value))
        }
        while position < tokens.count {
            switch tokens[position].kind {
            case .punctuation("("), .punctuation("["), .punctuation("{"):
                depth += 1
            case .punctuation(")"), .punctuation("]"), .punctuation("}"):
                depth -= 1
                if depth == 0 {
                    finish(position)
                    return arguments
                }
            case .punctuation(",") where depth == 1:
                finish(position)
                start = position + 1
            default:
                break
            }
            position += 1
        }
        finish(tokens.count)
        return arguments
    }

    /// The index of the bracket that closes the one at `open`, or the end.
    static func close(_ tokens: [SourceToken], of open: Int) -> Int {
        var depth = 0
        var position = open
        while position < tokens.count {
            switch tokens[position].kind {
            case .punctuation("("), .punctuation("["), .punctuation("{"): depth += 1
            case .punctuation(")"), .punctuation("]"), .punctuation("}"):
                depth -= 1
                if depth == 0 { return position }
            default: break
            }
            position += 1
        }
        return tokens.count
    }
}
