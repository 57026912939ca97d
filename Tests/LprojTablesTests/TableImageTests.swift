import CLinux
import Foundation
@testable import LprojFormats
import LprojTestSupport
import XCTest
@_spi(LprojInternals) @testable import LprojTables

/// Table images: every corpus table reads back equal and answers the same
/// lookups; a damaged, truncated, forged or future image is refused with a
/// reason and never read past its end.
final class TableImageTests: XCTestCase {
    func testEveryCorpusTableReadsBackEqual() throws {
        let corpus = try corpusDirectory()
        var tables = 0
        for url in files(under: corpus, extensions: ["strings", "stringsdict", "xcstrings"]) {
            guard let file = try? TableFile.read(path: url.path), !file.hasErrors else { continue }
            let all: [Table]
            switch file.contents {
            case .table(let table): all = [table]
            case .catalog(let catalog): all = Array(catalog.tables.values)
            }
            for table in all {
                let image = TableImage.encode(table)
                let mapped = try TableImage.table(in: image)
                XCTAssertEqual(mapped, table, url.path)
                XCTAssertEqual(mapped.keys, table.keys, url.path)
                for (key, entry) in table { XCTAssertEqual(mapped[key], entry, "\(url.path): \(key)") }
                XCTAssertNil(mapped["\u{0}not a key"])
                // Materialized over the image's index: the image's seed, not this process's.
                let materialized = mapped.materialized()
                for key in table.keys.prefix(50) { XCTAssertEqual(materialized[key], table[key], "\(url.path): \(key)") }
                tables += 1
            }
        }
        XCTAssertGreaterThan(tables, 700)
    }

    func testRichAndEmptyAndWideTables() throws {
        let rich = Entry(value: .plural(["one": .text("%d file"), "other": .text("%d files")]))
        let table = Table(["files": rich, "plain": Entry(text: "x"), "": Entry(text: "empty key")])
        XCTAssertEqual(try TableImage.table(in: TableImage.encode(table)), table)
        XCTAssertEqual(try TableImage.table(in: TableImage.encode(Table())), Table())
        var builder = TableBuilder()
        for number in 0..<1_000 { builder.add(key: "k\(number)", entry: Entry(text: "v\(number)")) }
        var ignored: [Int] = []
        let wide = builder.finish(duplicates: &ignored, wideSlots: true)
        // Images are written with the slots the entry count needs; the reader accepts either.
        XCTAssertEqual(try TableImage.table(in: TableImage.encode(wide)), wide)
    }

    func testEveryFlippedByteIsRefused() throws {
        let image = TableImage.encode(sampleTable())
        var random = SplitMix64(seed: 24)
        for offset in 0..<image.count {
            var damaged = image
            damaged[offset] ^= UInt8.random(in: 1...255, using: &random)
            XCTAssertThrowsError(try TableImage.table(in: damaged), "byte \(offset) flipped")
        }
    }

    func testEveryTruncationIsRefused() throws {
        let image = TableImage.encode(sampleTable())
        for length in 0..<image.count {
            XCTAssertThrowsError(try TableImage.table(in: Array(image.prefix(length)))) { error in
                XCTAssertFalse("\(error)".isEmpty)
            }
        }
        XCTAssertThrowsError(try TableImage.table(in: image + [0, 0, 0, 0, 0, 0, 0, 0]))
    }

    func testAnImageFromAFutureVersionIsRefusedByName() throws {
        var image = TableImage.encode(sampleTable())
        forge(&image) { $0.storeBytes(of: TableImage.version + 1, toByteOffset: 8, as: UInt32.self) }
        XCTAssertThrowsError(try TableImage.table(in: image)) { error in
            XCTAssertEqual("\(error)", "a table image of version 3; this reader knows version 2")
        }
    }

    /// Forged images carry a correct checksum: the bounds must hold on their own.
    func testForgedImagesWithGoodChecksumsAreRefused() throws {
        let image = TableImage.encode(sampleTable())
        let recordsAt = TableImage.headerSize + TableStorage.slotCount(for: sampleTable().count) * 4
        var keyOutside = image
        forge(&keyOutside) { $0.storeBytes(of: UInt32.max - 4, toByteOffset: recordsAt, as: UInt32.self) }
        XCTAssertThrowsError(try TableImage.table(in: keyOutside)) { XCTAssertTrue("\($0)".contains("key outside")) }
        var valueOutside = image
        forge(&valueOutside) { $0.storeBytes(of: UInt32(1 << 20), toByteOffset: recordsAt + 12, as: UInt32.self) }
        XCTAssertThrowsError(try TableImage.table(in: valueOutside)) { XCTAssertTrue("\($0)".contains("value outside")) }
        var fullIndex = image
        forge(&fullIndex) { base in
            for slot in 0..<TableStorage.slotCount(for: self.sampleTable().count) {
                base.storeBytes(of: UInt32(1), toByteOffset: TableImage.headerSize + slot * 4, as: UInt32.self)
            }
        }
        XCTAssertThrowsError(try TableImage.table(in: fullIndex)) { XCTAssertTrue("\($0)".contains("no empty slot")) }
        var slotOutside = image
        forge(&slotOutside) { $0.storeBytes(of: UInt32(0x00FF_FFFF), toByteOffset: TableImage.headerSize, as: UInt32.self) }
        XCTAssertThrowsError(try TableImage.table(in: slotOutside)) { XCTAssertTrue("\($0)".contains("names no entry")) }
        var hugeCount = image
        forge(&hugeCount) { $0.storeBytes(of: UInt64.max, toByteOffset: 16, as: UInt64.self) }
        XCTAssertThrowsError(try TableImage.table(in: hugeCount)) { XCTAssertTrue("\($0)".contains("sizes")) }
    }

    func testSealedMemoryFilesRoundTripAndUnsealedOnesAreRefused() throws {
        let table = sampleTable()
        let descriptor = try SharedTableImage.file(of: table)
        let mapped = try SharedTableImage.table(in: descriptor)
        close(descriptor)
        XCTAssertEqual(mapped, table)
        XCTAssertEqual(mapped["greeting"]?.text, "Hello")

        // The same bytes in a file anyone could still change are refused.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("image-\(getpid())").path
        let image = TableImage.encode(table)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(image)))
        defer { unlink(path) }
        let plain = open(path, O_RDONLY)
        defer { close(plain) }
        XCTAssertThrowsError(try SharedTableImage.table(in: plain)) { XCTAssertTrue("\($0)".contains("not a sealed memory file")) }
        // A sealed file cannot be written to, by anyone.
        let again = try SharedTableImage.file(of: table)
        defer { close(again) }
        XCTAssertEqual(write(again, [UInt8](repeating: 0, count: 8), 8), -1)
        XCTAssertEqual(ftruncate(again, 8), -1)
    }

    // MARK: - Helpers

    private func sampleTable() -> Table {
        Table(["greeting": Entry(text: "Hello"), "farewell": Entry(text: "Goodbye, and thanks for all the fish"),
               "files": Entry(value: .plural(["one": .text("%d file"), "other": .text("%d files")]))])
    }

    /// Changes `image` through `body`, then writes the checksum the change calls for.
    private func forge(_ image: inout [UInt8], _ body: (UnsafeMutableRawPointer) -> Void) {
        image.withUnsafeMutableBytes { bytes in
            body(bytes.baseAddress!)
            bytes.baseAddress!.storeBytes(of: TableImage.checksum(UnsafeRawBufferPointer(bytes)), toByteOffset: TableImage.checksumOffset, as: UInt64.self)
        }
    }
}
