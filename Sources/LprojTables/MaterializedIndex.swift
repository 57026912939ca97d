import Synchronization

/// The index of a materialized table: each slot holds an entry itself
/// (its strings made once) beside where its key's bytes are, so that a hit
/// touches the slot, the key's bytes and the returned string — nothing
/// else. What a client that looks up often wants; a daemon's tables do
/// without.
///
/// Filled as keys are first looked up, not when the table is
/// materialized: a process pays for the entries it answers with, and the
/// slots' pages it never touches stay the kernel's zero page. Lookups from
/// any thread fill it together without a lock: a slot goes from empty to
/// claimed for a key (one compare-and-exchange; slots are never emptied or
/// reused, so a probe that passes a slot never has to look back), the
/// claimer writes the entry and then marks it made. A lookup that meets a
/// slot still being made builds its entry itself rather than wait.
///
/// An index made for one thread (`growing`) is read and filled by that
/// thread alone: it starts small and doubles as entries are made, so it
/// costs what the thread looked up, however big the table — each thread of
/// a service keeps its own, and the entries it returns are its own objects
/// (a retain of a returned string writes a line no other core reads).
final class MaterializedIndex: @unchecked Sendable {
    /// A power of two of slots of `stride` bytes: a key word, then the entry.
    /// Replaced only by `grow()`, in an index of one thread's.
    private var slots: UnsafeMutableRawPointer
    private var mask: Int
    private var byteCount: Int
    /// Whether `slots` is its own anonymous mapping (else `calloc`'s).
    private let isMapping: Bool
    /// The slots of the table's full index: an index that grows stops there (it is never more than half full before).
    private let fullSlotCount: Int
    /// Whether the index grows as entries are made (one thread's); else it has every slot from the start.
    private let grows: Bool
    /// How many entries are made: what `deinit` looks for (a table hardly looked up is not walked through).
    private let madeCount = Atomic(0)

    /// The key word: 0 for an empty slot; else the key's offset in the text
    /// (32 bits), its length (22 bits), the slot's state (2 bits) and 8
    /// bits of its hash at the top.
    private static let lengthMask: UInt64 = 1 << 22 - 1
    private static let stateMask: UInt64 = 3 << 54
    private static let claimed: UInt64 = 1 << 54
    private static let made: UInt64 = 2 << 54
    /// Keys longer than this are looked up the plain way.
    private static let longestKey = Int(lengthMask)
    private static let stride = (MemoryLayout<UInt64>.size + MemoryLayout<Entry>.stride + 7) & ~7
    /// From this size on the slots get a mapping of their own, whose pages
    /// cost nothing until touched (`calloc` does not promise that).
    private static let mappingThreshold = 64 << 10

    /// The slots an index that grows starts with.
    private static let firstGrowingSlotCount = 16

