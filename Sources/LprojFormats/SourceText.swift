import LprojTables
/// UTF-8 text of a file with the means to turn a byte offset into a line and
/// column. Line starts are computed only when a diagnostic needs them.
struct SourceText {
    let bytes: [UInt8]
    private var lineStarts: [Int]?

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// A text whose line starts are found now: for a reader that looks up many
    /// locations through copies (`KeyLocations`), which would each find them again.
    init(linesOf bytes: [UInt8]) {
        self.bytes = bytes
        lineStarts = Self.lineStarts(of: bytes)
    }

    /// The 1-based line and character column of `offset`.
    mutating func location(of offset: Int) -> (line: Int, column: Int) {
        if lineStarts == nil { lineStarts = Self.lineStarts(of: bytes) }
        let starts = lineStarts!
        let clamped = max(0, min(offset, bytes.count))
        // Binary search: last line start <= clamped.
        var low = 0, high = starts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if starts[mid] <= clamped { low = mid } else { high = mid - 1 }
        }
        let lineStart = starts[low]
        let prefix = String(decoding: bytes[lineStart..<clamped], as: UTF8.self)
        return (low + 1, prefix.count + 1)
    }

    /// Offsets at which lines start; a line ends at `\n`, `\r` or `\r\n`.
    static func lineStarts(of bytes: [UInt8]) -> [Int] {
        var starts = [0]
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte == 0x0A {
                starts.append(index + 1)
            } else if byte == 0x0D {
                if index + 1 < count, bytes[index + 1] == 0x0A { index += 1 }
                starts.append(index + 1)
            }
            index += 1
        }
        return starts
    }
}

/// Collects diagnostics by byte offset and places them on lines and columns.
struct DiagnosticSink {
    let file: String
    var source: SourceText
    private(set) var diagnostics: [Diagnostic] = []

    init(file: String, bytes: [UInt8]) {
        self.file = file
        self.source = SourceText(bytes: bytes)
    }

    mutating func report(_ severity: Diagnostic.Severity, at offset: Int, _ message: String, hint: String? = nil, rule: Diagnostic.Rule? = nil) {
        let (line, column) = source.location(of: offset)
        diagnostics.append(Diagnostic(file: file, line: line, column: column, severity: severity, message: message, hint: hint, rule: rule))
    }

    mutating func report(_ severity: Diagnostic.Severity, line: Int, column: Int, _ message: String, hint: String? = nil) {
        diagnostics.append(Diagnostic(file: file, line: line, column: column, severity: severity, message: message, hint: hint))
    }
}
