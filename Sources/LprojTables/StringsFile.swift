import Foundation

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
    /// `path` names the file in diagnostics.
    public init(bytes: some ContiguousBytes, path: String) {
        self = bytes.withUnsafeBytes { raw in
            Self.parse(raw.bindMemory(to: UInt8.self), path: path)
        }
    }

    private init(table: Table, form: Form, diagnostics: [Diagnostic]) {
        self.table = table
        self.form = form
        self.diagnostics = diagnostics
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, path: String) -> StringsFile {
        if bytes.isEmpty {
            let warning = Diagnostic(file: path, line: 1, column: 1, severity: .warning,
                                     message: "empty file (zero bytes): read as an empty table",
                                     hint: "CoreFoundation rejects a zero-byte file; write a comment in it if it is meant to be empty")
            return StringsFile(table: Table(), form: .text(.utf8), diagnostics: [warning])
        }
        if PropertyListTable.isBinary(bytes) {
            let (table, diagnostics) = PropertyListTable.parseStrings(Data(buffer: bytes), path: path)
            return StringsFile(table: table, form: .binaryPropertyList, diagnostics: diagnostics)
        }
        let decoded = DecodedText(bytes: bytes)
        if PropertyListTable.looksLikeXML(decoded.utf8) {
            let (table, diagnostics) = PropertyListTable.parseStrings(Data(buffer: bytes), path: path)
            return StringsFile(table: table, form: .xmlPropertyList, diagnostics: diagnostics)
        }
        var sink = DiagnosticSink(file: path, bytes: decoded.utf8)
        for problem in decoded.problems {
            sink.report(problem.severity, at: problem.offset, problem.message, hint: problem.hint)
        }
        let table: Table = decoded.utf8.withUnsafeBufferPointer { text in
            var parser = StringsTextParser(bytes: text)
            parser.parse()
            for problem in parser.problems {
                sink.report(problem.severity, at: problem.offset, problem.message, hint: problem.hint)
            }
            if !parser.duplicates.isEmpty {
                let firsts = StringsTextParser.firstOffsets(of: Set(parser.duplicates.map(\.key)), in: text)
                for duplicate in parser.duplicates {
                    let firstLine = firsts[duplicate.key].map { sink.source.location(of: $0).line }
                    let earlier = firstLine.map { " on line \($0)" } ?? ""
                    sink.report(.warning, at: duplicate.offset,
                                "duplicate key \"\(duplicate.key)\": this entry replaces the one\(earlier)",
                                hint: "the last one wins; remove the other")
                }
            }
            return Table(parser.entries)
        }
        let diagnostics = sink.diagnostics.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
        return StringsFile(table: table, form: .text(decoded.encoding), diagnostics: diagnostics)
    }
}
