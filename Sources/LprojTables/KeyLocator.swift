#if canImport(Glibc)
import Glibc
#endif

/// Finds where a key is written in XML-plist or JSON text, so that problems
/// found after Foundation has decoded a file can still name a line.
struct KeyLocator {
    enum Syntax {
        case xmlPropertyList
        case json
    }

    private let syntax: Syntax
    private var sink: DiagnosticSink

    init(syntax: Syntax, file: String, bytes: [UInt8]) {
        self.syntax = syntax
        self.sink = DiagnosticSink(file: file, bytes: bytes)
    }

    /// The text searched (UTF-8).
    var sourceBytes: [UInt8] { sink.source.bytes }

    var diagnostics: [Diagnostic] {
        sink.diagnostics.sorted { ($0.line, $0.column, $0.message) < ($1.line, $1.column, $1.message) }
    }

    /// The offset of the first `key` written at or after `start` (0 when not found).
    func offset(ofKey key: String, from start: Int = 0) -> Int {
        let pattern: [UInt8]
        switch syntax {
        case .xmlPropertyList: pattern = Array("<key>\(Self.xmlEscaped(key))</key>".utf8)
        case .json: pattern = Array("\"\(Self.jsonEscaped(key))\"".utf8)
        }
        let bytes = sink.source.bytes
        guard start < bytes.count else { return start }
        return bytes.withUnsafeBufferPointer { haystack in
            pattern.withUnsafeBufferPointer { needle in
                // memchr for the first byte, memcmp for the rest.
                let base = haystack.baseAddress!
                var position = start
                while position + needle.count <= haystack.count,
                      let hit = memchr(base + position, Int32(needle[0]), haystack.count - position - needle.count + 1) {
                    let offset = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if memcmp(base + offset, needle.baseAddress!, needle.count) == 0 { return offset }
                    position = offset + 1
                }
                return start
            }
        }
    }

    /// Reports a problem at `offset`.
    mutating func report(_ severity: Diagnostic.Severity, at offset: Int, _ message: String, hint: String? = nil) {
        sink.report(severity, at: offset, message, hint: hint)
    }

    /// Reports a problem at a byte offset Foundation named.
    mutating func report(_ diagnostic: Diagnostic) {
        sink.report(diagnostic.severity, line: diagnostic.line, column: diagnostic.column, diagnostic.message, hint: diagnostic.hint)
    }

    private static func xmlEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    private static func jsonEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        guard contains(target) else { return self }
        return split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

/// Variables a format names: `%#@files@`, `%1$#@files@`.
enum FormatVariables {
    static func names(in format: String) -> [String] {
        var names: [String] = []
        var rest = Substring(format)
        while let percent = rest.firstIndex(of: "%") {
            rest = rest[rest.index(after: percent)...]
            // Optional positional argument "N$".
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            var cursor = rest[digits.endIndex...]
            if !digits.isEmpty, cursor.first == "$" { cursor = cursor.dropFirst() }
            guard cursor.hasPrefix("#@") else { continue }
            cursor = cursor.dropFirst(2)
            guard let end = cursor.firstIndex(of: "@") else { continue }
            names.append(String(cursor[..<end]))
            rest = cursor[cursor.index(after: end)...]
        }
        return names
    }
}