    /// An empty index for `table` (nothing is made until looked up); one
    /// that `grows` is for one thread alone.
    init(_ table: Table, growing: Bool = false) {
        fullSlotCount = TableStorage.slotCount(for: table.count)
        grows = growing && fullSlotCount > Self.firstGrowingSlotCount
        let slotCount = grows ? Self.firstGrowingSlotCount : fullSlotCount
        mask = slotCount - 1
        byteCount = slotCount * Self.stride
        if grows {
            guard let memory = calloc(slotCount, Self.stride) else { fatalError("out of memory for \(slotCount) slots") }
            slots = memory
            isMapping = false
        } else if byteCount >= Self.mappingThreshold, let mapping = Self.reusedMapping(of: byteCount)
            ?? mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), mapping != MAP_FAILED {
            slots = mapping
            isMapping = true
        } else {
            guard let memory = calloc(slotCount, Self.stride) else { fatalError("out of memory for \(slotCount) slots") }
            slots = memory
            isMapping = false
        }
    }

    deinit {
        var left = madeCount.load(ordering: .acquiring)
        var slot = 0
        // No lookup runs now (each holds its table, which holds this): every slot claimed is made. Each is emptied
        // as its entry goes, so that past the last one every key word is zero and the slots can serve another index.
        while left > 0, slot <= mask {
            if word(slot).pointee.load(ordering: .acquiring) & Self.stateMask == Self.made {
                _ = entryPointer(slot).move()
                word(slot).pointee.store(0, ordering: .relaxed)
                left -= 1
            }
            slot += 1
        }
        if isMapping {
            if !Self.keepForReuse(slots, byteCount: byteCount) { munmap(slots, byteCount) }
        } else {
            free(slots)
        }
    }

    /// The entry made for `key` (whose hash is `hash`, with the table's text
    /// at `text`), or nil when none is made: not looked up yet, being made,
    /// or not in the table (then `make` says which). A hit's whole path.
    @inline(__always)
    func madeEntry(forKey key: UnsafeRawBufferPointer, hash: UInt64, text: UnsafePointer<UInt8>) -> Entry? {
        let tag = hash >> 56
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let word = self.word(slot).pointee.load(ordering: .acquiring)
            if word == 0 { return nil }
            if word >> 56 == tag, Int(word >> 32 & Self.lengthMask) == key.count,
               key.count == 0 || memcmp(text + Int(UInt32(truncatingIfNeeded: word)), key.baseAddress!, key.count) == 0 {
                return word & Self.stateMask == Self.made ? entryPointer(slot).pointee : nil
            }
            slot = (slot + 1) & mask
        }
    }

    /// The entry for `key` (whose hash in `index` is `hash`) when `madeEntry`
    /// had none, made and kept; nil when `index` has no such key. Made from
    /// `index` and `storage`'s rich entries.
    @inline(never)
    func make(forKey key: UnsafeRawBufferPointer, hash: UInt64, in index: TableIndex, of storage: TableStorage) -> Entry? {
        guard let position = index.find(key, hash: hash) else { return nil }
        guard key.count <= Self.longestKey else { return index.entry(at: position, rich: storage) }
        // One thread's index: at half full, twice the slots (up to the full index's, which is never half full).
        if grows, (madeCount.load(ordering: .relaxed) + 1) * 2 > mask + 1, mask + 1 < fullSlotCount { grow(rehashingIn: index) }
        let tag = hash >> 56
        let keyWord = UInt64(index.keyRecords[position].keyOffset) | UInt64(key.count) << 32 | tag << 56
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let word = self.word(slot).pointee.load(ordering: .acquiring)
            if word == 0 {
                let (exchanged, _) = self.word(slot).pointee.compareExchange(
                    expected: 0, desired: keyWord | Self.claimed, ordering: .relaxed)
                // Taken first (for this key or another): look at the slot again.
                guard exchanged else { continue }
                let entry = index.entry(at: position, rich: storage)
                entryPointer(slot).initialize(to: entry)
                self.word(slot).pointee.store(keyWord | Self.made, ordering: .releasing)
                madeCount.add(1, ordering: .releasing)
                return entry
            }
            if word & ~Self.stateMask == keyWord {
                // Made meanwhile, or being made by another thread (which is not waited for).
                return word & Self.stateMask == Self.made ? entryPointer(slot).pointee : index.entry(at: position, rich: storage)
            }
            slot = (slot + 1) & mask
        }
    }

    /// Twice the slots, each made entry moved to where its key's hash in
    /// `index` places it now (one thread's index: no reader beside it).
    private func grow(rehashingIn index: TableIndex) {
        let count = (mask + 1) * 2
        guard let memory = calloc(count, Self.stride) else { fatalError("out of memory for \(count) slots") }
        let old = (slots: slots, mask: mask)
        slots = memory
        mask = count - 1
        byteCount = count * Self.stride
        for slot in 0...old.mask {
            let from = old.slots + slot * Self.stride
            let word = from.load(as: UInt64.self)
            guard word & Self.stateMask == Self.made else { continue }
            let key = UnsafeRawBufferPointer(start: index.keyText + Int(UInt32(truncatingIfNeeded: word)), count: Int(word >> 32 & Self.lengthMask))
            var to = Int(truncatingIfNeeded: index.hash(key)) & mask
            while self.word(to).pointee.load(ordering: .relaxed) != 0 { to = (to + 1) & mask }
            self.word(to).pointee.store(word, ordering: .relaxed)
            entryPointer(to).moveInitialize(from: (from + MemoryLayout<UInt64>.size).assumingMemoryBound(to: Entry.self), count: 1)
        }
        free(old.slots)
    }

    /// Slot mappings of indexes gone, kept for the next index of their size
    /// (their key words all zero): a client replaces a table's index on every
    /// save of it, and unmapping one — a TLB flush on every processor its
    /// threads ran on — then faulting the next one's pages in cost more than
    /// emptying the slots that were used. Their touched pages stay resident:
    /// at most `reusableBytes` are kept (as addresses: a pointer is not `Sendable`).
    private static let reusable = Mutex<[(byteCount: Int, address: UInt)]>([])
    private static let reusableBytes = 4 << 20

    private static func reusedMapping(of byteCount: Int) -> UnsafeMutableRawPointer? {
        reusable.withLock { kept in
            guard let index = kept.firstIndex(where: { $0.byteCount == byteCount }) else { return nil }
            return UnsafeMutableRawPointer(bitPattern: kept.remove(at: index).address)
        }
    }

    /// Whether `slots` was kept for reuse (else the caller unmaps it).
    private static func keepForReuse(_ slots: UnsafeMutableRawPointer, byteCount: Int) -> Bool {
        reusable.withLock { kept in
            guard kept.reduce(byteCount, { $0 + $1.byteCount }) <= reusableBytes else { return false }
            kept.append((byteCount, UInt(bitPattern: slots)))
            return true
        }
    }

    @inline(__always)
    private func word(_ slot: Int) -> UnsafeMutablePointer<Atomic<UInt64>> {
        (slots + slot * Self.stride).assumingMemoryBound(to: Atomic<UInt64>.self)
    }

    @inline(__always)
    private func entryPointer(_ slot: Int) -> UnsafeMutablePointer<Entry> {
        (slots + slot * Self.stride + MemoryLayout<UInt64>.size).assumingMemoryBound(to: Entry.self)
    }
}

#if canImport(Glibc)
import Glibc
#endif
