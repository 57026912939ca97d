import LprojTables
/// What a binary property list would cost to decode, worked out from its
/// object table before Foundation is given it.
///
/// A binary plist names its objects by reference, so one object may be
/// referenced any number of times: a list of two references to the same
/// list, forty deep, is a few hundred bytes that decode into 2⁴⁰ objects
/// (Foundation materialises every reference). The bound is therefore on the
/// work, not the file: every object is counted as often as it would be
/// materialised, and so are the bytes of its strings and data. The walk
/// itself is linear in the file (each object's totals are worked out once)
/// and iterative (no recursion, however deep the nesting).
///
/// Everything read is bounds-checked: a table that lies about its offsets,
/// counts or sizes is refused here with the reason, never read past its end.
enum BinaryPropertyListBounds {
    /// Why `bytes` (a file starting with `bplist0`) must not be decoded,
    /// or nil when it is within `limits`.
    static func problem(in bytes: UnsafeRawBufferPointer, limits: TableLimits) -> String? {
        var reader = Reader(bytes: bytes)
        do throws(Refusal) {
            try reader.readTrailer()
            try reader.walk(maximumObjects: UInt64(limits.maximumObjects), maximumBytes: UInt64(limits.maximumFileBytes))
            return nil
        } catch {
            return error.message
        }
    }

    /// Why a walk stopped.
    struct Refusal: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// The walk over one file's objects.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offsetSize = 0
        var referenceSize = 0
        var objectCount = 0
        var top = 0
        var offsetTable = 0

        init(bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
        }

