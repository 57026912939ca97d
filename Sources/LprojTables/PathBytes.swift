/// Path arithmetic on a path's UTF-8 bytes, for code that runs once per
/// file of a crawl (a `String.UTF8View` walked backwards is several times
/// slower than the bytes themselves).
package enum PathBytes {
    /// The byte offset of the last `byte` in `path`, or nil.
    package static func lastOffset(of byte: UInt8, in path: String) -> Int? {
        var path = path
        return path.withUTF8 { $0.lastIndex(of: byte) }
    }
}
