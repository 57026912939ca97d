import LprojTables
extension TextEncoding {
    /// The byte order mark this encoding writes first (empty for plain UTF-8).
    var byteOrderMark: [UInt8] {
        switch self {
        case .utf8: return []
        case .utf8WithBOM: return [0xEF, 0xBB, 0xBF]
        case .utf16BigEndian: return [0xFE, 0xFF]
        case .utf16LittleEndian: return [0xFF, 0xFE]
        case .utf32BigEndian: return [0, 0, 0xFE, 0xFF]
        case .utf32LittleEndian: return [0xFF, 0xFE, 0, 0]
        }
    }

    /// Valid UTF-8 `text` in this encoding, after the byte order mark when
    /// `byteOrderMark` is set.
    func encode(_ text: [UInt8], byteOrderMark: Bool) -> [UInt8] {
        var output = byteOrderMark ? self.byteOrderMark : []
        switch self {
        case .utf8, .utf8WithBOM:
            output += text
        case .utf16BigEndian, .utf16LittleEndian:
            output.reserveCapacity(output.count + text.count * 2)
            let bigEndian = self == .utf16BigEndian
            for unit in String(decoding: text, as: UTF8.self).utf16 {
                let (high, low) = (UInt8(unit >> 8), UInt8(unit & 0xFF))
                output += bigEndian ? [high, low] : [low, high]
            }
        case .utf32BigEndian, .utf32LittleEndian:
            let bigEndian = self == .utf32BigEndian
            for scalar in String(decoding: text, as: UTF8.self).unicodeScalars {
                let value = scalar.value
                let bytes = [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
                output += bigEndian ? bytes : bytes.reversed()
            }
        }
        return output
    }
}
