import CByteScan
@_spi(LprojInternals) import LprojTables

/// Copying a quoted string's text up to the byte a `.strings` parser
/// stops at — its closing quote or a backslash — a vector a step: each
/// step loads the bytes, stores them, and compares them with both bytes at
/// once; a step holding a byte ≥ 0x80 (or following one) is also checked
/// as UTF-8 against the three bytes before it, so valid text is read once.
///
/// Thirty-two bytes a step where the processor has AVX2 (`CByteScan`: the
/// UTF-8 check there is three table lookups with a byte shuffle, which
/// SSE2 lacks; and the escapes that stand for one ASCII byte are written
/// there too, so a string is one call), then sixteen: a `SIMD16<UInt8>`
/// comparison compiles to one compare, and `anyLane` to one test; the lane
/// is found only once, where the copy stops.
enum ByteScan {
    /// Copies `source` from `start` to `destination` until the closing
    /// `quote` or a backslash whose escape the caller writes: that byte's
    /// offset (nil: none, all of the rest copied), the bytes written, and,
    /// when `validating`, whether the text copied may not be valid UTF-8
    /// (false: it is; true: check it byte by byte, which names the error).
    /// The bytes before `start` are the ones the text continues (a quote,
    /// or the end of an escape).
    ///
    /// Escapes that stand for one ASCII byte may be written on the way (by
    /// the 32-byte steps; the 16-byte steps stop at every backslash).
    /// Writes whole steps: up to 31 bytes past what it writes, which
    /// `destination` must have room for (`TextBuffer.slack`). `wide: false`
    /// takes sixteen-byte steps only (the steps any x86-64 has; for tests).
    @inline(__always)
    static func copyQuotedText(_ quote: UInt8, from source: UnsafeBufferPointer<UInt8>, at start: Int,
                               to destination: UnsafeMutablePointer<UInt8>, validating: Bool,
                               wide: Bool = true) -> (offset: Int?, written: Int, doubtful: Bool) {
        let count = source.count
        guard let base = source.baseAddress else { return (nil, 0, false) }
        // The check reads the three bytes before each step.
        var doubtful = validating && start < 3
        var position = start, out = destination
        if wide, count - start >= 32, lproj_scan_is_vectorized() != 0 {
            let scan = lproj_scan_copy(base, start, count, destination, quote, validating ? 1 : 0, doubtful ? 1 : 0)
            if scan.stop != Int32(LPROJ_SCAN_NOT_STOPPED) { return (scan.offset, scan.written, scan.doubtful != 0) }
            position = scan.offset
            out += scan.written
            doubtful = scan.doubtful != 0
        }
        let (offset, doubtfulRest) = copyToQuoteOrBackslash(quote, from: source, at: position, to: out, validating: validating,
                                                            doubtful: doubtful)
        return (offset, out - destination + (offset ?? count) - position, doubtfulRest)
    }

    /// The common case of `copyQuotedText`, for a parser to call inline:
    /// the whole string in one call of the 32-byte steps, its closing quote
    /// found and no doubt about its UTF-8 (`validating`) — where it ended
    /// and the bytes written; nil when that is not the case (what it wrote
    /// is then to be written again by `copyQuotedText`).
    @inline(__always)
    static func copyWholeQuotedText(_ quote: UInt8, from source: UnsafeBufferPointer<UInt8>, at start: Int,
                                    to destination: UnsafeMutablePointer<UInt8>, validating: Bool) -> (quote: Int, written: Int)? {
        guard source.count - start >= 32, start >= 3, lproj_scan_is_vectorized() != 0, let base = source.baseAddress else { return nil }
        let scan = lproj_scan_copy(base, start, source.count, destination, quote, validating ? 1 : 0, 0)
        guard scan.stop == Int32(LPROJ_SCAN_QUOTE), scan.doubtful == 0 else { return nil }
        return (scan.offset, scan.written)
    }

    /// Copies from `start` until the first `quote` or backslash, sixteen
    /// bytes a step (see `copyQuotedText`; `doubtful` as found before `start`).
    @inline(__always)
    private static func copyToQuoteOrBackslash(_ quote: UInt8, from source: UnsafeBufferPointer<UInt8>, at start: Int,
                                               to destination: UnsafeMutablePointer<UInt8>, validating: Bool,
                                               doubtful: Bool) -> (offset: Int?, doubtful: Bool) {
        let count = source.count
        guard let base = source.baseAddress else { return (nil, doubtful) }
        let raw = UnsafeRawPointer(base), out = UnsafeMutableRawPointer(destination)
        var doubtful = doubtful
        var position = start
        let quotes = SIMD16<UInt8>(repeating: quote), backslashes = SIMD16<UInt8>(repeating: UInt8(ascii: "\\"))
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
        // left open (these or the 32-byte ones) continues into them. Before the text there are only ASCII
        // bytes (a quote, an escape), or it is doubtful already.
        if validating, position >= 3, (base[position - 1] | base[position - 2] | base[position - 3]) >= 0x80 {
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
