import LprojTables
/// Finds where keys are written in an XML property list, so that problems
/// found after Foundation has decoded a file can still name a line.
///
/// The root dictionary's keys (a `.stringsdict`'s entries) are indexed in
/// one pass when the locator is made; any other key is searched for from
/// its entry's key to the next entry's, so no search crosses the file.
struct KeyLocator {
    private var sink: DiagnosticSink
    /// The root dictionary's keys and where each is first written.
    let entryOffsets: [String: Int]
    /// The same offsets, ascending: where each entry's search ends.
    private let entryStarts: [Int]

    init(file: String, bytes: [UInt8]) {
        self.sink = DiagnosticSink(file: file, bytes: bytes)
        var offsets: [String: Int] = [:]
        bytes.withUnsafeBufferPointer { Self.forEachRootKey(in: $0) { key, offset in if offsets[key] == nil { offsets[key] = offset } } }
        entryOffsets = offsets
        entryStarts = offsets.values.sorted()
    }

    var diagnostics: [Diagnostic] {
        sink.diagnostics.sorted { ($0.line, $0.column, $0.message) < ($1.line, $1.column, $1.message) }
    }

    /// The offset of the first `key` written at or after `start` and before
    /// the next entry's key (`start` when it is not found there).
    func offset(ofKey key: String, from start: Int) -> Int {
        let pattern = Array("<key>\(Self.xmlEscaped(key))</key>".utf8)
        let bytes = sink.source.bytes
        // The first entry written after `start` ends the search.
        var low = 0, high = entryStarts.count
        while low < high {
            let middle = (low + high) / 2
            if entryStarts[middle] <= start { low = middle + 1 } else { high = middle }
        }
        let end = low < entryStarts.count ? entryStarts[low] : bytes.count
        guard start < end else { return start }
        return bytes.withUnsafeBufferPointer { haystack in
            var position = start
            while position + pattern.count <= end {
                guard let hit = haystack[position..<(end - pattern.count + 1)].firstIndex(of: pattern[0]) else { break }
                if haystack[hit..<(hit + pattern.count)].elementsEqual(pattern) { return hit }
                position = hit + 1
            }
            return start
        }
    }

    /// The 1-based line and column of `offset`.
    mutating func location(of offset: Int) -> (line: Int, column: Int) {
        sink.source.location(of: offset)
    }

    /// Reports a problem at `offset`.
    mutating func report(_ severity: Diagnostic.Severity, at offset: Int, _ message: String, hint: String? = nil, rule: Diagnostic.Rule? = nil) {
        sink.report(severity, at: offset, message, hint: hint, rule: rule)
    }

    /// Reports a problem at a byte offset Foundation named.
    mutating func report(_ diagnostic: Diagnostic) {
        sink.report(diagnostic.severity, line: diagnostic.line, column: diagnostic.column, diagnostic.message, hint: diagnostic.hint)
    }

    /// Calls `body` with each `<key>` of the outermost `<dict>`, decoded,
    /// and the offset of its `<key>` tag. Comments and CDATA sections are
    /// passed over.
    private static func forEachRootKey(in text: UnsafeBufferPointer<UInt8>, _ body: (String, Int) -> Void) {
        var depth = 0, index = 0
        func starts(_ tag: StaticString, at offset: Int) -> Bool {
            let count = tag.utf8CodeUnitCount
            return offset + count <= text.count && UnsafeBufferPointer(start: tag.utf8Start, count: count).elementsEqual(text[offset..<(offset + count)])
        }
        func skip(past terminator: StaticString, from offset: Int) -> Int {
            var position = offset
            while position < text.count, !starts(terminator, at: position) { position += 1 }
            return min(text.count, position + terminator.utf8CodeUnitCount)
        }
        while let open = text[index...].firstIndex(of: UInt8(ascii: "<")) {
            index = open + 1
            if starts("<!--", at: open) {
                index = skip(past: "-->", from: open + 4)
            } else if starts("<![CDATA[", at: open) {
                index = skip(past: "]]>", from: open + 9)
            } else if starts("<dict>", at: open) {
                depth += 1
            } else if starts("</dict>", at: open) {
                depth -= 1
            } else if depth == 1, starts("<key>", at: open) {
                let textStart = open + 5
                guard let close = text[textStart...].firstIndex(of: UInt8(ascii: "<")) else { return }
                body(xmlUnescaped(String(decoding: UnsafeBufferPointer(rebasing: text[textStart..<close]), as: UTF8.self)), open)
                index = close
            }
        }
    }

    private static func xmlEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    /// The five named entities and character references, as a property list's text has them.
    private static func xmlUnescaped(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = "", rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            guard let semicolon = rest[ampersand...].firstIndex(of: ";") else { break }
            let name = rest[rest.index(after: ampersand)..<semicolon]
            let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"][String(name)]
            var scalar: Unicode.Scalar?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                scalar = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
            } else if name.hasPrefix("#") {
                scalar = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init)
            }
            if let named { result += named } else if let scalar { result.unicodeScalars.append(scalar) } else { result += rest[ampersand...semicolon] }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
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
        var format = format
        return format.withUTF8 { bytes in
            var names: [String] = []
            // Most texts name no variable: one pass finds no "#@".
            var index = 0
            while let percent = bytes[index...].firstIndex(of: UInt8(ascii: "%")) {
                index = percent + 1
                // Optional positional argument "N$".
                var cursor = index
                while cursor < bytes.count, (0x30...0x39).contains(bytes[cursor]) { cursor += 1 }
                if cursor > index, cursor < bytes.count, bytes[cursor] == UInt8(ascii: "$") { cursor += 1 }
                guard cursor + 1 < bytes.count, bytes[cursor] == UInt8(ascii: "#"), bytes[cursor + 1] == UInt8(ascii: "@") else { continue }
                let start = cursor + 2
                guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "@")) else { continue }
                names.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
                index = end + 1
            }
            return names
        }
    }
}
