#if canImport(Glibc)
import Glibc
#endif

/// The three kinds of file a localization's tables come from.
public enum TableFormat: String, Hashable, Sendable, CaseIterable {
    case strings
    case stringsdict
    case xcstrings

    /// The format of a file, by its extension; nil for any other file.
    public init?(path: String) {
        // On the UTF-8 bytes: this runs for every file a crawl meets.
        var path = path
        guard let format = path.withUTF8({ bytes -> TableFormat? in
            guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), (bytes.lastIndex(of: UInt8(ascii: "/")) ?? -1) < dot else { return nil }
            return TableFormat(extension: UnsafeBufferPointer(rebasing: bytes[(dot + 1)...]))
        }) else { return nil }
        self = format
    }

    /// The format whose extension (without the dot) is `bytes`.
    public init?(extension bytes: UnsafeBufferPointer<UInt8>) {
        let candidate: TableFormat
        let name: StaticString
        switch bytes.count {
        case 7: (candidate, name) = (.strings, "strings")
        case 11: (candidate, name) = (.stringsdict, "stringsdict")
        case 9: (candidate, name) = (.xcstrings, "xcstrings")
        default: return nil
        }
        guard memcmp(bytes.baseAddress!, name.utf8Start, bytes.count) == 0 else { return nil }
        self = candidate
    }
}
