#if canImport(Glibc)
import Glibc
#endif

/// The growing UTF-8 text of a table being made: one allocation, written
/// through its pointer. A parser copies a string straight into the room
/// past `count` sixteen bytes at a time (`room(for:)`), so the buffer
/// always keeps `slack` bytes beyond what it was asked for.
///
/// Not copyable: it owns its memory (from `malloc`, so that `released`
/// can hand it on shrunk in place), and a copy would share it.
///
/// lprojd's own modules' (`@_spi(LprojInternals)`): public only so that
/// what a parser calls for every string inlines — the parsers live in
/// LprojFormats, and a call across the module for each string cost them a
/// tenth of their speed (a `package` declaration does not inline across modules).
@_spi(LprojInternals)
public struct TextBuffer: ~Copyable {
    /// Bytes of text.
    @inlinable public var count: Int { stored }
    @usableFromInline var stored = 0
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int

    /// Bytes writable past any room asked for (a vector's width).
    static let slack = 32

    init(capacity: Int = 0) {
        self.capacity = max(capacity, 64)
        base = Self.allocate(self.capacity + Self.slack)
    }

    deinit { free(base) }

    /// The text, in memory now the caller's to `free`: shrunk to its
    /// size (in place: what is past it goes back to `malloc`).
    consuming func released() -> UnsafeMutableBufferPointer<UInt8> {
        let text = UnsafeMutableBufferPointer(start: realloc(base, max(stored, 1))!.assumingMemoryBound(to: UInt8.self), count: stored)
        discard self
        return text
    }

    /// Where the next `bytes` bytes (and `slack` more) can be written;
    /// `count` moves only with `commit`.
    @inlinable @inline(__always)
    public mutating func room(for bytes: Int) -> UnsafeMutablePointer<UInt8> {
        if stored + bytes > capacity { grow(to: stored + bytes) }
        return base + stored
    }

    /// Makes `bytes` written into the room part of the text.
    @inlinable @inline(__always)
    public mutating func commit(_ bytes: Int) {
        stored += bytes
    }

    @inlinable @inline(__always)
    public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        room(for: bytes.count).update(from: source, count: bytes.count)
        stored += bytes.count
    }

    @inlinable
    public mutating func append(_ byte: UInt8) {
        room(for: 1).pointee = byte
        stored += 1
    }

    @inlinable
    public mutating func append(contentsOf bytes: some Collection<UInt8>) {
        let destination = room(for: bytes.count)
        _ = UnsafeMutableBufferPointer(start: destination, count: bytes.count).initialize(from: bytes)
        stored += bytes.count
    }

    /// Appends the UTF-8 form of `scalar` (a valid scalar value).
    @inlinable @inline(__always)
    public mutating func append(scalar: UInt32) {
        let (packed, length) = UTF8Validation.encoded(scalar)
        UnsafeMutableRawPointer(room(for: 4)).storeBytes(of: packed.littleEndian, as: UInt32.self)
        stored += length
    }

    /// Drops the text from `offset` on.
    @inlinable
    public mutating func truncate(to offset: Int) {
        precondition(offset <= stored)
        stored = offset
    }

    /// Replaces the text from `offset` on with `bytes`.
    @inlinable
    public mutating func replace(from offset: Int, with bytes: some Collection<UInt8>) {
        truncate(to: offset)
        append(contentsOf: bytes)
    }

    /// The text (valid only during `body`).
    @inlinable
    public func withUnsafeBufferPointer<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: base, count: stored))
    }

    @usableFromInline
    mutating func grow(to needed: Int) {
        var newCapacity = max(capacity * 2, 64)
        while newCapacity < needed { newCapacity *= 2 }
        guard let grown = realloc(base, newCapacity + Self.slack) else { fatalError("out of memory for \(newCapacity) bytes of text") }
        base = grown.assumingMemoryBound(to: UInt8.self)
        capacity = newCapacity
    }

    private static func allocate(_ bytes: Int) -> UnsafeMutablePointer<UInt8> {
        guard let memory = malloc(bytes) else { fatalError("out of memory for \(bytes) bytes of text") }
        return memory.assumingMemoryBound(to: UInt8.self)
    }
}
