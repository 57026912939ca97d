/// Splits a byte stream into newline-terminated lines, refusing lines longer
/// than a limit. Newline-delimited JSON is the wire format: one message per
/// line, UTF-8, `\n` at the end (a `\r` before it is dropped).
///
/// Memory stays bounded by the limit: a line is refused the moment it
/// passes it — before its newline arrives, if ever — and the rest of it is
/// skipped as it comes.
public struct LineFramer: Sendable {
    /// What a chunk of input produced, in order.
    public enum Output: Equatable, Sendable {
        case line([UInt8])
        /// A line passed the limit; it is skipped up to its newline.
        case overlong
    }

    /// The longest line accepted, in bytes, without its newline.
    public let maximumLineLength: Int
    private var pending: [UInt8] = []
    private var skipping = false

    public init(maximumLineLength: Int) {
        self.maximumLineLength = maximumLineLength
    }

    /// Bytes received and not yet part of a whole line.
    public var bufferedByteCount: Int { pending.count }

    /// Feeds `bytes`; returns the lines (and refusals) they complete.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) -> [Output] {
        var outputs: [Output] = []
        var start = 0
        while start < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[start...])
            let newline = memchr(rest.baseAddress!, 0x0A, rest.count).map { UnsafeRawPointer($0) - rest.baseAddress! }
            let piece = UnsafeRawBufferPointer(rebasing: rest[..<(newline ?? rest.count)])
            start += newline.map { $0 + 1 } ?? rest.count
            if !skipping {
                // The limit counts the line without its "\r\n".
                // A final "\r" may still be the start of "\r\n", so it is not counted yet.
                var length = pending.count + piece.count
                if (piece.last ?? pending.last) == 0x0D { length -= 1 }
                if length > maximumLineLength {
                    outputs.append(.overlong)
                    pending.removeAll()
                    skipping = true
                } else {
                    pending.append(contentsOf: piece)
                }
            }
            if newline != nil {
                if !skipping {
                    if pending.last == 0x0D { pending.removeLast() }
                    outputs.append(.line(pending))
                }
                pending.removeAll(keepingCapacity: true)
                skipping = false
            }
        }
        return outputs
    }

    /// Feeds `bytes` as `append(_:)` of their buffer does.
    public mutating func append(_ bytes: some Collection<UInt8>) -> [Output] {
        Array(bytes).withUnsafeBytes { append($0) }
    }
}

#if canImport(Glibc)
import Glibc
#endif
