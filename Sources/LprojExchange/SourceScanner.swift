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
            var reader = SourceFileReader(tokens: source.tokens, file: source.file, scanner: self, project: project, own: own[index])
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
