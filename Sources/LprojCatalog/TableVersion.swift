import Foundation
import LprojTables

/// A table's version: 16 hex digits that change whenever any key's value,
/// variations or state changes, and are the same in every process and on
/// every machine for the same content (FNV-1a over the entries in key
/// order). An edit made with a version refuses to apply to other content.
public enum TableVersion {
    /// The version of `table`; that of an empty table for none.
    public static func of(_ table: Table?) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func mix<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
        }
        guard let table else { return hex(hash) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for key in table.sortedKeys {
            let entry = table[key]!
            mix(key.utf8)
            mix([0])
            if let text = entry.text {
                mix([1])
                mix(text.utf8)
            } else {
                mix([2])
                mix((try? encoder.encode(entry)) ?? Data())
            }
            mix([0])
        }
        return hex(hash)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