        /// The last 32 bytes: sizes of offsets and references, the object count, the top object, where offsets start.
        mutating func readTrailer() throws(Refusal) {
            guard bytes.count >= 8 + 32 else { throw Refusal("not a valid binary property list: shorter than its header and trailer") }
            let trailer = bytes.count - 32
            offsetSize = Int(bytes[trailer + 6])
            referenceSize = Int(bytes[trailer + 7])
            guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
                throw Refusal("not a valid binary property list: its trailer gives offsets of \(offsetSize) and references of \(referenceSize) bytes")
            }
            let count = integer(at: trailer + 8, size: 8)
            let topObject = integer(at: trailer + 16, size: 8)
            let table = integer(at: trailer + 24, size: 8)
            // Every object needs an offset in the table, which lies between the header and the trailer.
            guard count >= 1, count <= UInt64(trailer), table >= 8, table <= UInt64(trailer),
                  count * UInt64(offsetSize) <= UInt64(trailer) - table else {
                throw Refusal("not a valid binary property list: its trailer's object count (\(count)) or offset table (at \(table)) "
                              + "does not fit in its \(bytes.count) bytes")
            }
            guard topObject < count else {
                throw Refusal("not a valid binary property list: its top object (\(topObject)) is not one of its \(count) objects")
            }
            (objectCount, top, offsetTable) = (Int(count), Int(topObject), Int(table))
        }

        /// Counts what decoding would materialise, refusing past the limits, a reference loop or anything out of bounds.
        func walk(maximumObjects: UInt64, maximumBytes: UInt64) throws(Refusal) {
            struct Frame {
                var object: Int
                var node: Node
                var next = 0
                var objects: UInt64 = 1
                var bytes: UInt64
            }
            // 0 not reached yet, 1 on the way down (a reference back to it is a loop), 2 done.
            var state = [UInt8](repeating: 0, count: objectCount)
            var totals = [(objects: UInt64, bytes: UInt64)](repeating: (0, 0), count: objectCount)
            var stack: [Frame] = []
            func enter(_ object: Int) throws(Refusal) {
                state[object] = 1
                let node = try self.node(object)
                stack.append(Frame(object: object, node: node, bytes: node.bytes))
            }
            try enter(top)
            while !stack.isEmpty {
                let last = stack.count - 1
                if stack[last].next < stack[last].node.children {
                    let child = try reference(stack[last].node, stack[last].next)
                    stack[last].next += 1
                    switch state[child] {
                    case 1: throw Refusal("not a valid binary property list: object \(child) holds a reference back to itself (a loop)")
                    case 2:
                        stack[last].objects &+= totals[child].objects
                        stack[last].bytes &+= totals[child].bytes
                    default: try enter(child)
                    }
                    continue
                }
                let done = stack.removeLast()
                guard done.objects <= maximumObjects else {
                    throw Refusal("the binary property list decodes into more than \(maximumObjects) objects (it is \(bytes.count) bytes: "
                                  + "its objects are referenced many times over); not read")
                }
                guard done.bytes <= maximumBytes else {
                    throw Refusal("the binary property list decodes into more than \(ByteCountText.describe(Int(maximumBytes))) of strings "
                                  + "and data (it is \(bytes.count) bytes: its objects are referenced many times over); not read")
                }
                state[done.object] = 2
                totals[done.object] = (done.objects, done.bytes)
                if let parent = stack.indices.last {
                    stack[parent].objects &+= done.objects
                    stack[parent].bytes &+= done.bytes
                }
            }
        }

        /// One object's header: how many references follow it, where, and the bytes of its own payload.
        struct Node {
            var children: Int
            var references: Int
            var bytes: UInt64
        }

        func node(_ object: Int) throws(Refusal) -> Node {
            let offset = integer(at: offsetTable + object * offsetSize, size: offsetSize)
            guard offset >= 8, offset < UInt64(offsetTable) else {
                throw Refusal("not a valid binary property list: object \(object) starts at \(offset), outside the object area")
            }
            var position = Int(offset)
            let marker = bytes[position]
            position += 1
            let kind = marker >> 4
            let info = Int(marker & 0x0F)
            func payload(_ size: Int) throws(Refusal) -> Node {
                guard size <= offsetTable - position else {
                    throw Refusal("not a valid binary property list: object \(object) (at \(offset)) runs past the object area")
                }
                return Node(children: 0, references: position, bytes: UInt64(size))
            }
            switch kind {
            case 0x0 where info == 0x8 || info == 0x9: return Node(children: 0, references: position, bytes: 0)
            case 0x1, 0x2: return try payload(1 << min(info, 4))
            case 0x3: return try payload(8)
            case 0x0, 0x8, 0xB, 0xC:
                // Null, UIDs (keyed archives) and sets: no table holds them, and Foundation on Linux
                // does not survive bridging every one of them (a set of lists crashes it).
                let name = switch kind { case 0x8: "a UID"; case 0xB, 0xC: "a set"; default: "a null" }
                throw Refusal("not a string table: object \(object) (at \(offset)) is \(name), which only archives hold")
            case 0x4, 0x5, 0x6, 0x7:
                let count = try length(info, at: &position, object: object)
                let unit = kind == 0x6 ? 2 : 1
                guard count <= UInt64(offsetTable) / UInt64(unit) else {
                    throw Refusal("not a valid binary property list: object \(object) (at \(offset)) runs past the object area")
                }
                return try payload(Int(count) * unit)
            case 0xA, 0xD:
                let count = try length(info, at: &position, object: object)
                let children = kind == 0xD ? count &* 2 : count
                guard count <= UInt64(offsetTable), children * UInt64(referenceSize) <= UInt64(offsetTable - position) else {
                    throw Refusal("not a valid binary property list: object \(object) (at \(offset)) holds \(count) references, "
                                  + "more than fit before its offset table")
                }
                return Node(children: Int(children), references: position, bytes: 0)
            default:
                throw Refusal("not a valid binary property list: object \(object) (at \(offset)) has an unknown type (marker byte "
                              + "0x\(String(marker, radix: 16, uppercase: true)))")
            }
        }

        /// The `index`th reference of `node`, checked to name an object.
        func reference(_ node: Node, _ index: Int) throws(Refusal) -> Int {
            let object = integer(at: node.references + index * referenceSize, size: referenceSize)
            guard object < UInt64(objectCount) else {
                throw Refusal("not a valid binary property list: a reference names object \(object) of \(objectCount)")
            }
            return Int(object)
        }

        /// A count in a marker's low bits, or (0xF) in the integer object after it.
        func length(_ info: Int, at position: inout Int, object: Int) throws(Refusal) -> UInt64 {
            guard info == 0x0F else { return UInt64(info) }
            guard position < offsetTable, bytes[position] >> 4 == 0x1, bytes[position] & 0x0F <= 3,
                  1 << Int(bytes[position] & 0x0F) <= offsetTable - position - 1 else {
                throw Refusal("not a valid binary property list: object \(object)'s length is not an integer")
            }
            let size = 1 << Int(bytes[position] & 0x0F)
            let value = integer(at: position + 1, size: size)
            position += 1 + size
            return value
        }

        /// A big-endian unsigned integer of `size` (1...8) bytes at `offset` (checked by the caller).
        func integer(at offset: Int, size: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in offset..<(offset + size) { value = value << 8 | UInt64(bytes[index]) }
            return value
        }
    }
}
