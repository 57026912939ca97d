import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import XCTest

/// The first load (read on worker threads while the watches are set up, taken in
/// batch by batch) serves what a fresh parse of the disk gives, however the
/// files of a table (`.strings`, `.stringsdict`, `.xcstrings`) are listed.
final class FirstLoadTests: XCTestCase {
    func testTablesComposedFromSeveralFilesMatchAFreshParse() throws {
        let daemon = try DaemonProcess()
        var bundles: [String] = []
        // Enough directories that both listing orders of a table's files
        // occur, and that the walk hands over several batches (of 256 files).
        let bundleCount = 200
        for number in 0..<bundleCount {
            let bundle = "B\(number)"
            bundles.append(daemon.root + "/" + bundle)
            try daemon.write("\(bundle)/en.lproj/Localizable.strings", "\"title\" = \"Title \(number)\";\n\"item_count\" = \"plain\";\n")
            if number % 2 == 0 {
                try daemon.write("\(bundle)/en.lproj/Localizable.stringsdict", SavePatternTests.pluralDictionary)
            }
            try daemon.write("\(bundle)/fr.lproj/Menu.strings", "\"open\" = \"Ouvrir\";\n\"close\" = \"Fermer \(number)\";\n")
            if number % 3 == 0 {
                try daemon.write("\(bundle)/Menu.xcstrings", """
                    {"sourceLanguage":"en","version":"1.0","strings":{"open":{"localizations":{
                      "fr":{"stringUnit":{"state":"translated","value":"Ouvrir (catalogue)"}},
                      "ja":{"stringUnit":{"state":"translated","value":"開く"}}}}}}
                    """)
            }
            try daemon.write("\(bundle)/de.lproj/Broken.strings", "\"a\" = ;\n")
        }
        try daemon.start()
        defer { XCTAssertEqual(daemon.stop(), 0, daemon.log) }
        let connection = try daemon.connect()
        _ = try connection.send(Hello(client: "tests"))
        let snapshot = try connection.send(Snapshot()).tables
        let served = Mirror(snapshot: snapshot)
        let disk = try Mirror(disk: bundles)
        let differing = Set(served.tables.keys).union(disk.tables.keys).filter { served.tables[$0] != disk.tables[$0] }
        XCTAssertEqual(differing.sorted(), [], "tables served unlike a fresh parse of the disk")
        XCTAssertEqual(served.tables[Mirror.key(daemon.root + "/B3", "fr", "Menu")]?["open"]?.text, "Ouvrir (catalogue)")
        XCTAssertEqual(served.tables[Mirror.key(daemon.root + "/B1", "fr", "Menu")]?["open"]?.text, "Ouvrir")
        XCTAssertNil(served.tables[Mirror.key(daemon.root + "/B0", "de", "Broken")], "a broken table with no good version is not served")
        let status = try connection.send(Status())
        XCTAssertEqual(status.tables, snapshot.count)
        XCTAssertEqual(status.counters["parse-failures"], UInt64(bundleCount))
    }

    /// Linux names are bytes: a directory named with a precomposed "é" and
    /// one named with "e" + U+0301 are two bundles (Swift's `==` on
    /// strings would make them one).
    func testNamesThatDifferOnlyInNormalizationAreDifferentBundles() throws {
        let daemon = try DaemonProcess()
        let composed = "Caf\u{E9}", decomposed = "Cafe\u{301}"
        XCTAssertNotEqual(Array(composed.utf8), Array(decomposed.utf8))
        try daemon.write("\(composed)/en.lproj/Localizable.strings", "\"title\" = \"composed\";\n")
        try daemon.write("\(decomposed)/en.lproj/Localizable.strings", "\"title\" = \"decomposed\";\n")
        try daemon.start()
        defer { XCTAssertEqual(daemon.stop(), 0, daemon.log) }
        let connection = try daemon.connect()
        _ = try connection.send(Hello(client: "tests"))
        let tables = try connection.send(Snapshot()).tables
        let byBytes = Dictionary(tables.map { (Array($0.bundle.utf8), $0.entries["title"]?.text) }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(tables.count, 2, "\(tables.map(\.bundle))")
        XCTAssertEqual(byBytes[Array((daemon.root + "/" + composed).utf8)], "composed")
        XCTAssertEqual(byBytes[Array((daemon.root + "/" + decomposed).utf8)], "decomposed")
        // `list` shows both, each with its own table.
        let listed = try connection.send(List()).bundles
        XCTAssertEqual(listed.map { Array($0.path.utf8) }.sorted { $0.lexicographicallyPrecedes($1) },
                       [composed, decomposed].map { Array((daemon.root + "/" + $0).utf8) }.sorted { $0.lexicographicallyPrecedes($1) })
        XCTAssertEqual(listed.map { $0.localizations.map(\.name) }, [["en"], ["en"]])
        XCTAssertEqual(listed.map { $0.localizations.first?.tables.map(\.entries) }, [[1], [1]])
    }
}
