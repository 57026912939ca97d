import Foundation
@testable import LprojExchange
import XCTest
@testable import LprojTables

/// XLIFF as Xcode exchanges it: unit ids both ways, the reader's refusals,
/// and every table of the shared corpus exported, read back and imported
/// with no change to any byte.
final class XLIFFTests: XCTestCase {
    private let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/corpus").path

    func testUnitIDsAreXcodesAndReadBack() {
        let plural = TransUnitID(key: "%lld Recent Visitors", steps: [.plural("one")])
        XCTAssertEqual(plural.id(.catalog), "%lld Recent Visitors|==|plural.one")
        let variable = TransUnitID(key: "%lld Recent Visitors", steps: [.substitution("recentVisitors"), .plural("other")])
        XCTAssertEqual(variable.id(.stringsDict), "/%lld Recent Visitors:dict/recentVisitors:dict/other:dict/:string")
        XCTAssertEqual(variable.id(.catalog), "%lld Recent Visitors|==|substitutions.recentVisitors.plural.other")
        XCTAssertEqual(TransUnitID(key: "%lld Recent Visitors").id(.stringsDict), "/%lld Recent Visitors:dict/NSStringLocalizedFormatKey:dict/:string")
        XCTAssertEqual(TransUnitID(key: "Bird Food Shop", steps: [.device("applewatch")]).id(.catalog), "Bird Food Shop|==|device.applewatch")
        // Keys holding the separators' characters still read back.
        for id in [plural, variable, TransUnitID(key: "a:dict/b"), TransUnitID(key: "x|==|y", steps: [.plural("few")]),
                   TransUnitID(key: "Bird", steps: [.device("iphone"), .plural("one")]), TransUnitID(key: "")] {
            XCTAssertEqual(TransUnitID(id.id(.catalog), encoding: .catalog), id, id.id(.catalog))
        }
        // A .stringsdict has a format and its variables' forms, or a device rule.
        for id in [variable, TransUnitID(key: "a:dict/b"), TransUnitID(key: "a:dict/b", steps: [.substitution("n"), .plural("one")]),
                   TransUnitID(key: "Bird", steps: [.device("iphone")]), TransUnitID(key: "")] {
            XCTAssertEqual(TransUnitID(id.id(.stringsDict), encoding: .stringsDict), id, id.id(.stringsDict))
        }
        XCTAssertNil(TransUnitID("key|==|plural", encoding: .catalog))
        XCTAssertNil(TransUnitID("key|==|colour.red", encoding: .catalog))
        XCTAssertNil(TransUnitID("/key:dict/count:dict/several:dict/:string", encoding: .stringsDict))
    }

