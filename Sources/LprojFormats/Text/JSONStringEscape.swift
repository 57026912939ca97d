import LprojTables
/// The one-character escapes of a JSON string (RFC 8259, section 7), for
/// the readers that decode strings themselves (`CatalogJSON`, the
/// protocol's one-pass scans).
public enum JSONStringEscape {
    /// The byte `\` + `escape` stands for; nil for `u` (four hex digits
    /// follow) and for an escape JSON does not have.
    public static func byte(for escape: UInt8) -> UInt8? {
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return escape
        case UInt8(ascii: "b"): return 0x08
        case UInt8(ascii: "f"): return 0x0C
        case UInt8(ascii: "n"): return 0x0A
        case UInt8(ascii: "r"): return 0x0D
        case UInt8(ascii: "t"): return 0x09
        default: return nil
        }
    }
}
