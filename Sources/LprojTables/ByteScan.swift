/// Finding the bytes a `.strings` parser stops at, sixteen at a time: a
/// string's closing quote or a backslash, and whether any byte passed over
/// was not ASCII (only such text needs its UTF-8 checked).
///
/// Words, not `SIMD16`: the standard library's vector masks compile to a
/// store per lane here, and two 64-bit words compared as bytes (the
/// "has a zero byte" test) are what the machine does fast.
enum ByteScan {
    /// The offset of the first `quote` or backslash in `bytes` at or after
    /// `start` (nil: none), and whether a byte ≥ 0x80 came before it.
    @inline(__always)
    static func firstQuoteOrBackslash(_ quote: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (offset: Int?, sawNonASCII: Bool) {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return (nil, false) }
        let quotes = ones &* UInt64(quote), backslashes = ones &* UInt64(UInt8(ascii: "\\"))
        var seen: UInt64 = 0
        var position = start
        while position + 16 <= count {
            let low = UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)
            let high = UnsafeRawPointer(base + position + 8).loadUnaligned(as: UInt64.self)
            let foundLow = zeroBytes(low ^ quotes) | zeroBytes(low ^ backslashes)
            let foundHigh = zeroBytes(high ^ quotes) | zeroBytes(high ^ backslashes)
            if foundLow | foundHigh != 0 {
                // The lowest marked byte is exact (a false mark only ever follows a true one); only bytes before it count.
                if foundLow != 0 {
                    let lane = foundLow.trailingZeroBitCount / 8
                    return (position + lane, (seen | low & below(lane)) & highBits != 0)
                }
                let lane = foundHigh.trailingZeroBitCount / 8
                return (position + 8 + lane, (seen | low | high & below(lane)) & highBits != 0)
            }
            seen |= low | high
            position += 16
        }
        var sawNonASCII = seen & highBits != 0
        while position < count {
            let byte = base[position]
            if byte == quote || byte == UInt8(ascii: "\\") { return (position, sawNonASCII) }
            if byte >= 0x80 { sawNonASCII = true }
            position += 1
        }
        return (nil, sawNonASCII)
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// The high bit of each byte of `word` that is zero (exact up to the lowest one).
    @inline(__always)
    private static func zeroBytes(_ word: UInt64) -> UInt64 {
        (word &- ones) & ~word & highBits
    }

    /// The bytes of a little-endian word before byte `lane` (0...7).
    @inline(__always)
    private static func below(_ lane: Int) -> UInt64 {
        lane == 0 ? 0 : ~0 >> UInt64(64 - lane * 8)
    }
}
