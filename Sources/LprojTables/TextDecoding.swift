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

/// UTF-8 checks and encoding without going through `String`.
enum UTF8Validation {
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

    /// Whether every byte is ASCII (then the text is valid UTF-8 as it
    /// is), 32 bytes at a time: stops at the first byte that is not.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count, high: UInt64 = 0x8080_8080_8080_8080
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index + 32 <= count {
            let words = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) | raw.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self)
                | raw.loadUnaligned(fromByteOffset: index + 16, as: UInt64.self) | raw.loadUnaligned(fromByteOffset: index + 24, as: UInt64.self)
            if words & high != 0 { return false }
            index += 32
        }
        while index < count {
            if bytes[index] >= 0x80 { return false }
            index += 1
        }
        return true
    }

    /// The offset of the first byte at or after `start` that does not begin a
    /// well-formed UTF-8 sequence (RFC 3629: no overlongs, no surrogates).
    ///
    /// ASCII goes eight bytes a step; a two- or three-byte character (most
    /// non-Latin text) is checked in one 32-bit word by its bit pattern, and
    /// the next character is looked at directly; only four-byte characters,
    /// errors and the last three bytes take the byte-by-byte path.
    static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        var index = start
        while index < count {
            // Skip ASCII eight bytes at a time.
            while index + 8 <= count, raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
            }
            while index < count, base[index] < 0x80 { index += 1 }
            // Multi-byte characters, one after another, while a whole word can be read.
            while index + 4 <= count {
                let word = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt32.self))
                if word & 0x80 == 0 { break }
                if word & 0xC0E0 == 0x80C0 {
                    // 110xxxxx 10xxxxxx, not an overlong C0 or C1.
                    guard word & 0x1E != 0 else { return index }
                    index += 2
                } else if word & 0xC0_C0F0 == 0x80_80E0 {
                    // 1110xxxx 10xxxxxx 10xxxxxx: E0 needs a second byte ≥ A0 (not overlong), ED one < A0 (not a surrogate).
                    let bits = word & 0x200F
                    guard bits != 0, bits != 0x200D else { return index }
                    index += 3
                } else {
                    guard let length = sequenceLength(in: bytes, at: index) else { return index }
                    index += length
                }
            }
            if index < count, base[index] >= 0x80 {
                guard let length = sequenceLength(in: bytes, at: index) else { return index }
                index += length
            }
        }
        return nil
    }

    /// The length of the well-formed sequence whose lead byte (≥ 0x80) is at `index`, or nil.
    private static func sequenceLength(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        let count = bytes.count
        func continuation(_ offset: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            index + offset < count && bytes[index + offset] >= low && bytes[index + offset] <= high
        }
        switch bytes[index] {
        case 0xC2...0xDF:
            return continuation(1) ? 2 : nil
        case 0xE0:
            return continuation(1, 0xA0) && continuation(2) ? 3 : nil
        case 0xE1...0xEC, 0xEE...0xEF:
            return continuation(1) && continuation(2) ? 3 : nil
        case 0xED:
            return continuation(1, 0x80, 0x9F) && continuation(2) ? 3 : nil
        case 0xF0:
            return continuation(1, 0x90) && continuation(2) && continuation(3) ? 4 : nil
        case 0xF1...0xF3:
            return continuation(1) && continuation(2) && continuation(3) ? 4 : nil
        case 0xF4:
            return continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3) ? 4 : nil
        default:
            return nil
        }
    }

    /// Appends the UTF-8 form of `scalar` (which must be a valid scalar value).
    @inline(__always)
    static func append(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            out.append(UInt8(scalar))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | scalar >> 6))
            out.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | scalar >> 12))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        default:
            out.append(UInt8(0xF0 | scalar >> 18))
            out.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}
