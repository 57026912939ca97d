import Foundation
@_spi(LprojInternals) import LprojTables

/// A parsed `.strings` file: its table, how it was stored, and its problems.
public struct StringsFile: Sendable {
    /// How a `.strings` file was stored.
    public enum Form: Hashable, Sendable {
        /// Old-style `"key" = "value";` text in an encoding.
        case text(TextEncoding)
        case xmlPropertyList
        case binaryPropertyList
    }

    public var table: Table
    public var form: Form
    /// Every problem found, in file order.
    public var diagnostics: [Diagnostic]

    /// Parses `.strings` bytes in any form Apple accepts: old-style text in
    /// UTF-8, UTF-16 or UTF-32 (with or without BOM), XML or binary plist.
    /// `path` names the file in diagnostics; `limits` bound what a binary
    /// property list may decode into.
    public init(bytes: some ContiguousBytes, path: String, limits: TableLimits = TableLimits()) {
        self.init(bytes: bytes, path: path, limits: limits, sharing: [])
    }

    /// As `init(bytes:path:limits:)`; a text table whose keys are one of
    /// `sharing`'s, in order, is made over that set (`SharedKeys`).
    package init(bytes: some ContiguousBytes, path: String, limits: TableLimits, sharing: [SharedKeys]) {
        self = bytes.withUnsafeBytes { raw in
            Self.parse(raw.bindMemory(to: UInt8.self), path: path, limits: limits, sharing: sharing)
        }
    }

    private init(table: Table, form: Form, diagnostics: [Diagnostic]) {
        self.table = table
        self.form = form
        self.diagnostics = diagnostics
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, path: String, limits: TableLimits, sharing: [SharedKeys]) -> StringsFile {
        if bytes.isEmpty {
            let warning = Diagnostic(file: path, line: 1, column: 1, severity: .warning,
                                     message: "empty file (zero bytes): read as an empty table",
                                     hint: "CoreFoundation rejects a zero-byte file; write a comment in it if it is meant to be empty")
            return StringsFile(table: Table(), form: .text(.utf8), diagnostics: [warning])
        }
        if PropertyListTable.isBinary(bytes) {
            let (table, diagnostics) = PropertyListTable.parseStrings(Data(buffer: bytes), path: path, limits: limits)
            return StringsFile(table: table, form: .binaryPropertyList, diagnostics: diagnostics)
        }
        let decoded = DecodedText(bytes: bytes)
        return decoded.withUTF8(of: bytes) { text in
            if PropertyListTable.looksLikeXML(text) {
                let (table, diagnostics) = PropertyListTable.parseStrings(Data(buffer: bytes), path: path, limits: limits)
                return StringsFile(table: table, form: .xmlPropertyList, diagnostics: diagnostics)
            }
            // Text that is all ASCII (most tables in Latin scripts) needs no checking string by string.
            let validates = decoded.needsValidation && !UTF8Validation.isASCII(text)
            var parser = StringsTextParser(bytes: text, validatesUTF8: validates, byteBase: decoded.utf8Start)
            parser.parse()
            let problems = parser.problems
            var duplicates: [Int] = []
            let table = parser.table(duplicates: &duplicates, sharing: sharing)
            guard !decoded.problems.isEmpty || !problems.isEmpty || !duplicates.isEmpty else {
                return StringsFile(table: table, form: .text(decoded.encoding), diagnostics: [])
            }
            var sink = DiagnosticSink(file: path, bytes: Array(text))
            for problem in decoded.problems {
                sink.report(problem.severity, at: problem.offset, problem.message, hint: problem.hint)
            }
            for problem in problems {
                sink.report(problem.severity, at: problem.offset, problem.message, hint: problem.hint)
            }
            if !duplicates.isEmpty {
                // A second pass names each entry's key and place, in the order the table was made.
                let keys = StringsTextParser.keyOffsets(in: text)
                var first: [String: Int] = [:]
                for (key, offset) in keys where first[key] == nil { first[key] = offset }
                for position in duplicates {
                    let (key, offset) = keys[position]
                    sink.report(.warning, at: offset,
                                "duplicate key \"\(key)\": this entry replaces the one on line \(sink.source.location(of: first[key]!).line)",
                                hint: "the last one wins; remove the other")
                }
            }
            let diagnostics = sink.diagnostics.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
            return StringsFile(table: table, form: .text(decoded.encoding), diagnostics: diagnostics)
        }
    }
}
