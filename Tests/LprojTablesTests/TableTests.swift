import Foundation
@testable import LprojFormats
import LprojPaths
import LprojTestSupport
import XCTest
@testable import LprojTables

final class TableTests: XCTestCase {
    func testDiff() {
        let old = Table(strings: ["home": "Home", "mine": "Me", "gone": "x"])
        let new = Table(strings: ["home": "Start", "mine": "Me", "login": "Log In"])
        let diff = TableDiff(from: old, to: new)
        XCTAssertEqual(diff.added, ["login": Entry(text: "Log In")])
        XCTAssertEqual(diff.changed, ["home": .init(old: Entry(text: "Home"), new: Entry(text: "Start"))])
        XCTAssertEqual(diff.removed, ["gone"])
        XCTAssertTrue(TableDiff(from: new, to: new).isEmpty)
    }

    func testOverlayLetsStringsDictWin() {
        let strings = Table(strings: ["a": "1", "n": "%d items"])
        let dict = Table(["n": Entry(value: .text("%#@n@"), substitutions: ["n": Substitution(formatSpecifier: "d", variants: .plural(["other": .text("%d")]))])])
        let merged = strings.overlaid(with: dict)
        XCTAssertEqual(merged["a"]?.text, "1")
        XCTAssertEqual(merged["n"], dict["n"])
    }

    func testWriterEscapes() throws {
        let table = Table(strings: ["q\"uote": "a\\b\n\t\r\u{07}\u{01}\u{7F}é😀", "plain": "x"])
        let text = try StringsWriter.text(for: table)
        XCTAssertEqual(text, "\"plain\" = \"x\";\n\"q\\\"uote\" = \"a\\\\b\\n\\t\\r\\a\\U0001\\U007Fé😀\";\n")
        XCTAssertEqual(StringsFile(bytes: Array(text.utf8), path: "w.strings").table, table)
        XCTAssertEqual(try PropertyListSerialization.propertyList(from: Data(text.utf8), format: nil) as? [String: String], strings(table))
    }

    func testWriterRefusesVariations() {
        let table = Table(["n": Entry(value: .plural(["other": .text("x")]))])
        XCTAssertThrowsError(try StringsWriter.text(for: table))
    }

    /// parse(write(t)) == t for random tables, including every awkward character.
    func testRoundTripProperty() throws {
        var generator = SplitMix64(seed: 0x5EED)
        let alphabet: [Unicode.Scalar] = Array("aZ09 _-./:;=\"'\\{}()<>@#$%*\n\r\t".unicodeScalars)
            + [0x00, 0x01, 0x07, 0x0B, 0x1F, 0x7F, 0xA0, 0xE9, 0x2028, 0x2029, 0xFEFF, 0xFF1B, 0x201C, 0x1F600, 0x10FFFF].map { Unicode.Scalar($0)! }
        for _ in 0..<300 {
            var entries: [String: String] = [:]
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                func randomString() -> String {
                    var string = ""
                    for _ in 0..<Int.random(in: 0...20, using: &generator) {
                        string.unicodeScalars.append(alphabet.randomElement(using: &generator)!)
                    }
                    return string
                }
                entries[randomString()] = randomString()
            }
            let table = Table(strings: entries)
            let text = try StringsWriter.text(for: table)
            let parsed = StringsFile(bytes: Array(text.utf8), path: "r.strings")
            XCTAssertEqual(parsed.diagnostics, [])
            XCTAssertEqual(parsed.table, table, text)
            let theirs = try PropertyListSerialization.propertyList(from: Data(text.utf8), format: nil) as? [String: String]
            XCTAssertEqual(theirs, entries)
        }
    }

    func testReaderRefusesFilesOverTheLimit() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lproj-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("Big.strings").path
        try Data(repeating: UInt8(ascii: " "), count: 2048).write(to: URL(fileURLWithPath: path))
        let refused = try TableFile.read(path: path, limits: TableLimits(maximumFileBytes: 1024))
        XCTAssertTrue(refused.hasErrors)
        XCTAssertTrue(refused.diagnostics[0].message.contains("1 KiB limit"), refused.diagnostics[0].message)
        XCTAssertFalse(try TableFile.read(path: path, limits: TableLimits(maximumFileBytes: 4096)).hasErrors)
        XCTAssertThrowsError(try TableFile.read(path: directory.appendingPathComponent("missing.strings").path))
        XCTAssertThrowsError(try TableFile.read(path: directory.path + "/"))
    }

    func testAReaderKeepsItsBufferButNotAHugeOne() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lproj-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let small = directory.appendingPathComponent("Small.strings").path
        let large = directory.appendingPathComponent("Large.strings").path
        let tooLarge = directory.appendingPathComponent("TooLarge.strings").path
        try Data("\"a\" = \"b\";\n".utf8).write(to: URL(fileURLWithPath: small))
        let line = "\"key\" = \"\(String(repeating: "v", count: 100))\";\n"
        try Data(String(repeating: line, count: 20_000).utf8).write(to: URL(fileURLWithPath: large))
        try Data(String(repeating: line, count: 40_000).utf8).write(to: URL(fileURLWithPath: tooLarge))
        var reader = TableFileReader(limits: TableLimits(maximumFileBytes: 3 << 20))
        XCTAssertEqual(try Self.table(reader.read(path: small))["a"]?.text, "b")
        XCTAssertGreaterThan(reader.bufferBytes, 0, "kept for the next file")
        XCTAssertEqual(try Self.table(reader.read(path: large)).count, 1)
        XCTAssertLessThanOrEqual(reader.bufferBytes, TableFileReader.keptBufferBytes, "a 2 MB file's buffer is not kept")
        XCTAssertTrue(try reader.read(path: tooLarge).hasErrors, "over the limit")
        XCTAssertLessThanOrEqual(reader.bufferBytes, TableFileReader.keptBufferBytes, "nor the buffer of a refused one")
        XCTAssertEqual(try Self.table(reader.read(path: small))["a"]?.text, "b")
    }

    private static func table(_ file: TableFile) -> Table {
        guard case .table(let table) = file.contents else { return Table() }
        return table
    }

    func testFormatByExtension() {
        XCTAssertEqual(TableFormat(path: "/a/en.lproj/Localizable.strings"), .strings)
        XCTAssertEqual(TableFormat(path: "x.stringsdict"), .stringsdict)
        XCTAssertEqual(TableFormat(path: "x.xcstrings"), .xcstrings)
        XCTAssertNil(TableFormat(path: "x.strings~"))
        XCTAssertNil(TableFormat(path: "a.strings/readme"))
    }
}

