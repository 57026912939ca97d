#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LprojPaths
import LprojTables

/// Every published state of a bundle: a generation number that only grows
/// — kept in the state directory (`generations`), so a restart continues
/// it — and a hash of the tables served, the same for the same tables
/// across restarts. Part of the core: the daemon's loop owns it.
///
/// A batch of published changes moves each bundle it touched to the next
/// number (one batch, one generation, however many tables changed). At
/// start, a bundle whose tables hash as they did when the daemon stopped
/// keeps its number; one that changed while it was down gets the next.
final class Generations {
    struct Generation: Codable, Equatable, Sendable {
        var number: UInt64
        var hash: String
    }

    /// One bundle's generation as the state directory keeps it.
    private struct Saved: Codable {
        var bundle: String
        var number: UInt64
        var hash: String
    }

    /// The current generation of each bundle served.
    private(set) var current: [ExactName: Generation] = [:]
    /// Each served table's digest, by bundle.
    private var digests: [ExactName: [TableAddress: UInt64]] = [:]
    /// What the state directory held at start, and bundles gone since: they keep their numbers for when they come back.
    private var saved: [ExactName: Generation] = [:]
    /// Where they are kept; nil: not kept (tests).
    let file: String?
    /// The last generations of each bundle, their tables (shared with the served ones: a table that did not change is
    /// the same object), for `rollback`: at most `keepCount` a bundle, and `keepBytes` of changed tables in all.
    private(set) var kept: [ExactName: [Kept]] = [:]
    var keepCount = 8
    var keepBytes = 64 << 20
    private var keptBytes = 0

    /// One kept generation.
    struct Kept {
        var number: UInt64
        var hash: String
        var tables: [TableAddress: Table]
        /// What its changed tables hold (an estimate: keys and texts).
        var bytes: Int
    }
    /// Whether `current` changed since it was last written.
    private(set) var isDirty = false

    init(stateDirectory: String?) {
        file = stateDirectory.map { $0 + "/generations" }
        // A list, not an object: `Café` in NFC and in NFD are two bundles, which a JSON object's keys would make one.
        if let file, let data = FileManager.default.contents(atPath: file),
           let decoded = try? JSONDecoder().decode([Saved].self, from: data) {
            for item in decoded { saved[ExactName(item.bundle)] = Generation(number: item.number, hash: item.hash) }
        }
    }

    /// The generation of `bundle`, if it is served.
    func generation(of bundle: String) -> Generation? {
        current[ExactName(bundle)]
    }

    /// Numbers every bundle served after the first load: the number it had, or the next when its tables changed meanwhile.
    func start(served: [TableAddress: Table]) {
        for (address, table) in served {
            digests[ExactName(address.bundle), default: [:]][address] = Self.digest(table)
        }
        for bundle in digests.keys {
            let hash = hash(of: bundle)
            let before = saved[bundle]
            current[bundle] = Generation(number: before.map { $0.hash == hash ? $0.number : $0.number + 1 } ?? 1, hash: hash)
        }
        var tables: [ExactName: [TableAddress: Table]] = [:]
        for (address, table) in served { tables[ExactName(address.bundle), default: [:]][address] = table }
        for (bundle, generation) in current {
            keep(Kept(number: generation.number, hash: generation.hash, tables: tables[bundle] ?? [:], bytes: 0), of: bundle)
        }
        isDirty = true
    }

    /// The kept generation `number` of `bundle`, if it is still kept.
    func kept(_ number: UInt64, of bundle: String) -> Kept? {
        kept[ExactName(bundle)]?.first { $0.number == number }
    }

    /// Records a new generation's tables, and forgets the oldest past the bounds (never a bundle's current one).
    private func keep(_ generation: Kept, of bundle: ExactName) {
        kept[bundle, default: []].append(generation)
        keptBytes += generation.bytes
        while let list = kept[bundle], list.count > max(1, keepCount) { forgetOldest(of: bundle) }
        while keptBytes > keepBytes, let heaviest = kept.filter({ $0.value.count > 1 }).max(by: { $0.value.count < $1.value.count })?.key {
            forgetOldest(of: heaviest)
        }
    }

    private func forgetOldest(of bundle: ExactName) {
        guard let oldest = kept[bundle]?.first else { return }
        keptBytes -= oldest.bytes
        kept[bundle]!.removeFirst()
    }

