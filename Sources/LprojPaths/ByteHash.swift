/// The hash a `Table` indexes its keys by: a fast multiply-mix over the
/// key's UTF-8 bytes (in the manner of wyhash), seeded at random once per
/// process so that a hostile file cannot choose keys that all collide.
///
/// Not for anything stored or sent with the process's seed: values differ
/// between processes (what is, a table image, carries the seed it used).
///
/// lprojd's own modules' (`@_spi(LprojInternals)`): public only so that
/// it inlines where tables, names and request views hash in their hot
/// loops, in other modules (a `package` declaration does not inline across
/// modules).
@_spi(LprojInternals)
public enum ByteHash {
    /// The hash of `bytes`.
    @inlinable @inline(__always)
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        hash(bytes, seed: seed)
    }

    /// The hash of `bytes` under `seed` (a table image's index, and its
    /// checksum, carry their own seed: they are read in other processes).
    @inlinable @inline(__always)
    public static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        let count = bytes.count
        var state = seed ^ (UInt64(truncatingIfNeeded: count) &* prime0)
        guard let base = bytes.baseAddress, count > 0 else { return mix(state ^ prime1, prime2) }
        var offset = 0
        while count - offset > 16 {
            let a = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            let b = base.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)
            state = mix(a ^ prime1 ^ state, b ^ prime2)
            offset += 16
        }
        // The last 1...16 bytes, read as (possibly overlapping) words.
        let rest = count - offset
        var a: UInt64, b: UInt64
        if rest >= 8 {
            a = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            b = base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        } else if rest >= 4 {
            a = UInt64(base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            b = UInt64(base.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
        } else {
            let bytes = base.assumingMemoryBound(to: UInt8.self)
            a = UInt64(bytes[offset]) << 16 | UInt64(bytes[offset + rest / 2]) << 8 | UInt64(bytes[count - 1])
            b = 0
        }
        state = mix(a ^ prime1 ^ state, b ^ prime2 ^ state)
        return mix(state ^ prime3, UInt64(truncatingIfNeeded: count) ^ prime1)
    }

    /// The hash of a string's UTF-8 bytes.
    @inlinable @inline(__always)
    public static func hash(_ string: String) -> UInt64 {
        hash(string, seed: seed)
    }

    /// The hash of a string's UTF-8 bytes under `seed` (`seed` kept by a
    /// caller on a hot path: reading this global checks its lazy
    /// initialization on every call).
    @inlinable @inline(__always)
    public static func hash(_ string: String, seed: UInt64) -> UInt64 {
        if let hash = string.utf8.withContiguousStorageIfAvailable({ hash(UnsafeRawBufferPointer($0), seed: seed) }) { return hash }
        var string = string
        return string.withUTF8 { hash(UnsafeRawBufferPointer($0), seed: seed) }
    }

    /// What a `Hashable` type hashed by `hash` returns from
    /// `_rawHashValue(seed:)`: a dictionary's own seed mixed in, without a
    /// `Hasher` (SipHash's set-up and finalization cost more than `hash`).
    @inlinable @inline(__always)
    public static func rawHashValue(_ hash: UInt64, seed: Int) -> Int {
        Int(truncatingIfNeeded: mix(hash ^ UInt64(bitPattern: Int64(seed)), prime3))
    }

    /// Chosen once per process.
    public static let seed = UInt64.random(in: .min ... .max)

    @usableFromInline static var prime0: UInt64 { 0x9E37_79B9_7F4A_7C15 }
    @usableFromInline static var prime1: UInt64 { 0xA076_1D64_78BD_642F }
    @usableFromInline static var prime2: UInt64 { 0xE703_7ED1_A0B4_28DB }
    @usableFromInline static var prime3: UInt64 { 0x8EBC_6AF0_9C88_C6E3 }

    /// Both halves of the full 128-bit product, folded.
    @inlinable @inline(__always)
    static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return product.high ^ product.low
    }
}
