import Foundation
@testable import LprojFormats
import LprojTestSupport
import Synchronization
import XCTest
@_spi(LprojInternals) @testable import LprojTables

/// The compact table: one buffer of UTF-8 with a hash index over the keys.
final class TableStorageTests: XCTestCase {
    /// Random tables agree with a `[String: Entry]` on every lookup, hit or
    /// miss, with 4-byte and with 8-byte index slots, before and after
    /// `materialized()` and `materializedForOneThread()`.
    func testLookupsAgreeWithADictionary() {
        var generator = SplitMix64(seed: 0x7AB1E)
        for round in 0..<200 {
            var entries: [String: Entry] = [:]
            for _ in 0..<Int.random(in: 0...300, using: &generator) {
                let key = Self.randomText(&generator)
                entries[key] = Int.random(in: 0..<10, using: &generator) == 0
                    ? Entry(value: .plural(["one": .text("1"), "other": .text(Self.randomText(&generator))]))
                    : Entry(text: Self.randomText(&generator))
            }
            var builder = TableBuilder()
            for (key, entry) in entries { builder.add(key: key, entry: entry) }
            var duplicates: [Int] = []
            let wide = builder.finish(duplicates: &duplicates, wideSlots: true)
            for table in [Table(entries), wide, Table(entries).materialized(), Table(entries).materializedForOneThread()] {
                XCTAssertEqual(table.count, entries.count)
                for (key, entry) in entries { XCTAssertEqual(table[key], entry, "round \(round), key \(key.debugDescription)") }
                for _ in 0..<20 {
                    let probe = Self.randomText(&generator)
                    XCTAssertEqual(table[probe], entries[probe])
                }
                XCTAssertEqual(table.entries, entries)
            }
            XCTAssertEqual(duplicates, [])
        }
    }

    /// A materialized table makes each entry on its first lookup: threads
    /// that look up the same fresh table at once, each in its own order, with
    /// misses between, all get every entry right — the first time and from
    /// what was made; a key too long for the made index is looked up the
    /// plain way.
    func testMaterializedEntriesAreMadeOnFirstLookupFromAnyThread() {
        var generator = SplitMix64(seed: 0x1A2F)
        var entries: [String: Entry] = [:]
        for index in 0..<5_000 {
            entries["key.\(index).\(Self.randomText(&generator))"] = index % 7 == 0
                ? Entry(value: .plural(["one": .text("1"), "other": .text(Self.randomText(&generator))]))
                : Entry(text: Self.randomText(&generator) + String(repeating: "é", count: index % 20))
        }
        let longKey = String(repeating: "k", count: 5 << 20)
        entries[longKey] = Entry(text: "long")
        let keys = Array(entries.keys), expected = entries
        for round in 0..<4 {
            let table = Table(entries).materialized()
            let orders = (0..<8).map { _ in keys.shuffled(using: &generator) }
            let wrong = Mutex(0)
            DispatchQueue.concurrentPerform(iterations: orders.count) { thread in
                var mistakes = 0
                for pass in 0..<2 {
                    for (index, key) in orders[thread].enumerated() {
                        if table[key] != expected[key] { mistakes += 1 }
                        if index % 50 == 0, table["absent.\(thread).\(pass).\(index)"] != nil { mistakes += 1 }
                    }
                }
                wrong.withLock { $0 += mistakes }
            }
            XCTAssertEqual(wrong.withLock { $0 }, 0, "round \(round)")
            XCTAssertEqual(table[longKey]?.text, "long")
            XCTAssertEqual(table.entries, entries)
        }
    }

    /// A table materialized for one thread grows its index as entries are
    /// made, from 16 slots to the full table's: every entry is right before
    /// and after each growth, a made entry is returned again (its string
    /// not made anew), and misses between never land in the index.
    func testATableForOneThreadGrowsWithWhatIsLookedUp() {
        var generator = SplitMix64(seed: 0x0E7D)
        var entries: [String: Entry] = [:]
        for index in 0..<20_000 {
            entries["screen.\(index % 97).\(index)"] = index % 11 == 0
                ? Entry(value: .plural(["one": .text("1 item"), "other": .text("\(index) items in a list")]))
                : Entry(text: "A sentence long enough to be stored apart, number \(index)")
        }
        let table = Table(entries).materializedForOneThread()
        let keys = Array(entries.keys).shuffled(using: &generator)
        var firstAddresses: [String: UInt] = [:]
        for (index, key) in keys.enumerated() {
            XCTAssertEqual(table[key], entries[key], key)
            if index % 3 == 0 { XCTAssertNil(table["absent.\(index)"]) }
            if let text = table[key]?.text { firstAddresses[key] = Self.address(of: text) }
            // Earlier entries are still found after the growths since.
            if index % 1_000 == 999 {
                for earlier in keys[..<index].shuffled(using: &generator).prefix(50) { XCTAssertEqual(table[earlier], entries[earlier], earlier) }
            }
        }
        var remade = 0
        for (key, address) in firstAddresses where Self.address(of: table[key]!.text!) != address { remade += 1 }
        XCTAssertEqual(remade, 0, "every entry was made once and returned again")
        XCTAssertEqual(table.entries, entries)
    }

