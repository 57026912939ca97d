import Foundation
import XCTest
@testable import LprojTables

/// A published image's file: named the same by the daemon and every client
/// (a fixed hash, not the process's seed), read back equal, and refused
/// when it holds another table, is cut short or is not one.
final class PublishedImageTests: XCTestCase {
    private let bundle = "/srv/app/Resources"

    func testTheNameIsFixedAndNamesTheWholeAddress() {
        // The same in every process and every build: the daemon writes it, clients find it.
        XCTAssertEqual(PublishedImage.name(bundle: bundle, localization: "fr", table: "Localizable"),
                       PublishedImage.name(bundle: bundle, localization: "fr", table: "Localizable"))
        XCTAssertEqual(PublishedImage.name(bundle: "/a", localization: "b", table: "c"), "cf896bedd139fe90.image")
        let names = Set([PublishedImage.name(bundle: bundle, localization: "fr", table: "Localizable"),
                         PublishedImage.name(bundle: bundle, localization: "fr", table: "InfoPlist"),
                         PublishedImage.name(bundle: bundle, localization: "de", table: "Localizable"),
                         PublishedImage.name(bundle: bundle + "/", localization: "fr", table: "Localizable"),
                         // The separator keeps "fr" + "xLocalizable" apart from "frx" + "Localizable".
                         PublishedImage.name(bundle: bundle, localization: "frx", table: "Localizable")])
        XCTAssertEqual(names.count, 5)
        XCTAssertTrue(names.allSatisfy { $0.count == 16 + PublishedImage.suffix.count && $0.hasSuffix(PublishedImage.suffix) })
    }

    func testAFileReadsBackAsItsTableAndIsRefusedForAnyOther() throws {
        let table = Table(strings: ["home_title": "Accueil", "item": "Article"])
        let bytes = PublishedImage.encode(bundle: bundle, localization: "fr", table: "Localizable", image: TableImage.encode(table))
        let read = try withFile(bytes) { try PublishedImage.table(mapping: $0, bundle: bundle, localization: "fr", table: "Localizable") }
        XCTAssertEqual(read, table)
        XCTAssertTrue(read.isMapped)
        for (bundle, localization, name) in [(bundle, "de", "Localizable"), (bundle, "fr", "InfoPlist"), ("/other", "fr", "Localizable")] {
            XCTAssertThrowsError(try withFile(bytes) { try PublishedImage.table(mapping: $0, bundle: bundle, localization: localization, table: name) }) {
                XCTAssertEqual("\($0)", "the published image holds another table")
            }
        }
        var refusals: [String] = []
        for damaged in [Array(bytes.prefix(bytes.count - 8)), Array(bytes.prefix(10)), [UInt8](repeating: 0, count: 64),
                        Array(bytes.prefix(8)) + [0xFF, 0xFF, 0xFF, 0x7F] + Array(bytes.dropFirst(12))] {
            XCTAssertThrowsError(try withFile(damaged) { try PublishedImage.table(mapping: $0, bundle: bundle, localization: "fr", table: "Localizable") }) {
                refusals.append("\($0)")
            }
        }
        XCTAssertEqual(refusals.count, 4)
        XCTAssertTrue(refusals[1].contains("10 bytes"), refusals[1])
        XCTAssertTrue(refusals[2].contains("no lprojpub magic"), refusals[2])
        XCTAssertTrue(refusals[3].contains("another table"), refusals[3])
    }

    private func withFile<T>(_ bytes: [UInt8], _ body: (Int32) throws -> T) throws -> T {
        let path = NSTemporaryDirectory() + "/published-\(UUID().uuidString).image"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        defer { close(descriptor) }
        return try body(descriptor)
    }
}