    func testTheReaderNamesLineAndColumnOfWhatIsWrong() {
        func failure(_ text: String) -> String {
            do {
                _ = try XLIFFReader.read(Array(text.utf8), path: "t.xliff")
                return "read"
            } catch {
                return error.description
            }
        }
        XCTAssertEqual(failure("<xliff version=\"1.2\">\n<file original=\"a\" source-language=\"en\">\n<body>\n</bdy>\n</file></xliff>"),
                       "t.xliff:4:7: error: not well-formed XML: an end tag that does not match its start tag")
        XCTAssertTrue(failure("<xliff version=\"2.0\"/>").hasPrefix("t.xliff:1:"), failure("<xliff version=\"2.0\"/>"))
        XCTAssertTrue(failure("<xliff version=\"2.0\"/>").contains("XLIFF version \"2.0\" is not 1.2"))
        XCTAssertTrue(failure("<html/>").contains("not XLIFF 1.2's <xliff>"))
        XCTAssertEqual(failure("<xliff version=\"1.2\">\n  <file source-language=\"en\"/>\n</xliff>"), "t.xliff:2:29: error: <file> has no original attribute")
        let inline = "<xliff version=\"1.2\"><file original=\"a\" source-language=\"en\"><body>\n<trans-unit id=\"k\"><source>a <g id=\"1\">b</g></source></trans-unit></body></file></xliff>"
        XCTAssertTrue(failure(inline).contains("<g> inside <source>"), failure(inline))
        XCTAssertEqual(failure(""), "t.xliff:1:1: error: no <xliff> element")
        XCTAssertTrue(failure("<xliff version=\"1.2\"><a></xliff>").contains("an end tag that does not match"), failure("<xliff version=\"1.2\"><a></xliff>"))
        // A DTD, and so any entity, internal or external, is refused before parsing: an entity became an empty target.
        let external = "<?xml version=\"1.0\"?>\n<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><xliff version=\"1.2\"><file original=\"a\" "
            + "source-language=\"en\"><body><trans-unit id=\"k\"><source>&e;</source></trans-unit></body></file></xliff>"
        XCTAssertTrue(failure(external).hasPrefix("t.xliff:2:1: error: a document type declaration (<!DOCTYPE>)"), failure(external))
        let inner = "<?xml version=\"1.0\"?><!-- x --><!DOCTYPE x [<!ENTITY xxe \"\">]><xliff version=\"1.2\"><file original=\"a\" "
            + "source-language=\"en\"><body><trans-unit id=\"k\"><source>a</source><target>&xxe;</target></trans-unit></body></file></xliff>"
        XCTAssertTrue(failure(inner).contains("t.xliff:1:32: error: a document type declaration"), failure(inner))
        // "<!DOCTYPE" as text after the root is text, not a DTD.
        XCTAssertEqual(failure("<xliff version=\"1.2\"><file original=\"a\" source-language=\"en\"><body><trans-unit id=\"k\"><source>"
                               + "<![CDATA[<!DOCTYPE x>]]></source></trans-unit></body></file></xliff>"), "read")
    }

    func testTextSurvivesWritingAndReading() throws {
        let texts = ["plain", "a & b < c > d \"quoted\" 'single'", "line\nbreak", "carriage\r\nreturn", "\ttab", "  leading and trailing  ",
                     "emoji 👩‍👩‍👧 and é vs e\u{301}", "]]> and <![CDATA[", "%1$@ %#@count@ %%", ""]
        let units = texts.enumerated().map { XLIFFDocument.Unit(id: "id \($0.offset) " + $0.element, source: $0.element, target: $0.element,
                                                                state: "translated", note: $0.element) }
        let document = XLIFFDocument(files: [.init(original: "a b/é.xcstrings", sourceLanguage: "en", targetLanguage: "de", units: units)])
        let read = try XLIFFReader.read(document.rendered(tool: .init(id: "t", name: "t", version: "1")), path: "t.xliff")
        XCTAssertEqual(read.files.count, 1)
        XCTAssertEqual(read.files[0].original, "a b/é.xcstrings")
        XCTAssertEqual(read.files[0].units.map(\.id), units.map(\.id))
        XCTAssertEqual(read.files[0].units.map(\.source), texts)
        XCTAssertEqual(read.files[0].units.map(\.target), texts)
        XCTAssertEqual(read.files[0].units.map(\.note), texts)
        XCTAssertFalse(XLIFFDocument.canHold("bell\u{7}"))
    }

    func testPluralFormsFollowTheTargetLanguagesCategories() {
        let source = Table(["%d files": Entry(value: .text("%#@n@"), substitutions: [
            "n": Substitution(formatSpecifier: "d", variants: .plural(["one": .text("%d file"), "other": .text("%d files")]))])])
        let export = LocalizationExport(original: "App/en.lproj/Localizable.stringsdict", encoding: .stringsDict, keys: ["%d files"], source: source)
        let russian = export.file(sourceLanguage: "en", language: "ru", target: nil)
        XCTAssertEqual(russian.units.map(\.id), ["/%d files:dict/NSStringLocalizedFormatKey:dict/:string",
                                                 "/%d files:dict/n:dict/one:dict/:string", "/%d files:dict/n:dict/few:dict/:string",
                                                 "/%d files:dict/n:dict/many:dict/:string", "/%d files:dict/n:dict/other:dict/:string"])
        XCTAssertEqual(russian.units.map(\.source), ["%#@n@", "%d file", "%d files", "%d files", "%d files"])
        let japanese = export.file(sourceLanguage: "en", language: "ja", target: nil)
        XCTAssertEqual(japanese.units.map(\.id), ["/%d files:dict/NSStringLocalizedFormatKey:dict/:string", "/%d files:dict/n:dict/other:dict/:string"])
    }

