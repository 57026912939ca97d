@_spi(LprojInternals) import LprojPaths
import LprojTables

/// Which table: a bundle directory, a localization in it, a table name.
public struct TableAddress: Hashable, Sendable, Comparable {
    public let bundle: String
    public let localization: String
    public let table: String

    public init(bundle: String, localization: String, table: String) {
        self.bundle = bundle
        self.localization = localization
        self.table = table
    }

    /// A fast hash of the bytes (50,000 served tables hashes
    /// addresses on every insert and again when it grows: SipHash over
    /// three strings each time showed in the crawl).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytesHash)
    }

    /// What dictionaries and sets use (`Hasher` left out, see `ByteHash.rawHashValue`).
    public func _rawHashValue(seed: Int) -> Int {
        ByteHash.rawHashValue(bytesHash, seed: seed)
    }

    private var bytesHash: UInt64 {
        ByteHash.hash(bundle) &+ 31 &* (ByteHash.hash(localization) &+ 31 &* ByteHash.hash(table))
    }

    /// Equal when the bytes are: names that differ only in Unicode
    /// normalization are different directories and files on Linux.
    public static func == (lhs: TableAddress, rhs: TableAddress) -> Bool {
        PathBytes.equal(lhs.table, rhs.table) && PathBytes.equal(lhs.localization, rhs.localization) && PathBytes.equal(lhs.bundle, rhs.bundle)
    }

    public static func < (lhs: TableAddress, rhs: TableAddress) -> Bool {
        // Bytes, as names compare everywhere.
        if !lhs.bundle.hasSameBytes(as: rhs.bundle) { return ExactName(lhs.bundle) < ExactName(rhs.bundle) }
        if !lhs.localization.hasSameBytes(as: rhs.localization) { return ExactName(lhs.localization) < ExactName(rhs.localization) }
        return ExactName(lhs.table) < ExactName(rhs.table)
    }
}
