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
    package static func equal(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs, rhs = rhs
        return lhs.withUTF8 { left in rhs.withUTF8 { right in left.elementsEqual(right) } }
    }
}
