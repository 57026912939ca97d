import Foundation

extension Table {
    /// A 64-bit digest of the table's contents: the same keys with the same
    /// values give the same digest, in any order, in any process (FNV-1a
    /// over each key and plain value's UTF-8, mixed and summed; a rule entry
    /// by its sorted-key JSON). Read from the table's bytes: no entry is
    /// made (a table whose entries are made as they are looked up stays so).
    public func contentDigest() -> UInt64 {
        var sum: UInt64 = 0
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        storage.withIndex { index in
            for position in 0..<count {
                var hash = Self.fnv(index.keyBytes(position), seed: Self.fnvBasis)
                if index.isRich(position) {
                    if let data = try? encoder.encode(index.entry(at: position, rich: storage)) {
                        data.withUnsafeBytes { hash = Self.fnv($0, seed: hash ^ 2) }
                    }
                } else {
                    hash = Self.fnv(index.valueBytes(position), seed: hash ^ 1)
                }
                sum &+= Self.mix(hash)
            }
        }
        return Self.mix(sum &+ UInt64(count))
    }

    /// The bytes of its keys and plain values, and 256 for each rule entry: roughly what it holds, read without making entries.
    public var contentByteCount: Int {
        storage.withIndex { index in
            (0..<count).reduce(0) { $0 + index.keyBytes($1).count + (index.isRich($1) ? 256 : index.valueBytes($1).count) + 32 }
        }
    }

    static let fnvBasis: UInt64 = 0xcbf2_9ce4_8422_2325

    static func fnv(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        var hash = seed
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// SplitMix64's finalizer: every input bit moves every output bit.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
