import LprojTables

/// The arguments a localized value reads, by position, as the formatter
/// reads them (`StringFormatter`'s rules): `%@` an object, `%d` an integer,
/// `%1$@` the first argument, `%#@files@` a variable that takes its
/// argument as its `NSStringFormatValueTypeKey` says, unnumbered
/// specifiers inside a variable's forms starting at the variable's own
/// argument, `%arg` that argument. Every form of a plural or device rule
/// counts (a `one` form that leaves the number out is fine). A `%` followed
/// by a space is a percent sign in prose (`100% sure`), not the space flag.
///
/// Two localizations of a key must read their arguments alike: `%@` where
/// the development language has `%d` reads an integer as an object, which
/// crashes on Apple platforms.
public struct FormatArguments: Equatable, Sendable {
    /// What an argument is read as.
    public enum Kind: String, Sendable, Equatable {
        case object, integer, float, cString, character, pointer

        init?(conversion: Character) {
            switch conversion {
            case "@": self = .object
            case "d", "i", "u", "x", "X", "o": self = .integer
            case "f", "F", "e", "E", "g", "G", "a", "A": self = .float
            case "s", "S": self = .cString
            case "c", "C": self = .character
            case "p": self = .pointer
            default: return nil
            }
        }

        /// In words, for a message.
        public var description: String {
            switch self {
            case .object: "an object"
            case .integer: "an integer"
            case .float: "a floating-point number"
            case .cString: "a C string"
            case .character: "a character"
            case .pointer: "a pointer"
            }
        }
    }

    /// One specifier that reads an argument.
    public struct Use: Equatable, Sendable {
        public var kind: Kind
        /// The length modifier (`l`, `ll`, `q`, `h`, `z`…), "" for none.
        public var length: String
        /// As written (`%ld`, `%1$@`, `%#@files@`'s type `d`).
        public var written: String
    }

    /// Uses by 1-based argument position.
    public private(set) var uses: [Int: [Use]] = [:]
    /// Problems inside this one value (a variable whose forms read its
    /// argument as something else than its type says; a variable that is not defined).
    public private(set) var problems: [String] = []

    /// The arguments `entry` reads.
    public init(_ entry: Entry) {
        // Most values read nothing: no `%`, nothing to parse.
        if entry.substitutions.isEmpty, case .text(let text) = entry.value, !text.utf8.contains(UInt8(ascii: "%")) { return }
        var sequential = 1
        scan(entry.value, substitutions: entry.substitutions, sequential: &sequential, variable: nil)
    }

    /// The arguments the text `format` reads (no variables defined).
    public init(format: String) {
        var sequential = 1
        scan(format, substitutions: [:], sequential: &sequential, variable: nil)
    }

    /// Whether the value reads no argument at all.
    public var isEmpty: Bool { uses.isEmpty }

    private mutating func scan(_ variants: Variants, substitutions: [String: Substitution], sequential: inout Int,
                               variable: (index: Int, specifier: String?, name: String)?) {
        switch variants {
        case .text(let text):
            scan(text, substitutions: substitutions, sequential: &sequential, variable: variable)
        case .plural(let forms), .device(let forms):
            // Each form starts where the rule starts; the rule as a whole goes as far as its longest form.
            var furthest = sequential
            for key in forms.keys.sorted() {
                var position = sequential
                scan(forms[key]!, substitutions: substitutions, sequential: &position, variable: variable)
                furthest = max(furthest, position)
            }
            sequential = furthest
        }
    }

