@_spi(LprojInternals) import LprojTables
/// The character encoding a text table was stored in.
public enum TextEncoding: String, Hashable, Sendable {
    case utf8 = "UTF-8"
    case utf8WithBOM = "UTF-8 with BOM"
    case utf16BigEndian = "UTF-16BE"
    case utf16LittleEndian = "UTF-16LE"
    case utf32BigEndian = "UTF-32BE"
    case utf32LittleEndian = "UTF-32LE"
}

/// A text file turned into UTF-8, with what was wrong on the way.
struct DecodedText {
    typealias Problem = TextProblem

    /// The text transcoded to UTF-8; nil when the input already is UTF-8,
    /// which is then used in place from `utf8Start` on.
    var transcoded: [UInt8]?
    var utf8Start = 0
    var encoding: TextEncoding
    /// Whether the UTF-8 text still needs validating (it came in as UTF-8;
    /// transcoded text is valid by construction). The parser validates as it
    /// reads, so valid text is read once.
    var needsValidation: Bool { transcoded == nil }
    var problems: [Problem] = []

    /// Most invalid sequences reported for one file; a binary file would
    /// otherwise produce thousands.
    static let maximumReportedProblems = 10

    /// Detects the encoding as CoreFoundation does (BOM; a zero in byte 0 or
    /// 1 means UTF-16) and also recognises BOM-less UTF-16LE, with a warning.
    init(bytes: UnsafeBufferPointer<UInt8>) {
        let count = bytes.count
        func at(_ index: Int) -> UInt8 { index < count ? bytes[index] : 0xAA }
        if count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            self.init(utf8: UnsafeBufferPointer(rebasing: bytes[3...]), encoding: .utf8WithBOM, byteBase: 3)
        } else if count >= 4, bytes[0] == 0, bytes[1] == 0, bytes[2] == 0xFE, bytes[3] == 0xFF {
            self.init(utf32: UnsafeBufferPointer(rebasing: bytes[4...]), bigEndian: true)
        } else if count >= 4, bytes[0] == 0xFF, bytes[1] == 0xFE, bytes[2] == 0, bytes[3] == 0 {
            self.init(utf32: UnsafeBufferPointer(rebasing: bytes[4...]), bigEndian: false)
        } else if count >= 2, bytes[0] == 0xFF, bytes[1] == 0xFE {
            self.init(utf16: UnsafeBufferPointer(rebasing: bytes[2...]), bigEndian: false)
        } else if count >= 2, bytes[0] == 0xFE, bytes[1] == 0xFF {
            self.init(utf16: UnsafeBufferPointer(rebasing: bytes[2...]), bigEndian: true)
        } else if count >= 2, (bytes[0] == 0) != (bytes[1] == 0) {
            // No BOM, but a zero byte in the first two: UTF-16. Foundation on
            // Linux fails on both byte orders without a BOM; we read them.
            let bigEndian = bytes[0] == 0
            self.init(utf16: bytes, bigEndian: bigEndian)
            problems.insert(Problem(
                severity: .warning, offset: 0,
                message: "file is UTF-16 \(bigEndian ? "big" : "little")-endian without a byte order mark; Foundation cannot read it",
                hint: "save it as UTF-8, or as UTF-16 with a BOM"), at: 0)
        } else {
            self.init(utf8: bytes, encoding: .utf8, byteBase: 0)
        }
    }

    /// Calls `body` with the UTF-8 text of `input` (the bytes this was made from).
    func withUTF8<Result>(of input: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let transcoded { return transcoded.withUnsafeBufferPointer(body) }
        return body(UnsafeBufferPointer(rebasing: input[utf8Start...]))
    }

    private init(utf8 bytes: UnsafeBufferPointer<UInt8>, encoding: TextEncoding, byteBase: Int) {
        self.transcoded = nil
        self.utf8Start = byteBase
        self.encoding = encoding
    }

    private init(utf16 bytes: UnsafeBufferPointer<UInt8>, bigEndian: Bool) {
        encoding = bigEndian ? .utf16BigEndian : .utf16LittleEndian
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        let unitCount = bytes.count / 2
        var loneSurrogates = 0
        func unit(_ index: Int) -> UInt32 {
            let a = UInt32(bytes[2 * index]), b = UInt32(bytes[2 * index + 1])
            return bigEndian ? (a << 8 | b) : (b << 8 | a)
        }
        var index = 0
        while index < unitCount {
            var scalar = unit(index)
            index += 1
            if scalar >= 0xD800 && scalar < 0xDC00, index < unitCount {
                let low = unit(index)
                if low >= 0xDC00 && low < 0xE000 {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    index += 1
                }
            }
            if scalar >= 0xD800 && scalar < 0xE000 {
                if loneSurrogates < Self.maximumReportedProblems {
                    problems.append(Problem(severity: .warning, offset: out.count,
                                            message: "unpaired UTF-16 surrogate 0x\(String(scalar, radix: 16, uppercase: true)) replaced by U+FFFD"))
                }
                loneSurrogates += 1
                scalar = 0xFFFD
            }
            UTF8Validation.append(scalar, to: &out)
        }
        transcoded = out
        if bytes.count % 2 == 1 {
            problems.append(Problem(severity: .error, offset: out.count,
                                    message: "UTF-16 text ends in the middle of a character (odd number of bytes)",
                                    hint: "the file was cut short"))
        }
    }

    private init(utf32 bytes: UnsafeBufferPointer<UInt8>, bigEndian: Bool) {
        encoding = bigEndian ? .utf32BigEndian : .utf32LittleEndian
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 2)
        var index = 0
        while index + 4 <= bytes.count {
            let b = (0..<4).map { UInt32(bytes[index + $0]) }
            var scalar = bigEndian ? (b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]) : (b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0])
            if Unicode.Scalar(scalar) == nil {
                problems.append(Problem(severity: .error, offset: out.count,
                                        message: "invalid UTF-32 code point 0x\(String(scalar, radix: 16, uppercase: true))"))
                scalar = 0xFFFD
            }
            UTF8Validation.append(scalar, to: &out)
            index += 4
        }
        transcoded = out
        if bytes.count % 4 != 0 {
            problems.append(Problem(severity: .error, offset: out.count,
                                    message: "UTF-32 text ends in the middle of a character", hint: "the file was cut short"))
        }
    }
}

/// A problem found while reading text, at a byte offset of the UTF-8 text.
struct TextProblem {
    var severity: Diagnostic.Severity
    var offset: Int
    var message: String
    var hint: String?
}

extension UTF8Validation {
    /// Errors for each invalid sequence in `range` of `bytes`, at most `limit`.
    /// `byteBase` turns offsets into file offsets for the message.
    static func problems(in bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>, byteBase: Int, limit: Int) -> [TextProblem] {
        var problems: [TextProblem] = []
        let slice = UnsafeBufferPointer(rebasing: bytes[..<range.upperBound])
        var index = range.lowerBound
        while problems.count < limit, let bad = firstInvalidOffset(in: slice, from: index) {
            let byte = String(bytes[bad], radix: 16, uppercase: true)
            problems.append(TextProblem(
                severity: .error, offset: bad,
                message: "invalid UTF-8: byte 0x\(byte.count == 1 ? "0" + byte : byte) at byte offset \(bad + byteBase) is not part of a valid character",
                hint: "the file is probably in a legacy encoding; convert it to UTF-8"))
            index = bad + 1
        }
        return problems
    }
}