    /// What a table holds, roughly: its keys and texts.
    private static func estimatedBytes(_ table: Table) -> Int {
        table.reduce(0) { $0 + $1.key.utf8.count + ($1.entry.text?.utf8.count ?? 256) + 32 }
    }

    /// Takes in one published batch: the tables it changed (nil: gone) move their bundles to the next generation.
    /// Returns the bundles that moved, in path order, with their new generations.
    func advance(changed: [TableAddress: Table?]) -> [(bundle: String, generation: Generation)] {
        var moved = Set<ExactName>()
        for (address, table) in changed {
            let bundle = ExactName(address.bundle)
            digests[bundle, default: [:]][address] = table.map(Self.digest)
            moved.insert(bundle)
        }
        var result: [(String, Generation)] = []
        for bundle in moved.sorted() {
            if digests[bundle]?.isEmpty != false {
                // Gone: its number is kept for when it comes back.
                digests[bundle] = nil
                if let last = current.removeValue(forKey: bundle) { saved[bundle] = last }
                // Its kept tables go too: a bundle made again starts from what it then serves.
                keptBytes -= kept.removeValue(forKey: bundle)?.reduce(0) { $0 + $1.bytes } ?? 0
                isDirty = true
                continue
            }
            let hash = hash(of: bundle)
            let previous = current[bundle]?.number ?? saved[bundle]?.number ?? 0
            guard current[bundle]?.hash != hash || current[bundle] == nil else { continue }
            let generation = Generation(number: previous + 1, hash: hash)
            current[bundle] = generation
            result.append((bundle.string, generation))
            isDirty = true
            // Its tables: the last kept ones with this batch's changes laid over.
            var tables = kept[bundle]?.last?.tables ?? [:]
            var bytes = 0
            for (address, table) in changed where ExactName(address.bundle) == bundle {
                tables[address] = table
                bytes += table.map(Self.estimatedBytes) ?? 0
            }
            keep(Kept(number: generation.number, hash: hash, tables: tables, bytes: bytes), of: bundle)
        }
        return result
    }

    /// Writes the numbers to the state directory (a temporary file renamed over the old: a crash leaves one or the other).
    func save() throws(GenerationsError) {
        guard isDirty, let file else { return }
        var all = saved
        for (bundle, generation) in current { all[bundle] = generation }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let list = all.sorted { $0.key < $1.key }.map { Saved(bundle: $0.key.string, number: $0.value.number, hash: $0.value.hash) }
        guard let data = try? encoder.encode(list) else { return }
        let temporary = file + ".new"
        do {
            try data.write(to: URL(fileURLWithPath: temporary))
        } catch {
            throw GenerationsError(message: "\(temporary): \(error.localizedDescription)")
        }
        guard rename(temporary, file) == 0 else { throw GenerationsError(message: "\(file): \(String(cString: strerror(errno)))") }
        isDirty = false
    }

    /// The bundle's hash: its tables' digests combined in no particular order (a sum of mixed values), as 16 hex digits.
    private func hash(of bundle: ExactName) -> String {
        var sum: UInt64 = 0
        for (address, digest) in digests[bundle] ?? [:] {
            sum &+= Self.mix(Self.fnv(address.localization + "\u{0}" + address.table) ^ digest)
        }
        let hex = String(sum, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// A table's digest: its entries' hashes summed (the order of a file's keys does not count, their values do).
    static func digest(_ table: Table) -> UInt64 {
        var sum: UInt64 = 0
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for (key, entry) in table {
            var hash = fnv(key)
            if let text = entry.text {
                hash = fnv(text, seed: hash ^ 1)
            } else if let data = try? encoder.encode(entry) {
                hash = fnv(bytes: data, seed: hash ^ 2)
            }
            sum &+= mix(hash)
        }
        return mix(sum &+ UInt64(table.count))
    }

    private static func fnv(_ text: String, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = seed
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    private static func fnv(bytes: Data, seed: UInt64) -> UInt64 {
        var hash = seed
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// SplitMix64's finalizer: every input bit moves every output bit.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

struct GenerationsError: Error, CustomStringConvertible {
    var message: String
    var description: String { "cannot keep the generations: \(message)" }
}