    private mutating func scan(_ format: String, substitutions: [String: Substitution], sequential: inout Int,
                               variable: (index: Int, specifier: String?, name: String)?) {
        var scalars = format.unicodeScalars[...]
        var next = variable.map { $0.index } ?? sequential
        while let percent = scalars.firstIndex(of: "%") {
            scalars = scalars[scalars.index(after: percent)...]
            if let variable, scalars.starts(with: "arg".unicodeScalars) {
                scalars = scalars.dropFirst(3)
                record(variable.index, conversion: Character(variable.specifier?.last.map(String.init) ?? "@"),
                       length: String(variable.specifier?.dropLast() ?? ""), written: "%arg", inVariable: variable)
                continue
            }
            guard let specifier = Specifier.parse(&scalars), specifier.conversion != "%" else { continue }
            // `100% sure`, `50% done`: prose, not the space flag (which no translator means).
            if specifier.flags.contains(" ") { continue }
            let index: Int
            if let position = specifier.position {
                index = position
            } else {
                index = next
                next += 1
            }
            if let name = specifier.variableName {
                guard let substitution = substitutions[name] else {
                    problems.append("%#@\(name)@ names a variable that is not defined")
                    continue
                }
                let type = substitution.formatSpecifier ?? "@"
                var index = substitution.argumentNumber ?? index
                if substitution.argumentNumber == nil, specifier.position == nil, let numbered = Self.numberedArgument(of: substitution, type: type) {
                    guard let position = numbered else {
                        // Every form numbers its arguments and none is of the variable's type: which one it takes is not written here.
                        var inner = index
                        scan(substitution.variants, substitutions: substitutions, sequential: &inner, variable: nil)
                        continue
                    }
                    index = position
                }
                if let conversion = type.last {
                    record(index, conversion: conversion, length: String(type.dropLast()), written: "%#@\(name)@ (type \(type))", inVariable: nil)
                }
                var inner = index
                scan(substitution.variants, substitutions: substitutions, sequential: &inner, variable: (index, type, name))
            } else {
                record(index, conversion: specifier.conversion, length: specifier.length, written: specifier.written, inVariable: variable)
            }
        }
        if variable == nil { sequential = next }
    }

    /// For a variable without a position whose forms number every
    /// argument (`%#@COUNT@` with `%1$@ and %2$d others`, as translation
    /// tools write it): nil when the forms do not number every argument (the
    /// variable takes the next one); else the one numbered argument of the
    /// variable's type, or `.some(nil)` when there is not exactly one (not known from this text).
    private static func numberedArgument(of substitution: Substitution, type: String) -> Int?? {
        guard let kind = type.last.flatMap(Kind.init(conversion:)) else { return nil }
        var positions = Set<Int>()
        var unnumbered = false
        func scan(_ variants: Variants) {
            switch variants {
            case .text(let text):
                var scalars = text.unicodeScalars[...]
                while let percent = scalars.firstIndex(of: "%") {
                    scalars = scalars[scalars.index(after: percent)...]
                    if scalars.starts(with: "arg".unicodeScalars) {
                        unnumbered = true
                        continue
                    }
                    guard let specifier = Specifier.parse(&scalars), specifier.conversion != "%", !specifier.flags.contains(" ") else { continue }
                    guard let position = specifier.position else {
                        unnumbered = true
                        continue
                    }
                    if Kind(conversion: specifier.conversion) == kind { positions.insert(position) }
                }
            case .plural(let forms), .device(let forms):
                forms.values.forEach(scan)
            }
        }
        scan(substitution.variants)
        guard !unnumbered else { return nil }
        return .some(positions.count == 1 ? positions.first : nil)
    }

    private mutating func record(_ position: Int, conversion: Character, length: String, written: String,
                                 inVariable variable: (index: Int, specifier: String?, name: String)?) {
        guard let kind = Kind(conversion: conversion) else { return }
        if let variable, position == variable.index, let type = variable.specifier, let typeKind = type.last.flatMap(Kind.init(conversion:)),
           typeKind != kind {
            problems.append("variable \(variable.name) is \(typeKind.description) (NSStringFormatValueTypeKey \(type)), "
                            + "but one of its forms reads it with \(written), as \(kind.description)")
        }
        uses[position, default: []].append(Use(kind: kind, length: length, written: written))
    }
}
