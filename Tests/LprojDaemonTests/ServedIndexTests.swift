import LprojPaths
import LprojTables
import XCTest
@testable import LprojDaemon

/// The served tables' index: by bundle, localization and name, by bytes.
final class ServedIndexTests: XCTestCase {
    private let nfc = "Caf\u{E9}", nfd = "Cafe\u{301}"

    func testServesReplacesAndRemovesByAddress() {
        var index = ServedIndex()
        let address = TableAddress(bundle: "/r/App", localization: "de", table: "Localizable")
        XCTAssertNil(index.serve(Table(strings: ["a": "A"]), at: address))
        XCTAssertEqual(index.serve(Table(strings: ["a": "B"]), at: address)?["a"]?.text, "A", "the table before comes back")
        XCTAssertEqual(index[address]?["a"]?.text, "B")
        XCTAssertEqual(index.count, 1)
        XCTAssertEqual(index.serve(nil, at: address)?["a"]?.text, "B")
        XCTAssertNil(index.serve(nil, at: address), "nothing there twice")
        XCTAssertEqual(index.count, 0)
        XCTAssertNil(index[address])
    }

    func testAnEmptiedLocalizationAndBundleAreNoLongerServed() {
        var index = ServedIndex()
        let bundle = ExactName("/r/App")
        let de = TableAddress(bundle: "/r/App", localization: "de", table: "A"), fr = TableAddress(bundle: "/r/App", localization: "fr", table: "A")
        index.serve(Table(strings: ["k": "v"]), at: de)
        index.serve(Table(strings: ["k": "v"]), at: fr)
        index.serve(nil, at: de)
        XCTAssertFalse(index.has(bundle: bundle, localization: ExactName("de")))
        XCTAssertTrue(index.has(bundle: bundle, localization: ExactName("fr")))
        XCTAssertEqual(index.bundleCount, 1)
        index.serve(nil, at: fr)
        XCTAssertFalse(index.has(bundle: bundle))
        XCTAssertEqual(index.bundleCount, 0)
        XCTAssertNil(index.localizations(of: bundle))
    }

    func testNamesThatDifferOnlyInNormalizationAreTwo() {
        var index = ServedIndex()
        for (number, name) in [nfc, nfd].enumerated() {
            index.serve(Table(strings: ["k": "\(number)"]), at: TableAddress(bundle: "/r/" + name, localization: name, table: name))
        }
        XCTAssertEqual(index.count, 2)
        XCTAssertEqual(index.bundleCount, 2)
        XCTAssertEqual(index[TableAddress(bundle: "/r/" + nfd, localization: nfd, table: nfd)]?["k"]?.text, "1")
        XCTAssertNil(index[TableAddress(bundle: "/r/" + nfc, localization: nfd, table: nfc)])
        XCTAssertEqual(index.tables(of: ExactName("/r/" + nfc)).count, 1)
    }

    func testIteratesEveryTableWithItsAddress() {
        var index = ServedIndex()
        var expected: [TableAddress: String] = [:]
        for bundle in ["/r/A", "/r/B"] {
            for localization in ["en", "de", "ja"] {
                for table in ["One", "Two"] {
                    let address = TableAddress(bundle: bundle, localization: localization, table: table)
                    expected[address] = "\(bundle) \(localization) \(table)"
                    index.serve(Table(strings: ["k": expected[address]!]), at: address)
                }
            }
        }
        var seen: [TableAddress: String] = [:]
        for (address, table) in index { seen[address] = table["k"]?.text }
        XCTAssertEqual(seen, expected)
        XCTAssertEqual(index.tables(of: ExactName("/r/B")).mapValues { $0["k"]?.text }, expected.filter { $0.key.bundle == "/r/B" })
    }
}
