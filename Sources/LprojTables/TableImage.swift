#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Foundation
@_spi(LprojInternals) import LprojPaths

/// A table's compact form as bytes another process maps and reads in
/// place — how lprojd shares the tables it parsed with every process of a
/// service. The `Table` layout (index, records, text) behind a header
/// that gives the format's version, the sizes and a checksum; the few
/// entries that are not plain text follow the text as JSON. Offsets only,
/// so the bytes mean the same at any address; the index is made with a
/// hash seed of the image's own, written in it.
///
/// Header (64 bytes, native byte order, every section 8-byte aligned):
/// magic `lprojtbl`, version (UInt32), flags (UInt32: bit 0, 8-byte
/// slots), entries, slots, text bytes, JSON bytes, seed and checksum
/// (UInt64 each). Then the slots, the records (16 bytes each), the text,
/// padding to 8, the JSON. (Version 2: the checksum in four lanes.)
///
/// Reading refuses what it cannot read whole — another magic or version,
/// sizes that disagree with each other or with the bytes, a checksum that
/// does not match, a record or slot that points outside, an index with no
/// empty slot — and never touches a byte past the ones it is given.
public enum TableImage {
    /// The version this code writes and reads.
    public static let version: UInt32 = 2

    /// Why an image cannot be read.
    public struct Refusal: Error, CustomStringConvertible, Sendable, Equatable {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// The image of `table`.
    public static func encode(_ table: Table) -> [UInt8] {
        let count = table.count
        let slotCount = TableStorage.slotCount(for: count)
        let wide = count >= TableIndex.narrowLimit
        let slotBytes = slotCount * (wide ? 8 : 4)
        let recordBytes = count * MemoryLayout<TableRecord>.stride
        // Over shared keys: the keys' text, then the values'.
        let sharedKeys = table.storage.sharedKeys
        let keyTextLength = sharedKeys?.textLength ?? 0
        let textLength = keyTextLength + table.storage.textLength
        let rich = table.storage.rich
        let json = rich.isEmpty ? [] : (try? [UInt8](JSONEncoder().encode(rich))) ?? []
        let textEnd = headerSize + slotBytes + recordBytes + textLength
        let total = padded(textEnd) + json.count
        var bytes = [UInt8](repeating: 0, count: total)
        let seed = UInt64.random(in: .min ... .max)
        bytes.withUnsafeMutableBytes { image in
            let base = image.baseAddress!
            table.storage.withIndex { source in
                let body = base + headerSize
                let index = TableIndex(slots: body, wide: wide, mask: slotCount - 1, seed: seed,
                                       records: UnsafePointer((body + slotBytes).assumingMemoryBound(to: TableRecord.self)),
                                       text: UnsafePointer((body + slotBytes + recordBytes).assumingMemoryBound(to: UInt8.self)))
                let text = body + slotBytes + recordBytes
                if sharedKeys == nil {
                    if count > 0 { (body + slotBytes).copyMemory(from: source.keyRecords, byteCount: recordBytes) }
                    if textLength > 0 { text.copyMemory(from: source.keyText, byteCount: textLength) }
                } else {
                    text.copyMemory(from: source.keyText, byteCount: keyTextLength)
                    if textLength > keyTextLength { (text + keyTextLength).copyMemory(from: source.valueText, byteCount: textLength - keyTextLength) }
                    let records = (body + slotBytes).bindMemory(to: TableRecord.self, capacity: count)
                    for position in 0..<count {
                        let key = source.keyRecords[position], value = source.valueRecord(position)
                        let plain = value.length != TableRecord.richLength
                        records[position] = TableRecord(keyOffset: key.keyOffset, keyLength: key.keyLength,
                                                        valueOffset: plain ? value.offset + UInt32(keyTextLength) : value.offset, valueLength: value.length)
                    }
                }
                for position in 0..<count { _ = index.insertUnlessPresent(position, hash: index.hash(ofKeyAt: position)) }
            }
            if !json.isEmpty { (base + padded(textEnd)).copyMemory(from: json, byteCount: json.count) }
            let header = Header(magic: magic, version: version, flags: wide ? wideFlag : 0, count: UInt64(count), slotCount: UInt64(slotCount),
                                textLength: UInt64(textLength), jsonLength: UInt64(json.count), seed: seed, checksum: 0)
            base.storeBytes(of: header, as: Header.self)
            base.storeBytes(of: checksum(UnsafeRawBufferPointer(image)), toByteOffset: checksumOffset, as: UInt64.self)
        }
        return bytes
    }

