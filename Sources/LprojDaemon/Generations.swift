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
    /// Each bundle's tables' digests, combined (a sum of mixed terms: a table's term is taken out and put back as it changes).
    private var sums: [ExactName: UInt64] = [:]
    /// How many tables each bundle serves (none: it is gone).
    private var counts: [ExactName: Int] = [:]
    /// What the state directory held at start, and bundles gone since: they keep their numbers for when they come back.
    private var saved: [ExactName: Generation] = [:]
    /// Where they are kept; nil: not kept (tests).
    let file: String?
    /// Whether `current` changed since it was last written.
    private(set) var isDirty = false
    /// How each bundle's last generations came to be, oldest first: each step holds the tables it replaced as they were,
    /// so a kept generation is the served tables with the later steps undone (`tables(of:at:served:)`). At most
    /// `keepCount` generations a bundle (the current one counted), and `keepBytes` of replaced tables in all.
    private(set) var steps: [ExactName: [Step]] = [:]
    var keepCount = 8
    var keepBytes = 64 << 20
    private var keptBytes = 0

    /// One published change of a bundle, undoable.
    struct Step {
        var previous: Generation
        var generation: Generation
        /// The tables it replaced, as they were (nil: there was none).
        var before: [TableAddress: Table?]
        var bytes: Int
    }

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
    func start(served: some Sequence<(key: TableAddress, value: Table)>) {
        for (address, table) in served {
            let bundle = ExactName(address.bundle)
            sums[bundle, default: 0] &+= Self.term(address, table.contentDigest())
            counts[bundle, default: 0] += 1
        }
        for bundle in counts.keys {
            let hash = Self.hex(sums[bundle]!)
            let before = saved[bundle]
            current[bundle] = Generation(number: before.map { $0.hash == hash ? $0.number : $0.number + 1 } ?? 1, hash: hash)
        }
        isDirty = true
    }

    /// Takes in one published batch: the tables it changed (`changed`, nil: gone) and what they replaced (`replaced`, as
    /// they were) move their bundles to the next generation. Returns the bundles that moved, in path order, with their new
    /// generations.
    func advance(changed: [TableAddress: Table?], replaced: [TableAddress: Table?]) -> [(bundle: String, generation: Generation)] {
        var moved: [ExactName: [TableAddress: Table?]] = [:]
        for (address, table) in changed {
            let bundle = ExactName(address.bundle)
            let old = replaced[address] ?? nil
            if let old {
                sums[bundle, default: 0] &-= Self.term(address, old.contentDigest())
                counts[bundle, default: 0] -= 1
            }
            if let table {
                sums[bundle, default: 0] &+= Self.term(address, table.contentDigest())
                counts[bundle, default: 0] += 1
            }
            moved[bundle, default: [:]][address] = old
        }
        var result: [(String, Generation)] = []
        for (bundle, before) in moved.sorted(by: { $0.key < $1.key }) {
            guard (counts[bundle] ?? 0) > 0 else {
                // Gone: its number is kept for when it comes back; its steps go (a bundle made again starts from what it serves).
                sums[bundle] = nil
                counts[bundle] = nil
                if let last = current.removeValue(forKey: bundle) { saved[bundle] = last }
                keptBytes -= steps.removeValue(forKey: bundle)?.reduce(0) { $0 + $1.bytes } ?? 0
                isDirty = true
                continue
            }
            let hash = Self.hex(sums[bundle]!)
            guard current[bundle]?.hash != hash || current[bundle] == nil else { continue }
            let previous = current[bundle] ?? Generation(number: saved[bundle]?.number ?? 0, hash: "")
            let generation = Generation(number: previous.number + 1, hash: hash)
            current[bundle] = generation
            result.append((bundle.string, generation))
            isDirty = true
            // A bundle new to this run has nothing to go back to.
            guard previous.hash != "" else { continue }
            let bytes = before.values.reduce(0) { $0 + ($1?.contentByteCount ?? 0) }
            steps[bundle, default: []].append(Step(previous: previous, generation: generation, before: before, bytes: bytes))
            keptBytes += bytes
            while let list = steps[bundle], list.count > max(0, keepCount - 1) { forgetOldest(of: bundle) }
            while keptBytes > keepBytes, let heaviest = steps.filter({ !$0.value.isEmpty }).max(by: { $0.value.count < $1.value.count })?.key {
                forgetOldest(of: heaviest)
            }
        }
        return result
    }

    /// The generations of `bundle` that can be gone back to, oldest first (the current one last).
    func kept(of bundle: String) -> [Generation] {
        guard let now = current[ExactName(bundle)] else { return [] }
        let list = steps[ExactName(bundle)] ?? []
        return (list.first.map { [$0.previous] } ?? []) + list.map(\.generation).dropLast(list.isEmpty ? 0 : 1) + [now]
    }

    /// The tables `bundle` served at generation `number`: `served` (its tables now) with the later steps undone; nil when
    /// that generation is no longer kept.
    func tables(of bundle: String, at number: UInt64, served: [TableAddress: Table]) -> [TableAddress: Table]? {
        guard kept(of: bundle).contains(where: { $0.number == number }) else { return nil }
        var tables = served
        for step in (steps[ExactName(bundle)] ?? []).reversed() where step.generation.number > number {
            for (address, table) in step.before { tables[address] = table }
        }
        return tables
    }

    private func forgetOldest(of bundle: ExactName) {
        guard let oldest = steps[bundle]?.first else { return }
        keptBytes -= oldest.bytes
        steps[bundle]!.removeFirst()
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

    /// A table's term in its bundle's sum: its digest mixed with its localization and name.
    private static func term(_ address: TableAddress, _ digest: UInt64) -> UInt64 {
        mix(fnv(address.localization + "\u{0}" + address.table) ^ digest)
    }

    private static func hex(_ sum: UInt64) -> String {
        let hex = String(sum, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    private static func fnv(_ text: String, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = seed
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
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
