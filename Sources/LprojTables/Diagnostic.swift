/// One problem found in a table file, placed at a 1-based line and column.
///
/// Columns count characters (extended grapheme clusters) from the start of the
/// line, so they match what an editor shows a translator. Every message says
/// what is wrong in words a translator understands; `hint` says how to fix it.
public struct Diagnostic: Hashable, Sendable, Codable, CustomStringConvertible {
    /// How bad a problem is. Only errors make a table unusable.
    public enum Severity: String, Hashable, Sendable, Codable, Comparable, CaseIterable {
        case error
        case warning
        /// Worth knowing, not wrong (a check that is off by default: a
        /// translation identical to the development language's).
        case info

        /// Worst first: error < warning < info.
        public static func < (lhs: Severity, rhs: Severity) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// The file the problem is in, as it was named to the parser (or the
    /// directory, for a problem with a directory's name).
    public var file: String
    /// 1-based line, counted on `\n`, `\r` and `\r\n`; 0 when the problem
    /// is not on a line (a directory's name, a table missing as a whole).
    public var line: Int
    /// 1-based column in characters.
    public var column: Int
    public var severity: Severity
    public var message: String
    /// How to fix it, when there is a likely fix.
    public var hint: String?
    /// Which rule found it, for the problems callers act on (never read from the message).
    public var rule: Rule?

    /// A rule whose problems a caller acts on.
    public enum Rule: String, Hashable, Sendable {
        /// A plural rule without an `other` form: read (Foundation serves it), never written.
        case pluralWithoutOther
    }

    public init(file: String, line: Int, column: Int, severity: Severity, message: String, hint: String? = nil, rule: Rule? = nil) {
        self.file = file
        self.line = line
        self.column = column
        self.severity = severity
        self.message = message
        self.hint = hint
        self.rule = rule
    }

    // The rule stays in the process: on the wire a diagnostic is what a person reads.
    private enum CodingKeys: String, CodingKey {
        case file, line, column, severity, message, hint
    }

    /// The compiler-style form `file:line:column: severity: message (hint)`.
    public var description: String {
        var text = line > 0 ? "\(file):\(line):\(column): \(severity.rawValue): \(message)" : "\(file): \(severity.rawValue): \(message)"
        if let hint { text += " (\(hint))" }
        return text
    }
}

extension Array where Element == Diagnostic {
    /// Whether any of the diagnostics is an error.
    public var containsErrors: Bool { contains { $0.severity == .error } }
}