    /// The table the image `bytes` holds, read in place: `owner` must keep
    /// the bytes as they are (immutable) for as long as it lives, and the
    /// table keeps `owner`. The bytes must be 8-byte aligned.
    public static func table(in bytes: UnsafeRawBufferPointer, owner: AnyObject) throws(Refusal) -> Table {
        guard let base = bytes.baseAddress, bytes.count >= headerSize else {
            throw Refusal("\(bytes.count) bytes are too few for a table image (its header alone is \(headerSize))")
        }
        guard Int(bitPattern: base) % 8 == 0 else { throw Refusal("the image is not 8-byte aligned") }
        let header = base.load(as: Header.self)
        guard header.magic == magic else { throw Refusal("not a table image (no lprojtbl magic)") }
        guard header.version == version else { throw Refusal("a table image of version \(header.version); this reader knows version \(version)") }
        guard header.flags & ~wideFlag == 0 else { throw Refusal("unknown flags \(header.flags) in the table image") }
        let wide = header.flags & wideFlag != 0
        // Every size is checked against the bytes before anything is added, so nothing overflows.
        let available = UInt64(bytes.count)
        guard header.count < available, header.slotCount <= available, header.textLength <= available, header.jsonLength <= available,
              header.slotCount > header.count, header.slotCount & (header.slotCount - 1) == 0,
              header.count <= UInt64(UInt32.max) else {
            throw Refusal("the table image's sizes do not fit in its \(bytes.count) bytes")
        }
        let count = Int(header.count), slotCount = Int(header.slotCount), textLength = Int(header.textLength)
        guard wide || count < TableIndex.narrowLimit else { throw Refusal("the table image has too many entries for 4-byte slots") }
        let slotBytes = slotCount * (wide ? 8 : 4)
        let recordBytes = count * MemoryLayout<TableRecord>.stride
        let textEnd = headerSize + slotBytes + recordBytes + textLength
        guard padded(textEnd) + Int(header.jsonLength) == bytes.count else {
            throw Refusal("the table image is \(bytes.count) bytes; its header describes \(padded(textEnd) + Int(header.jsonLength))")
        }
        guard checksum(bytes) == header.checksum else { throw Refusal("the table image's checksum does not match its bytes") }
        let body = UnsafeMutableRawPointer(mutating: base + headerSize)
        let records = (body + slotBytes).assumingMemoryBound(to: TableRecord.self)
        // The records and slots are checked in flat passes (every client checks every image it maps, on every save);
        // only when one fails is it looked for again, to be named.
        func keyOutside(_ record: TableRecord) -> Bool { UInt64(record.keyOffset) + UInt64(record.keyLength) > UInt64(textLength) }
        func valueOutside(_ record: TableRecord) -> Bool {
            !record.isRich && UInt64(record.valueOffset) + UInt64(record.valueLength) > UInt64(textLength)
        }
        var richCount = 0
        var outside = false
        for position in 0..<count {
            let record = records[position]
            outside = outside || keyOutside(record) || valueOutside(record)
            richCount = max(richCount, record.isRich ? Int(record.valueOffset) + 1 : 0)
        }
        if outside, let position = (0..<count).first(where: { keyOutside(records[$0]) || valueOutside(records[$0]) }) {
            throw Refusal("entry \(position) of the table image has its \(keyOutside(records[position]) ? "key" : "value") outside the text")
        }
        // An occupied slot names an entry 1...count; an empty one is 0.
        let positionMask: UInt64 = wide ? 0xFFFF_FFFF : 0x00FF_FFFF
        func slot(_ index: Int) -> UInt64 {
            wide ? body.load(fromByteOffset: index * 8, as: UInt64.self) : UInt64(body.load(fromByteOffset: index * 4, as: UInt32.self))
        }
        var empty = 0
        var highest: UInt64 = 0
        for index in 0..<slotCount {
            let value = slot(index), position = value & positionMask
            empty &+= value == 0 ? 1 : 0
            highest = max(highest, value == 0 ? 0 : position == 0 ? .max : position)
        }
        if highest > UInt64(count), let index = (0..<slotCount).first(where: {
            let value = slot($0), position = value & positionMask
            return value != 0 && (position == 0 || position > UInt64(count))
        }) {
            throw Refusal("slot \(index) of the table image names no entry")
        }
        // A lookup probes until an empty slot: an index without one would never end.
        guard empty > 0 else { throw Refusal("the table image's index has no empty slot") }
        var rich: [Entry] = []
        if header.jsonLength > 0 {
            let json = Data(bytes: base + padded(textEnd), count: Int(header.jsonLength))
            do {
                rich = try JSONDecoder().decode([Entry].self, from: json)
            } catch {
                throw Refusal("the table image's rich entries cannot be read: \(error)")
            }
        }
        guard rich.count >= richCount else { throw Refusal("the table image names rich entry \(richCount - 1) of \(rich.count)") }
        return Table(storage: .mapped(base: body, owner: owner, count: count, slotCount: slotCount, wideSlots: wide,
                                      textLength: textLength, seed: header.seed, rich: rich))
    }

