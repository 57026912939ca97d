/// A reader for the one shape of binary property list a compiled `.strings`
/// file has: a dictionary of strings (Xcode writes `bplist00`). Anything
/// else — other value types, a damaged file — returns nil, and the caller
/// falls back to Foundation, which also words the error. Every offset is
/// bounds-checked: the bytes may be hostile.
enum BinaryPropertyList {
    /// The string dictionary in `bytes`, or nil when it is not that simple shape.
    static func stringDictionary(_ bytes: UnsafeBufferPointer<UInt8>) -> [String: Entry]? {
        let count = bytes.count
        guard count >= 8 + 32 else { return nil }
        // Trailer: 6 unused bytes, offset size, reference size, then three big-endian 64-bit numbers.
        let trailer = count - 32
        let offsetSize = Int(bytes[trailer + 6]), referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
              let objectCount = number(bytes, at: trailer + 8, size: 8),
              let topObject = number(bytes, at: trailer + 16, size: 8),
              let tableOffset = number(bytes, at: trailer + 24, size: 8),
              objectCount > 0, objectCount < count, topObject < objectCount,
              // Foundation insists the offset table ends exactly where the trailer begins.
              tableOffset >= 9, tableOffset + objectCount * offsetSize == trailer else { return nil }

        func objectOffset(_ reference: Int) -> Int? {
            guard reference >= 0, reference < objectCount,
                  let offset = number(bytes, at: tableOffset + reference * offsetSize, size: offsetSize),
                  offset >= 8, offset < tableOffset else { return nil }
            return offset
        }

        /// The marker's count: its low nibble, or a following integer object when 0xF.
        func length(at offset: Int) -> (count: Int, start: Int)? {
            let low = Int(bytes[offset] & 0x0F)
            guard low == 0x0F else { return (low, offset + 1) }
            guard offset + 1 < count, bytes[offset + 1] & 0xF0 == 0x10 else { return nil }
            let size = 1 << Int(bytes[offset + 1] & 0x0F)
            guard size <= 8, let value = number(bytes, at: offset + 2, size: size), value >= 0 else { return nil }
            return (value, offset + 2 + size)
        }

        var scratch: [UInt8] = []
        func string(_ reference: Int) -> String? {
            guard let offset = objectOffset(reference), let (length, start) = length(at: offset) else { return nil }
            switch bytes[offset] & 0xF0 {
            case 0x50:   // ASCII: CoreFoundation writes this form only when every byte is 7-bit
                guard start + length <= tableOffset else { return nil }
                let text = UnsafeBufferPointer(rebasing: bytes[start..<start + length])
                guard !text.contains(where: { $0 >= 0x80 }) else { return nil }
                return String(decoding: text, as: UTF8.self)
            case 0x60:   // UTF-16, big-endian
                guard length <= (tableOffset - start) / 2 else { return nil }
                // Transcoded by hand: String(decoding:as: UTF16.self) takes a slow generic path.
                scratch.removeAll(keepingCapacity: true)
                var index = 0
                func unit(_ index: Int) -> UInt32 { UInt32(bytes[start + 2 * index]) << 8 | UInt32(bytes[start + 2 * index + 1]) }
                while index < length {
                    var scalar = unit(index)
                    index += 1
                    if scalar >= 0xD800, scalar < 0xDC00, index < length, unit(index) >= 0xDC00, unit(index) < 0xE000 {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (unit(index) - 0xDC00)
                        index += 1
                    } else if scalar >= 0xD800, scalar < 0xE000 {
                        scalar = 0xFFFD
                    }
                    UTF8Validation.append(scalar, to: &scratch)
                }
                return String(decoding: scratch, as: UTF8.self)
            default:
                return nil
            }
        }

        guard let root = objectOffset(topObject), bytes[root] & 0xF0 == 0xD0,
              let (entryCount, start) = length(at: root),
              entryCount <= objectCount, start + 2 * entryCount * referenceSize <= tableOffset else { return nil }
        var entries: [String: Entry] = [:]
        entries.reserveCapacity(entryCount)
        for index in 0..<entryCount {
            guard let keyReference = number(bytes, at: start + index * referenceSize, size: referenceSize),
                  let valueReference = number(bytes, at: start + (entryCount + index) * referenceSize, size: referenceSize),
                  let key = string(keyReference), let value = string(valueReference) else { return nil }
            // A key twice: which value Foundation keeps is its business — let it decide.
            guard entries.updateValue(Entry(text: value), forKey: key) == nil else { return nil }
        }
        return entries
    }

    /// A big-endian unsigned number of `size` bytes at `offset`; nil past the end or beyond Int.
    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, size: Int) -> Int? {
        guard offset >= 0, size <= 8, offset <= bytes.count - size else { return nil }
        var value: UInt64 = 0
        for index in 0..<size { value = value << 8 | UInt64(bytes[offset + index]) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }
}
