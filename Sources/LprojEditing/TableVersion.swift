import Foundation
import LprojTables

/// A table's version: 16 hex digits that change whenever any key's value,
/// variations or state changes, and are the same in every process and on
/// every machine for the same content (FNV-1a of each entry, summed). An
/// edit made with a version refuses to apply to other content.
public enum TableVersion {
    /// The version of `table`; that of an empty table for none.
    public static func of(_ table: Table?) -> String {
        guard let table else { return hex(0) }
        // Each entry hashed on its own and the hashes added: no order of keys to sort.
        var sum = UInt64(truncatingIfNeeded: table.count) &* 0x9E37_79B9_7F4A_7C15
        for (key, entry) in table { sum = sum &+ hash(key, entry) }
        return hex(sum)
    }

    /// The version of one key's entry (`key` absent: that of no entry): what
    /// an edit of that key alone expects, so that a change to another key of
    /// the table is no conflict.
    public static func of(_ entry: Entry?, key: String) -> String {
        guard let entry else { return hex(0) }
        return hex(hash(key, entry))
    }

    /// FNV-1a of the key and the entry, finally mixed so that sums of similar entries do not cancel.
    private static func hash(_ key: String, _ entry: Entry) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func mix(_ bytes: UnsafeRawBufferPointer) {
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
        }
        var key = key
        key.withUTF8 { mix(UnsafeRawBufferPointer($0)) }
        if var text = entry.text {
            hash = (hash ^ 1) &* 0x0000_0100_0000_01B3
            text.withUTF8 { mix(UnsafeRawBufferPointer($0)) }
        } else {
            // A rule by its structure (keys sorted, each string ended by 0xFF, which UTF-8 never holds): as certain as
            // its JSON form and without an encoder.
            hash = (hash ^ 2) &* 0x0000_0100_0000_01B3
            func text(_ value: String) {
                var value = value
                value.withUTF8 { mix(UnsafeRawBufferPointer($0)) }
                withUnsafeBytes(of: UInt8(0xFF)) { mix($0) }
            }
            func variants(_ value: Variants) {
                switch value {
                case .text(let string): text("t"); text(string)
                case .plural(let forms):
                    text("p")
                    for name in forms.keys.sorted() { text(name); variants(forms[name]!) }
                case .device(let forms):
                    text("d")
                    for name in forms.keys.sorted() { text(name); variants(forms[name]!) }
                }
            }
            variants(entry.value)
            for name in entry.substitutions.keys.sorted() {
                let substitution = entry.substitutions[name]!
                text("s"); text(name); text(substitution.argumentNumber.map(String.init) ?? ""); text(substitution.formatSpecifier ?? "")
                variants(substitution.variants)
            }
            text(entry.state?.rawValue ?? "")
        }
        hash ^= hash >> 29
        hash = hash &* 0xBF58_476D_1CE4_E5B9
        hash ^= hash >> 32
        return hash
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