    /// The table the image `bytes` holds, copied into memory of its own.
    public static func table(in bytes: [UInt8]) throws(Refusal) -> Table {
        let copy = AlignedBytes(bytes)
        return try table(in: copy.bytes, owner: copy)
    }

    // MARK: - Layout

    struct Header {
        var magic: UInt64
        var version: UInt32
        var flags: UInt32
        var count: UInt64
        var slotCount: UInt64
        var textLength: UInt64
        var jsonLength: UInt64
        var seed: UInt64
        var checksum: UInt64
    }

    static let headerSize = 64
    /// `lprojtbl` as the first eight bytes.
    static let magic = UInt64(littleEndian: 0x6C62_746A_6F72_706C)
    static let wideFlag: UInt32 = 1
    static let checksumOffset = MemoryLayout<Header>.offset(of: \Header.checksum)!
    /// A fixed seed: a checksum means the same in every process.
    private static let checksumSeed: UInt64 = 0x6C70_726F_6A64_0001

    static func padded(_ offset: Int) -> Int { (offset + 7) & ~7 }

    /// The checksum of an image: its header up to the checksum, then
    /// everything after the header — the body in four lanes of 8-byte words
    /// mixed apart (each client checks each image it maps: one lane is a
    /// chain of dependent multiplies), the lanes and the tail then hashed
    /// together. (Version 1 hashed the body in one lane.)
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let head = ByteHash.hash(UnsafeRawBufferPointer(rebasing: bytes[..<checksumOffset]), seed: checksumSeed)
        let body = UnsafeRawBufferPointer(rebasing: bytes[headerSize...])
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (head, head ^ laneKeys.0, head ^ laneKeys.1, head ^ laneKeys.2)
        let blocks = body.count / 32
        if let base = body.baseAddress {
            for block in 0..<blocks {
                let offset = block * 32
                lanes.0 = laneMix(lanes.0, base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                lanes.1 = laneMix(lanes.1, base.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
                lanes.2 = laneMix(lanes.2, base.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
                lanes.3 = laneMix(lanes.3, base.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
            }
        }
        let seed = withUnsafeBytes(of: lanes) { ByteHash.hash($0, seed: UInt64(truncatingIfNeeded: body.count)) }
        return ByteHash.hash(UnsafeRawBufferPointer(rebasing: body[(blocks * 32)...]), seed: seed)
    }

    private static let laneKeys: (UInt64, UInt64, UInt64) = (0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9)

    /// One word into a lane: the two combined, multiplied out to 128 bits by an odd constant, folded.
    @inline(__always)
    private static func laneMix(_ lane: UInt64, _ word: UInt64) -> UInt64 {
        let product = (lane ^ word).multipliedFullWidth(by: 0xA076_1D64_78BD_642F)
        return product.high ^ product.low
    }
}

/// Bytes copied into memory aligned for an image, freed with the object.
final class AlignedBytes: @unchecked Sendable {
    private let memory: UnsafeMutableRawBufferPointer
    let bytes: UnsafeRawBufferPointer

    init(_ source: [UInt8]) {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(source.count, 1), alignment: 16)
        source.withUnsafeBytes { if let base = $0.baseAddress { memory.baseAddress!.copyMemory(from: base, byteCount: $0.count) } }
        self.memory = memory
        bytes = UnsafeRawBufferPointer(start: memory.baseAddress, count: source.count)
    }

    deinit { memory.deallocate() }
}

/// Table images in sealed memory files: what lprojd passes to its clients
/// (`SCM_RIGHTS`), so that every process of a service maps the same pages.
public enum SharedTableImage {
    /// A memory file holding `table`'s image, sealed for good (nobody can
    /// write, shrink or grow it). The caller closes the descriptor.
    public static func file(of table: Table, name: String = "lprojd-table") throws(TableImage.Refusal) -> Int32 {
        try file(holding: TableImage.encode(table), name: name)
    }

    /// A sealed memory file holding `image` (`TableImage.encode`'s bytes). The caller closes the descriptor.
    public static func file(holding image: [UInt8], name: String = "lprojd-table") throws(TableImage.Refusal) -> Int32 {
        let descriptor = image.withUnsafeBytes { lproj_sealed_memory_file(name, $0.baseAddress, $0.count) }
        guard descriptor >= 0 else { throw TableImage.Refusal("cannot make a memory file: \(String(cString: strerror(errno)))") }
        return descriptor
    }

    /// The table in the memory file `descriptor`, mapped read-only (the
    /// descriptor can be closed after: the mapping stays). Refused unless
    /// the file is sealed against writes and resizing — so what was checked
    /// stays true and a read never faults — and its image reads whole.
    public static func table(in descriptor: Int32) throws(TableImage.Refusal) -> Table {
        var size: UInt64 = 0
        switch lproj_is_sealed_memory_file(descriptor, &size) {
        case 1: break
        case 0: throw TableImage.Refusal("the table image is not a sealed memory file")
        default: throw TableImage.Refusal("cannot inspect the table image: \(String(cString: strerror(errno)))")
        }
        guard size >= UInt64(TableImage.headerSize), size <= UInt64(Int.max) else {
            throw TableImage.Refusal("\(size) bytes are too few for a table image")
        }
        // Populated at once: the checks read every page, and one call maps them cheaper than a fault each.
        guard let base = mmap(nil, Int(size), PROT_READ, MAP_SHARED | MAP_POPULATE, descriptor, 0), base != MAP_FAILED else {
            throw TableImage.Refusal("cannot map the table image: \(String(cString: strerror(errno)))")
        }
        let mapping = ImageMapping(base: base, length: Int(size))
        return try TableImage.table(in: UnsafeRawBufferPointer(start: base, count: Int(size)), owner: mapping)
    }
}

/// A read-only mapping, unmapped with the object (when no table uses it).
final class ImageMapping: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer
    private let length: Int

    init(base: UnsafeMutableRawPointer, length: Int) {
        self.base = base
        self.length = length
    }

    deinit { munmap(base, length) }
}
