/// UTF-8 checks and encoding without going through `String`. lprojd's own
/// modules' (`@_spi(LprojInternals)`: public so that the parsers' checks inline).
@_spi(LprojInternals)
public enum UTF8Validation {
    /// Whether every byte is ASCII (then the text is valid UTF-8 as it
    /// is), 32 bytes at a time: stops at the first byte that is not.
    @inlinable
    public static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
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
    /// The bytes before `start` are not looked at.
    ///
    /// ASCII goes eight bytes a step; a two- or three-byte character (most
    /// non-Latin text) is checked in one 32-bit word by its bit pattern, and
    /// the next character is looked at directly; only four-byte characters,
    /// errors and the last three bytes take the byte-by-byte path.
    @inlinable
    public static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
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

    /// The lanes of `block` that break UTF-8, given the three bytes before
    /// each lane (`back1` holds the byte before each, and so on): sixteen
    /// bytes checked at once, for text read sixteen bytes a step.
    ///
    /// A byte must be a continuation (10xxxxxx) exactly when a lead byte
    /// one, two or three bytes before asks for one; C0, C1 and F5–FF never
    /// appear; and the byte after E0, ED, F0 and F4 is limited (overlongs,
    /// surrogates, beyond U+10FFFF). A lead byte in the last lanes whose
    /// sequence runs on is not a lane of this block: the next one tells.
    ///
    /// Every test is a masked byte compared for equality, and the masks are
    /// combined with `.&`, `.|` and `.!` only: ordered comparisons of bytes,
    /// `.^` and compound assignment on masks compiled to a loop over the
    /// lanes here.
    @inlinable @inline(__always)
    public static func invalidLanes(_ block: SIMD16<UInt8>, back1: SIMD16<UInt8>, back2: SIMD16<UInt8>, back3: SIMD16<UInt8>) -> SIMDMask<SIMD16<Int8>> {
        let continuation = lanes(of: block, masked: 0xC0, equal: 0x80)
        let expected = lanes(of: back1, masked: 0xC0, equal: 0xC0) .| lanes(of: back2, masked: 0xE0, equal: 0xE0)
            .| lanes(of: back3, masked: 0xF0, equal: 0xF0)
        let misplaced = continuation .& .!expected .| .!continuation .& expected
        // C0, C1 and F5–FF (F0–FF whose low four bits plus 11 carry into the fifth).
        let never = lanes(of: block, masked: 0xFE, equal: 0xC0)
            .| lanes(of: block, masked: 0xF0, equal: 0xF0) .& lanes(of: (block & 0x0F) &+ 0x0B, masked: 0x10, equal: 0x10)
        // After E0 a continuation from A0, after ED below A0, after F0 from 90, after F4 below 90.
        let belowA0 = lanes(of: block, masked: 0x20, equal: 0), below90 = lanes(of: block, masked: 0x30, equal: 0)
        let outOfRange = lanes(of: back1, masked: 0xFF, equal: 0xE0) .& belowA0 .| lanes(of: back1, masked: 0xFF, equal: 0xED) .& .!belowA0
            .| lanes(of: back1, masked: 0xFF, equal: 0xF0) .& below90 .| lanes(of: back1, masked: 0xFF, equal: 0xF4) .& .!below90
        return misplaced .| never .| outOfRange
    }

    /// The lanes where `bytes & mask == value`.
    @inlinable @inline(__always)
    static func lanes(of bytes: SIMD16<UInt8>, masked mask: UInt8, equal value: UInt8) -> SIMDMask<SIMD16<Int8>> {
        bytes & SIMD16(repeating: mask) .== SIMD16(repeating: value)
    }

    /// The length of the well-formed sequence whose lead byte (≥ 0x80) is at `index`, or nil.
    @usableFromInline
    static func sequenceLength(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
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
    @inlinable @inline(__always)
    public static func append(_ scalar: UInt32, to out: inout [UInt8]) {
        let (packed, length) = encoded(scalar)
        for shift in stride(from: 0, to: length * 8, by: 8) { out.append(UInt8(truncatingIfNeeded: packed >> UInt32(shift))) }
    }

    /// The UTF-8 form of `scalar` (a valid scalar value): its bytes from
    /// the lowest (the first byte) up, and how many there are.
    @inlinable @inline(__always)
    public static func encoded(_ scalar: UInt32) -> (packed: UInt32, length: Int) {
        switch scalar {
        case 0..<0x80:
            return (scalar, 1)
        case 0x80..<0x800:
            return (0xC0 | scalar >> 6 | (0x80 | scalar & 0x3F) << 8, 2)
        case 0x800..<0x10000:
            return (0xE0 | scalar >> 12 | (0x80 | scalar >> 6 & 0x3F) << 8 | (0x80 | scalar & 0x3F) << 16, 3)
        default:
            return (0xF0 | scalar >> 18 | (0x80 | scalar >> 12 & 0x3F) << 8 | (0x80 | scalar >> 6 & 0x3F) << 16 | (0x80 | scalar & 0x3F) << 24, 4)
        }
    }
}
