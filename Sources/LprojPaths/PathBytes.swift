#if canImport(Glibc)
import Glibc
#endif

/// Path arithmetic on a path's UTF-8 bytes, for code that runs once per
/// file of a crawl (a `String.UTF8View` walked backwards is several times
/// slower than the bytes themselves).
package enum PathBytes {
    /// The byte offset of the last `byte` in `path`, or nil.
    package static func lastOffset(of byte: UInt8, in path: String) -> Int? {
        var path = path
        return path.withUTF8 { $0.lastIndex(of: byte) }
    }

    /// Whether two strings have the same UTF-8 bytes (`==` on strings also
    /// equates canonically equivalent ones: two different names on Linux).
    @inline(__always)
    package static func equal(_ lhs: String, _ rhs: String) -> Bool {
        // The count is stored (native strings): most different paths stop here.
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        return rhs.utf8.withContiguousStorageIfAvailable { equal(lhs, $0) } ?? lhs.utf8.elementsEqual(rhs.utf8)
    }

    /// Whether `lhs`'s UTF-8 bytes sort before `rhs`'s (byte order: what
    /// `ls` in the C locale shows). memcmp over contiguous storage: sorting
    /// 50,000 addresses with the generic comparison showed in a deploy's swap.
    @inline(__always)
    package static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        let result = lhs.utf8.withContiguousStorageIfAvailable { own in
            rhs.utf8.withContiguousStorageIfAvailable { other -> Bool in
                let shared = min(own.count, other.count)
                let order = shared == 0 ? 0 : memcmp(own.baseAddress!, other.baseAddress!, shared)
                return order != 0 ? order < 0 : own.count < other.count
            }
        }
        return (result ?? nil) ?? lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    /// Whether a string's UTF-8 bytes are `bytes`.
    @inline(__always)
    package static func equal(_ string: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let utf8 = string.utf8
        guard utf8.count == bytes.count else { return false }
        guard let other = bytes.baseAddress, !bytes.isEmpty else { return true }
        return utf8.withContiguousStorageIfAvailable { own in
            own.baseAddress == other || memcmp(own.baseAddress!, other, own.count) == 0
        } ?? utf8.elementsEqual(bytes)
    }
}
