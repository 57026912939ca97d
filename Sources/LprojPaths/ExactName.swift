/// A path or a name compared by its UTF-8 bytes: the one equality for
/// every set, dictionary and filter keyed by a path or a name.
///
/// On Linux two names that differ only in Unicode normalization (`Café`
/// typed on Linux, NFC, beside `Café` copied from a Mac, NFD) are two
/// directories; `String`'s `==` makes them one. Hashed with the tables'
/// fast hash (no `Hasher` set-up per key: catalogs hash 50,000 of them).
public struct ExactName: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The name as text.
    public let string: String

    public init(_ string: String) {
        self.string = string
    }

    public var description: String { string }

    /// Whether `other` has exactly these bytes.
    @inline(__always)
    public func matches(_ other: String) -> Bool {
        PathBytes.equal(string, other)
    }

    /// Whether this path is `ancestor` or lies under it (bytes, component-wise).
    public func isWithin(_ ancestor: String) -> Bool {
        let own = string.utf8, prefix = ancestor.utf8
        guard own.count >= prefix.count, own.starts(with: prefix) else { return false }
        if own.count == prefix.count || prefix.last == UInt8(ascii: "/") { return true }
        return own[own.index(own.startIndex, offsetBy: prefix.count)] == UInt8(ascii: "/")
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ByteHash.hash(string))
    }

    /// What dictionaries and sets use (`Hasher` left out, see `ByteHash.rawHashValue`).
    public func _rawHashValue(seed: Int) -> Int {
        ByteHash.rawHashValue(ByteHash.hash(string), seed: seed)
    }

    public static func == (lhs: ExactName, rhs: ExactName) -> Bool {
        PathBytes.equal(lhs.string, rhs.string)
    }

    /// Byte order (what `ls` in the C locale shows).
    public static func < (lhs: ExactName, rhs: ExactName) -> Bool {
        PathBytes.precedes(lhs.string, rhs.string)
    }
}

extension String {
    /// Whether the two have the same UTF-8 bytes (not canonical equivalence, as `==` has).
    public func hasSameBytes(as other: String) -> Bool {
        PathBytes.equal(self, other)
    }
}
