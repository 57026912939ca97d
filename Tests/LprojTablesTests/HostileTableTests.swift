import Foundation
@testable import LprojFormats
import LprojTestSupport
import XCTest
@testable import LprojTables

/// Binary property lists built to cost more than they weigh: references to
/// one object repeated (a few hundred bytes that Foundation would expand into
/// 2⁴⁰ objects), loops, and tables whose offsets, counts and sizes lie. Each
/// is refused in time linear in its bytes, with a diagnostic naming the file,
/// and never handed to Foundation.
final class HostileTableTests: XCTestCase {
    private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/hostile").path

    func testAReferenceBombIsRefusedNotExpanded() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: fixtures + "/reference-bomb.strings"))
        XCTAssertLessThan(bytes.count, 512)
        let file = StringsFile(bytes: bytes, path: "bomb.strings")
        XCTAssertEqual(file.form, .binaryPropertyList)
        XCTAssertEqual(file.table.count, 0)
        let diagnostic = try XCTUnwrap(file.diagnostics.first)
        XCTAssertEqual(file.diagnostics.count, 1)
        XCTAssertEqual(diagnostic.severity, .error)
        XCTAssertEqual(diagnostic.file, "bomb.strings")
        XCTAssertTrue(diagnostic.message.hasPrefix("the binary property list decodes into more than 1000000 objects"), diagnostic.message)
        XCTAssertTrue(diagnostic.hint?.contains("MaxTableObjects") == true)
        // The same through every reader: .stringsdict and TableFile.
        XCTAssertTrue(StringsDictFile(bytes: bytes, path: "bomb.stringsdict").diagnostics.containsErrors)
        XCTAssertTrue(TableFile(bytes: bytes, path: "bomb.strings", format: .strings).hasErrors)
    }

    /// CoreFoundation reads `bplist0` with any version byte as a binary
    /// property list: so the bomb with `bplist01` (a fuzzer's find: it
    /// hung every reader) or `bplist0x` is held to the same bounds.
    func testAReferenceBombOfAnotherVersionIsRefusedToo() throws {
        let bomb = try Array(Data(contentsOf: URL(fileURLWithPath: fixtures + "/reference-bomb.strings")))
        for version in Array("1x?".utf8) + [0x00, 0xFF] {
            var bytes = bomb
            bytes[7] = version
            let file = StringsFile(bytes: bytes, path: "bomb.strings")
            // (Checked before the other readers are given it: a reader that hands it to Foundation never returns.)
            guard file.form == .binaryPropertyList else { return XCTFail("version \(version): read as \(file.form)") }
            XCTAssertTrue(file.diagnostics.first?.message.hasPrefix("the binary property list decodes into more than") == true,
                          "version \(version): \(file.diagnostics)")
            XCTAssertTrue(StringsDictFile(bytes: bytes, path: "bomb.stringsdict").diagnostics.containsErrors)
            XCTAssertTrue(TableFile(bytes: bytes, path: "bomb.strings", format: .strings).hasErrors)
        }
    }

    func testTheBytesOfRepeatedStringsCountToo() throws {
        // 2¹⁴ references to one 4 KiB string: 16,385 objects (under the count), 64 MiB of text.
        let value = String(repeating: "x", count: 4096)
        let bytes = Self.binaryPlist(repeating: value, depth: 14)
        let file = StringsFile(bytes: bytes, path: "wide.strings")
        XCTAssertTrue(file.diagnostics.first?.message.contains("of strings and data") == true, "\(file.diagnostics)")
        // Within a budget big enough, the same file is read (by Foundation) — it is only a bound.
        let roomy = StringsFile(bytes: Self.binaryPlist(repeating: "leaf", depth: 3), path: "small.strings",
                                limits: TableLimits(maximumFileBytes: 1 << 20, maximumObjects: 1000))
        XCTAssertEqual(roomy.diagnostics.map(\.message), [#"the value of "bomb" must be a string, found an array"#])
    }

    func testTheObjectLimitIsTheConfiguredOne() throws {
        var text = "<plist version=\"1.0\"><dict>"
        for index in 0..<10 { text += "<key>k\(index)</key><string>v</string>" }
        text += "</dict></plist>"
        let object = try PropertyListSerialization.propertyList(from: Data(text.utf8), format: nil)
        let binary = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        XCTAssertFalse(StringsFile(bytes: binary, path: "ten.strings").diagnostics.containsErrors)
        let tight = StringsFile(bytes: binary, path: "ten.strings", limits: TableLimits(maximumObjects: 12))
        XCTAssertTrue(tight.diagnostics.first?.message.contains("more than 12 objects") == true, "\(tight.diagnostics)")
    }

    func testALoopIsRefused() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: fixtures + "/reference-cycle.strings"))
        let file = StringsFile(bytes: bytes, path: "loop.strings")
        XCTAssertEqual(file.diagnostics.map(\.message), ["not a valid binary property list: object 2 holds a reference back to itself (a loop)"])
    }

    func testASetIsRefusedBeforeFoundationBridgesIt() throws {
        // Foundation on Linux crashes bridging this one (a set holding lists), found by damaging a byte of a table.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: fixtures + "/set-of-lists.strings"))
        XCTAssertEqual(StringsFile(bytes: bytes, path: "set.strings").diagnostics.map(\.message),
                       ["not a string table: object 3 (at 23) is a set, which only archives hold"])
    }

    func testTablesThatLieAboutTheirLayoutAreRefusedWithoutReadingPastTheirEnd() throws {
        let good = Self.binaryPlist(repeating: "leaf", depth: 3)
        XCTAssertEqual(StringsFile(bytes: good, path: "g.strings").diagnostics.map(\.message), [#"the value of "bomb" must be a string, found an array"#])
        var random = SplitMix64(seed: 7)
        for _ in 0..<5000 {
            var bytes = good
            // Damage a byte of the trailer, the offset table or an object (never the magic).
            let index = 8 + Int(random.next() % UInt64(bytes.count - 8))
            bytes[index] = UInt8(truncatingIfNeeded: random.next())
            let file = StringsFile(bytes: bytes, path: "d.strings")
            for diagnostic in file.diagnostics { XCTAssertEqual(diagnostic.line, 1) }
        }
        // Counts and offsets that point far past the end.
        var lying = good
        for index in (lying.count - 24)..<(lying.count - 16) { lying[index] = 0xFF }   // the object count
        XCTAssertTrue(StringsFile(bytes: lying, path: "l.strings").diagnostics.first?.message.hasPrefix("not a valid binary property list") == true)
        XCTAssertTrue(StringsFile(bytes: Array("bplist00".utf8) + [0xD1], path: "s.strings").diagnostics.containsErrors)
    }

    /// A binary plist `{"bomb": L}` where L is a list of two references to a
    /// list of two references to … `value`, `depth` lists deep.
    static func binaryPlist(repeating value: String, depth: Int) -> [UInt8] {
        var objects: [[UInt8]] = []
        func ascii(_ text: String) -> [UInt8] {
            let bytes = Array(text.utf8)
            return bytes.count < 15 ? [0x50 | UInt8(bytes.count)] + bytes : [0x5F, 0x11, UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
        }
        // 0: the dictionary; 1: its key; 2...: the lists; last: the value. References are two bytes.
        objects.append([0xD1, 0x00, 0x01, 0x00, 0x02])
        objects.append(ascii("bomb"))
        for level in 0..<depth {
            let next = UInt8(3 + level)
            objects.append([0xA2, 0x00, next, 0x00, next])
        }
        objects.append(ascii(value))
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = bytes.count
        for offset in offsets { bytes += [UInt8(offset >> 24 & 0xFF), UInt8(offset >> 16 & 0xFF), UInt8(offset >> 8 & 0xFF), UInt8(offset & 0xFF)] }
        func big(_ value: Int) -> [UInt8] { (0..<8).reversed().map { UInt8(value >> ($0 * 8) & 0xFF) } }
        bytes += [0, 0, 0, 0, 0, 0, 4, 2] + big(objects.count) + big(0) + big(table)
        return bytes
    }
}
