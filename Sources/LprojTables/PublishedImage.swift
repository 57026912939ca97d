#if canImport(Glibc)
import Glibc
#endif
@_spi(LprojInternals) import LprojPaths

/// A table image as lprojd publishes it, in a directory a process reads
/// without asking the daemon (docs/PROTOCOL.md, "Published images"): the
/// file's name comes from the table's address, and the file names the
/// address it holds before the image, so two addresses whose names
/// collide are told apart.
///
/// Layout: magic `lprojpub` (8 bytes), the address's byte count (UInt32,
/// native byte order) and four zero bytes, the address (bundle, NUL,
/// localization, NUL, table, as UTF-8), zeros to a multiple of 8, then
/// the table's image (`TableImage`).
public enum PublishedImage {
    /// The file name of the table at this address: 16 hex digits of a
    /// fixed hash of the address, then `.image`.
    public static func name(bundle: String, localization: String, table: String) -> String {
        let hash = address(bundle: bundle, localization: localization, table: table).withUnsafeBytes { ByteHash.hash($0, seed: nameSeed) }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits + suffix
    }

    /// What names a published image (a file of another name in the directory is not one).
    public static let suffix = ".image"

    /// The file's bytes for `image` (`TableImage.encode`) of the table at this address.
    public static func encode(bundle: String, localization: String, table: String, image: [UInt8]) -> [UInt8] {
        let address = address(bundle: bundle, localization: localization, table: table)
        var bytes = [UInt8](repeating: 0, count: headerSize)
        bytes.withUnsafeMutableBytes { header in
            header.storeBytes(of: magic, as: UInt64.self)
            header.storeBytes(of: UInt32(address.count), toByteOffset: 8, as: UInt32.self)
        }
        bytes += address
        bytes += [UInt8](repeating: 0, count: TableImage.padded(bytes.count) - bytes.count)
        return bytes + image
    }

    /// The table published in the file open at `descriptor`, mapped
    /// read-only, when it holds the table at this address; refused
    /// otherwise — another address, another format, a damaged or truncated
    /// image, more than `maximumBytes`. The file must not change while the
    /// table is used: lprojd never writes a published file again (it writes
    /// a new one and renames it over the old), and only the directory's
    /// owner could.
    public static func table(mapping descriptor: Int32, bundle: String, localization: String, table: String,
                             maximumBytes: Int = 1 << 30) throws(TableImage.Refusal) -> Table {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw TableImage.Refusal("cannot inspect the published image: \(String(cString: strerror(errno)))") }
        guard info.st_size >= headerSize, info.st_size <= maximumBytes else {
            throw TableImage.Refusal("a published image of \(info.st_size) bytes (at least \(headerSize), at most \(maximumBytes))")
        }
        let size = Int(info.st_size)
        // Populated at once: the checks read every page, and one call maps them cheaper than a fault each.
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, descriptor, 0), base != MAP_FAILED else {
            throw TableImage.Refusal("cannot map the published image: \(String(cString: strerror(errno)))")
        }
        let mapping = ImageMapping(base: base, length: size)
        let bytes = UnsafeRawBufferPointer(start: base, count: size)
        let expected = address(bundle: bundle, localization: localization, table: table)
        guard bytes.load(as: UInt64.self) == magic else { throw TableImage.Refusal("not a published image (no lprojpub magic)") }
        let length = Int(bytes.load(fromByteOffset: 8, as: UInt32.self))
        let imageStart = TableImage.padded(headerSize + length)
        guard length == expected.count, imageStart <= size,
              expected.withUnsafeBytes({ $0.elementsEqual(UnsafeRawBufferPointer(rebasing: bytes[headerSize..<headerSize + length])) }) else {
            throw TableImage.Refusal("the published image holds another table")
        }
        return try TableImage.table(in: UnsafeRawBufferPointer(rebasing: bytes[imageStart...]), owner: mapping)
    }

    // MARK: - Layout

    static let headerSize = 16
    /// `lprojpub` as the first eight bytes.
    static let magic = UInt64(littleEndian: 0x6275_706A_6F72_706C)
    /// A fixed seed: a name means the same to the daemon and every client.
    private static let nameSeed: UInt64 = 0x6C70_726F_6A64_0002

    private static func address(bundle: String, localization: String, table: String) -> [UInt8] {
        Array(bundle.utf8) + [0] + Array(localization.utf8) + [0] + Array(table.utf8)
    }
}
