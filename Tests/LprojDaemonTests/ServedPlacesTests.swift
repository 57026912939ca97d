import Foundation
import LprojFormats
import LprojPaths
import LprojTables
import LprojWatch
import XCTest
@testable import LprojDaemon

/// Where the catalog puts a file (worked out once per directory), and
/// reading paths given in any order, a directory at a time.
final class ServedPlacesTests: XCTestCase {
    func testPlacesOfTableFiles() {
        func place(_ path: String) -> String {
            guard let place = ServedTables.classify(path) else { return "-" }
            return "\(place.format.rawValue) \(place.bundle) \(place.localization ?? "nil") \(place.table)"
        }
        XCTAssertEqual(place("/r/B/en.lproj/Localizable.strings"), "strings /r/B en Localizable")
        XCTAssertEqual(place("/r/B/zh-Hant.lproj/Plurals.stringsdict"), "stringsdict /r/B zh-Hant Plurals")
        XCTAssertEqual(place("/r/B/Menu.xcstrings"), "xcstrings /r/B nil Menu")
        XCTAssertEqual(place("/r/B/en.lproj/Menu.xcstrings"), "xcstrings /r/B/en.lproj nil Menu", "a catalog's bundle is its directory")
        XCTAssertEqual(place("/r/B/en.lproj/a.b.strings"), "strings /r/B en a.b", "the last dot starts the extension")
        XCTAssertEqual(place("/r/B/en.lproj/.x.strings"), "strings /r/B en .x")
        XCTAssertEqual(place("/r/B/en.lproj/.strings"), "-", "no table name")
        XCTAssertEqual(place("/r/B/.lproj/X.strings"), "-", "no localization")
        XCTAssertEqual(place("en.lproj/X.strings"), "-", "no bundle directory")
        XCTAssertEqual(place("/r/B/Base/X.strings"), "-", "a .strings file outside an .lproj")
        XCTAssertEqual(place("/r/B/en.lproj/X.Strings"), "-", "extensions are case-sensitive")
        XCTAssertEqual(place("/r/B/en.lproj/X.txt"), "-")
        XCTAssertEqual(place("X.strings"), "-")
        XCTAssertEqual(place("/r/Caf\u{E9}/en.lproj/X.strings"), "strings /r/Caf\u{E9} en X")
    }

    /// `TablePlace` forms the paths it parses: one rule both ways.
    func testAPlaceFormsThePathItIsReadFrom() {
        let places = [TablePlace(format: .strings, bundle: "/srv/App", localization: "zh-Hant", table: "Localizable"),
                      TablePlace(format: .stringsdict, bundle: "/srv/Café", localization: "Base", table: "Main"),
                      TablePlace(format: .xcstrings, bundle: "/srv/App/Resources", localization: nil, table: "InfoPlist")]
        for place in places { XCTAssertEqual(TablePlace.of(place.path), place, place.path) }
        XCTAssertEqual(places[0].path, "/srv/App/zh-Hant.lproj/Localizable.strings")
        XCTAssertEqual(places[2].path, "/srv/App/Resources/InfoPlist.xcstrings")
        XCTAssertEqual(TablePlace.files(of: "T", localization: "en", in: "/b").stringsdict, "/b/en.lproj/T.stringsdict")
        XCTAssertEqual(TablePlace.directory(of: "pt-BR", in: "/b"), "/b/pt-BR.lproj")
    }

    func testABundleStringIsSharedByItsLocalizations() {
        let english = DirectoryPlaces("/r/Bundle-with-a-long-name/en.lproj")
        let french = DirectoryPlaces("/r/Bundle-with-a-long-name/fr.lproj", bundleLike: english.bundle!)
        XCTAssertEqual(french.bundle, english.bundle)
        let sameStorage = english.bundle!.utf8.withContiguousStorageIfAvailable { a in
            french.bundle!.utf8.withContiguousStorageIfAvailable { b in a.baseAddress == b.baseAddress }
        }
        XCTAssertEqual(sameStorage, true)
        // Only bytes make it the same bundle: the NFD spelling is another directory.
        let composed = DirectoryPlaces("/r/Caf\u{E9}/en.lproj")
        let decomposed = DirectoryPlaces("/r/Cafe\u{301}/en.lproj", bundleLike: composed.bundle!)
        XCTAssertEqual(Array(decomposed.bundle!.utf8), Array("/r/Cafe\u{301}".utf8))
    }

    func testPathsInAnyOrderAreReadFromTheirOwnDirectory() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("places-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        var paths: [String] = []
        for bundle in ["A", "B"] {
            for localization in ["en", "fr"] {
                let directory = "\(root)/\(bundle)/\(localization).lproj"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                for table in ["One", "Two"] {
                    let path = "\(directory)/\(table).strings"
                    try Data("\"where\" = \"\(bundle) \(localization) \(table)\";\n".utf8).write(to: URL(fileURLWithPath: path))
                    paths.append(path)
                }
            }
        }
        // Interleaved: consecutive paths rarely share a directory; and one that is not a table.
        let order = [0, 4, 1, 2, 7, 3, 5, 6].map { paths[$0] } + ["\(root)/A/en.lproj/notes.txt"]
        var reader = TableFileReader()
        let loaded = TableReading.load(order, with: &reader, exclusions: Exclusions(patterns: [], roots: [root]), links: .nowhere,
                                       keys: KeyShelf())
        XCTAssertEqual(loaded.map(\.path.string), Array(order.dropLast()))
        for item in loaded {
            let place = try XCTUnwrap(ServedTables.classify(item.path.string))
            XCTAssertEqual(item.place.bundle, place.bundle)
            XCTAssertEqual(item.place.localization, place.localization)
            XCTAssertEqual(item.place.table, place.table)
            guard case .success(let file) = item.outcome, case .table(let table) = file.contents else {
                return XCTFail("\(item.path.string) was not read")
            }
            let bundle = (place.bundle as NSString).lastPathComponent
            XCTAssertEqual(table["where"]?.text, "\(bundle) \(place.localization!) \(place.table)")
        }
    }
}