    /// Every bundle and catalog of the corpus: export each language, read
    /// the XLIFF back (every unit's id, source, target and note as written),
    /// plan its import: nothing to add or change, and no byte written.
    func testEveryCorpusTableExportsAndImportsWithoutChange() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("xliff-corpus-\(UUID().uuidString)").path
        try FileManager.default.copyItem(atPath: corpus, toPath: scratch)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let before = try snapshot(scratch)
        var sources: [LocalizationExport.Source] = []
        for bundle in try bundles(under: scratch) {
            do {
                sources += try LocalizationExport.bundle(at: bundle, base: scratch, tables: nil)
            } catch {
                // A bundle whose tables have errors is not exported: say which, so a change in that is seen.
                XCTAssertTrue(error.problems.allSatisfy { $0.contains("error:") }, "\(bundle): \(error.problems)")
                continue
            }
        }
        for catalog in try files(under: scratch, suffix: ".xcstrings") where !catalog.contains(".lproj/") {
            sources.append(try LocalizationExport.catalog(at: catalog, base: scratch))
        }
        XCTAssertGreaterThan(sources.count, 20)
        var units = 0, translated = 0, withoutXML = 0
        let languages = Set(sources.flatMap { $0.translations.keys }).subtracting(["Base"]).sorted()
        for language in languages {
            let all = sources.map { $0.file(language: language) }.filter { !$0.units.isEmpty }
            let files = all.filter { file in
                file.units.allSatisfy { [$0.id, $0.source, $0.target ?? "", $0.note ?? ""].allSatisfy(XLIFFDocument.canHold) }
            }
            withoutXML += all.count - files.count
            let document = XLIFFDocument(files: files)
            let read = try XLIFFReader.read(document.rendered(tool: .init(id: "t", name: "t", version: "1")), path: language + ".xliff")
            XCTAssertEqual(read.files.map { $0.units.map { [$0.id, $0.source, $0.target ?? "-", $0.note ?? "-", $0.state ?? "-"] } },
                           files.map { $0.units.map { [$0.id, $0.source, $0.target ?? "-", $0.note ?? "-", $0.state ?? "-"] } }, language)
            let plan = LocalizationImport(read, path: language + ".xliff", root: scratch)
            XCTAssertEqual(plan.problems.map(\.description), [], language)
            for table in plan.plans {
                XCTAssertEqual(table.added + table.changed, 0, "\(language) \(table.original)")
                units += table.unchanged
            }
            translated += files.reduce(0) { $0 + $1.units.filter { $0.target != nil }.count }
            XCTAssertEqual(try plan.apply().count, 0)
        }
        XCTAssertEqual(withoutXML, 0)
        XCTAssertEqual(units, translated)
        XCTAssertGreaterThan(units, 50_000)
        XCTAssertEqual(try snapshot(scratch), before)
        print("corpus: \(sources.count) tables, \(languages.count) languages, \(units) translated units exported and imported unchanged; "
              + "\(withoutXML) table-languages hold text XML cannot carry")
    }

    // MARK: - Helpers

    private func bundles(under root: String) throws -> [String] {
        Set(try files(under: root, suffix: ".lproj", directories: true).map { ($0 as NSString).deletingLastPathComponent }).sorted()
    }

    private func files(under root: String, suffix: String, directories: Bool = false) throws -> [String] {
        let enumerator = try XCTUnwrap(FileManager.default.enumerator(atPath: root))
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            guard relative.hasSuffix(suffix) else { continue }
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory)
            if isDirectory.boolValue == directories { found.append(root + "/" + relative) }
        }
        return found.sorted()
    }

    private func snapshot(_ root: String) throws -> [String: Data] {
        var contents: [String: Data] = [:]
        let enumerator = try XCTUnwrap(FileManager.default.enumerator(atPath: root))
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory)
            if !isDirectory.boolValue { contents[relative] = FileManager.default.contents(atPath: root + "/" + relative) }
        }
        return contents
    }
}
