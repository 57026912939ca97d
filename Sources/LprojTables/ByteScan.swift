/// Copying a quoted string's text up to the byte a `.strings` parser
/// stops at — its closing quote or a backslash — sixteen bytes a step:
/// each step loads sixteen bytes, stores them, and compares them with both
/// bytes at once; a step holding a byte ≥ 0x80 (or following one) is also
/// checked as UTF-8 against the three bytes before it, so valid text is
/// read once.
///
/// A `SIMD16<UInt8>` comparison compiles to one compare, and `anyLane` to
/// one test; the lane is found only once, where the copy stops.
enum ByteScan {
    /// Copies `source` from `start` to `destination` until the first
    /// `quote` or backslash: the offset of that byte (nil: none, all of
    /// the rest copied), and, when `validating`, whether the text copied
    /// may not be valid UTF-8 (false: it is; true: check it byte by byte,
    /// which names the error). The bytes before `start` are the ones the
    /// text continues (a quote, or the end of an escape).
    ///
    /// Writes whole steps: up to 15 bytes past what it copies, which
    /// `destination` must have room for (`TextBuffer.slack`).
    @inline(__always)
    static func copyToQuoteOrBackslash(_ quote: UInt8, from source: UnsafeBufferPointer<UInt8>, at start: Int,
                                       to destination: UnsafeMutablePointer<UInt8>, validating: Bool) -> (offset: Int?, doubtful: Bool) {
        let count = source.count
        guard let base = source.baseAddress else { return (nil, false) }
        let raw = UnsafeRawPointer(base), out = UnsafeMutableRawPointer(destination)
        let quotes = SIMD16<UInt8>(repeating: quote), backslashes = SIMD16<UInt8>(repeating: UInt8(ascii: "\\"))
        // The check reads the three bytes before each step.
        var doubtful = validating && start < 3
        var position = start
        while position + 16 <= count {
            let block = raw.loadUnaligned(fromByteOffset: position, as: SIMD16<UInt8>.self)
            out.storeBytes(of: block, toByteOffset: position - start, as: SIMD16<UInt8>.self)
            let stops = (block .== quotes) .| (block .== backslashes)
            let stopped = anyLane(stops)
            if validating, !doubtful {
                let back3 = raw.loadUnaligned(fromByteOffset: position - 3, as: SIMD16<UInt8>.self)
                if hasHighBit(block | back3) {
                    let invalid = UTF8Validation.invalidLanes(
                        block, back1: raw.loadUnaligned(fromByteOffset: position - 1, as: SIMD16<UInt8>.self),
                        back2: raw.loadUnaligned(fromByteOffset: position - 2, as: SIMD16<UInt8>.self), back3: back3)
                    // Where the copy stops, only the lanes up to the stop count (a sequence cut short by it included).
                    doubtful = stopped ? anyLane(invalid, through: firstLane(of: stops)) : anyLane(invalid)
                }
            }
            if stopped { return (position + firstLane(of: stops), doubtful) }
            position += 16
        }
        // The last bytes of the source, one at a time (a step would read past its end); a sequence the steps
        // left open continues into them.
        if validating, position > start, base[position - 1] >= 0x80 || position - start > 1 && base[position - 2] >= 0x80
            || position - start > 2 && base[position - 3] >= 0x80 {
            doubtful = true
        }
        while position < count {
            let byte = base[position]
            if byte == quote || byte == UInt8(ascii: "\\") { return (position, doubtful) }
            destination[position - start] = byte
            if byte >= 0x80 { doubtful = validating }
            position += 1
        }
        return (nil, doubtful)
    }

    /// Whether any lane of `mask` is set: its two words tested. (The
    /// standard library's `any(_:)` is a reduction that was sometimes left
    /// as a call here.)
    @inline(__always)
    static func anyLane(_ mask: SIMDMask<SIMD16<Int8>>) -> Bool {
        let words = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        return words[0] | words[1] != 0
    }

    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether a lane of `mask` up to `lane` (0...15) is set.
    @inline(__always)
    private static func anyLane(_ mask: SIMDMask<SIMD16<Int8>>, through lane: Int) -> Bool {
        let words = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        return lane < 8 ? words[0] & below(lane + 1) != 0 : words[0] | words[1] & below(lane - 7) != 0
    }

    /// The first lane set in `mask` (which has one).
    @inline(__always)
    private static func firstLane(of mask: SIMDMask<SIMD16<Int8>>) -> Int {
        let words = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        return words[0] != 0 ? words[0].trailingZeroBitCount / 8 : 8 + words[1].trailingZeroBitCount / 8
    }

    @inline(__always)
    private static func hasHighBit(_ bytes: SIMD16<UInt8>) -> Bool {
        let words = unsafeBitCast(bytes, to: SIMD2<UInt64>.self)
        return (words[0] | words[1]) & highBits != 0
    }

    /// The bytes of a little-endian word before byte `lane` (0...8).
    @inline(__always)
    private static func below(_ lane: Int) -> UInt64 {
        lane == 0 ? 0 : lane == 8 ? ~0 : ~0 >> UInt64(64 - lane * 8)
    }
}