    /// The address of a native string's bytes (a string of 16 bytes or more is stored apart, in an object of its own).
    private static func address(of text: String) -> UInt {
        text.utf8.withContiguousStorageIfAvailable { UInt(bitPattern: $0.baseAddress) } ?? 0
    }

    /// A materialized table's slots are reused by the next table of their
    /// size once it is gone (a client's table replaced on a save): what the
    /// first made is never found in the second, whose keys sit at the same
    /// places in its text.
    func testSlotsOfAMaterializedTableGoneServeTheNextOneEmpty() {
        for round in 0..<6 {
            // The same shape every round (key lengths, so places in the text), other keys and values.
            let letter = ["a", "b", "c", "d", "e", "f"][round]
            let entries = Dictionary(uniqueKeysWithValues: (0..<3_000).map { ("\(letter).\(100_000 + $0)", Entry(text: "\(round) \($0)")) })
            let table = Table(entries).materialized()
            for (key, entry) in entries where key.hasSuffix("7") || round % 2 == 1 { XCTAssertEqual(table[key], entry, key) }
            XCTAssertEqual(table.entries, entries, "round \(round)")
            if round > 0 { XCTAssertNil(table["\(["a", "b", "c", "d", "e", "f"][round - 1]).100007"], "round \(round)") }
        }
    }

    /// The last definition of a key wins and keeps the place of the first;
    /// the later positions are reported.
    func testRepeatedKeysLastWinsInTheFirstPlace() {
        var builder = TableBuilder()
        for (key, value) in [("a", "1"), ("b", "2"), ("a", "3"), ("c", "4"), ("a", "5"), ("b", "6")] {
            builder.add(key: key, entry: Entry(text: value))
        }
        var duplicates: [Int] = []
        let table = builder.finish(duplicates: &duplicates)
        XCTAssertEqual(duplicates, [2, 4, 5])
        XCTAssertEqual(table.keys, ["a", "b", "c"])
        XCTAssertEqual(table.map { $0.entry.text }, ["5", "6", "4"])
    }

    /// Keys are compared as CoreFoundation compares them: by code units,
    /// so precomposed and decomposed é are two keys.
    func testKeysCompareByBytes() {
        // (A Swift dictionary would take them for one key: parse them instead.)
        let table = StringsFile(bytes: Array("\"caf\u{E9}\" = precomposed; \"cafe\u{301}\" = decomposed;".utf8), path: "k.strings").table
        XCTAssertEqual(table.count, 2)
        XCTAssertEqual(table["caf\u{E9}"]?.text, "precomposed")
        XCTAssertEqual(table["cafe\u{301}"]?.text, "decomposed")
        XCTAssertNil(table["cafe"])
    }

    /// Equality and hashing ignore the order of entries; an empty key and an
    /// empty value are entries like any other.
    func testEqualityIgnoresOrder() {
        let a = StringsFile(bytes: Array("\"x\" = \"1\"; \"y\" = \"2\"; \"\" = \"\";".utf8), path: "a.strings").table
        let b = StringsFile(bytes: Array("\"\" = \"\"; \"y\" = \"2\"; \"x\" = \"1\";".utf8), path: "b.strings").table
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.hashValue, b.hashValue)
        XCTAssertEqual(a[""]?.text, "")
        XCTAssertNotEqual(a, Table(strings: ["x": "1", "y": "2", "": "3"]))
        XCTAssertNotEqual(a, Table(strings: ["x": "1", "y": "2"]))
        XCTAssertEqual(Table(), Table(strings: [:]))
    }

    /// `updating` sets, replaces and removes; the table it came from is unchanged.
    func testUpdating() {
        let table = Table(strings: ["a": "1", "b": "2", "c": "3"])
        let updated = table.updating(["b": Entry(text: "two"), "d": Entry(text: "4")], removing: ["c", "missing"])
        XCTAssertEqual(updated.entries, ["a": Entry(text: "1"), "b": Entry(text: "two"), "d": Entry(text: "4")])
        XCTAssertEqual(table.entries, ["a": Entry(text: "1"), "b": Entry(text: "2"), "c": Entry(text: "3")])
    }

    /// The diff finds keys whether they kept their position or moved.
    func testDiffAcrossReorderedKeys() {
        let old = StringsFile(bytes: Array("a = 1; b = 2; c = 3; d = 4;".utf8), path: "o.strings").table
        let new = StringsFile(bytes: Array("b = 2; a = 1; c = three; e = 5;".utf8), path: "n.strings").table
        let diff = TableDiff(from: old, to: new)
        XCTAssertEqual(diff.added, ["e": Entry(text: "5")])
        XCTAssertEqual(diff.changed, ["c": .init(old: Entry(text: "3"), new: Entry(text: "three"))])
        XCTAssertEqual(diff.removed, ["d"])
    }

    private static func randomText(_ generator: inout SplitMix64) -> String {
        let alphabet: [Unicode.Scalar] = Array("ab_.".unicodeScalars) + [0xE9, 0x4E2D, 0x1F600].map { Unicode.Scalar($0)! }
        var text = ""
        for _ in 0..<Int.random(in: 0...24, using: &generator) { text.unicodeScalars.append(alphabet.randomElement(using: &generator)!) }
        return text
    }
}
