import Foundation
@testable import LprojBundles
import LprojClient
import LprojPaths
import LprojProcessTesting
import LprojProtocol
import LprojTables
import XCTest
import Foundation

/// One rule for where a file belongs (`TablePlace`): what the daemon serves
/// and what a client reads from disk without it are the same tables.
final class OneRuleTests: XCTestCase {
    func testTheOfflineLoadEqualsTheDaemonsSnapshot() throws {
        let daemon = try DaemonProcess(config: "[Watch]\nExclude=skipped.lproj App/en.lproj/Excluded.strings\n")
        defer { XCTAssertEqual(daemon.stop(), 0, daemon.log) }
        let files: KeyValuePairs<String, String> = [
            "App/en.lproj/Localizable.strings": "\"home\" = \"Home\";\n\"item_count\" = \"plain\";\n",
            "App/en.lproj/Localizable.stringsdict": SavePatternTests.pluralDictionary,
            "App/en.lproj/Menu.strings": "\"open\" = \"Open (strings)\";\n\"close\" = \"Close\";\n",
            "App/Menu.xcstrings": """
                {"sourceLanguage":"en","version":"1.0","strings":{"open":{"localizations":{
                "en":{"stringUnit":{"state":"translated","value":"Open"}},
                "fr":{"stringUnit":{"state":"translated","value":"Ouvrir"}}}}}}
                """,
            "App/Base.lproj/Main.strings": "\"title\" = \"Base title\";\n",
            "App/English.lproj/Legacy.strings": "\"old\" = \"Legacy\";\n",
            "App/zh_CN.lproj/Localizable.strings": "\"home\" = \"主页\";\n",
            "App/de.lproj/Broken.strings": "\"unterminated = ;\n",
            "App/de.lproj/Localizable.strings": "\"home\" = \"Start\";\n",
            "App/en.lproj/.#Draft.strings": "\"draft\" = \"an editor's temporary\";\n",
            "App/en.lproj/Excluded.strings": "\"x\" = \"excluded by path\";\n",
            "App/skipped.lproj/Localizable.strings": "\"x\" = \"excluded by name\";\n",
            "App/en.lproj/Nested.lproj/Inner.strings": "\"x\" = \"a bundle of its own\";\n",
            "Elsewhere/Target.strings": "\"linked\" = \"through a link\";\n",
        ]
        for (path, text) in files { try daemon.write(path, text) }
        try FileManager.default.createDirectory(atPath: daemon.directory + "/outside", withIntermediateDirectories: true)
        try Data("\"secret\" = \"outside every root\";\n".utf8).write(to: URL(fileURLWithPath: daemon.directory + "/outside/Secret.strings"))
        // Links are followed where they lead inside the root (`LinkPolicy`): a linked .lproj, a linked table.
        try daemon.shell("ln -s en.lproj App/linked.lproj && ln -s ../../Elsewhere/Target.strings App/en.lproj/Linked.strings")
        // Never out of every root, nor round a loop, nor when dangling.
        try daemon.shell("ln -s ../../../outside/Secret.strings App/en.lproj/Secret.strings && ln -s ../../outside App/outside.lproj"
                         + " && ln -s .. App/en.lproj/Loop.lproj && ln -s missing.lproj App/dangling.lproj")
        try daemon.start()
        let connection = try daemon.connect()
        _ = try connection.send(Hello(client: "tests"))
        // A link moved into place later is read the same way.
        try daemon.shell("ln -s ../../Elsewhere/Target.strings App/de.lproj/.new && mv App/de.lproj/.new App/de.lproj/Moved.strings"
                         + " && ln -s ../../../outside/Secret.strings App/de.lproj/.out && mv App/de.lproj/.out App/de.lproj/Secret.strings")
        _ = try connection.send(Sync())

        let bundle = daemon.path("App")
        let served = try connection.send(Snapshot(bundle: bundle)).tables
        let offline = try LocalizedBundle.load(path: bundle, exclusions: Exclusions(patterns: ["skipped.lproj", "App/en.lproj/Excluded.strings"],
                                                                                   roots: [daemon.root]),
                                               links: LinkPolicy(under: [daemon.root]))
        var read: [String: [String: Entry]] = [:]
        for (localization, tables) in offline.tables {
            for (name, table) in tables { read["\(localization)/\(name)"] = table.entries }
        }
        var daemonTables: [String: [String: Entry]] = [:]
        for table in served { daemonTables["\(table.language)/\(table.table)"] = table.entries }
        XCTAssertEqual(daemonTables, read)
        XCTAssertEqual(Set(read.keys), ["en/Localizable", "en/Menu", "fr/Menu", "Base/Main", "English/Legacy", "zh_CN/Localizable",
                                        "de/Localizable", "en/Linked", "de/Moved",
                                        // en.lproj again (`Excluded` is excluded by its path through en.lproj only).
                                        "linked/Localizable", "linked/Menu", "linked/Linked", "linked/Excluded"])
        XCTAssertEqual(read["de/Moved"]?["linked"]?.text, "through a link")
        for skipped in ["Secret.strings", "outside.lproj", "Loop.lproj", "dangling.lproj"] {
            XCTAssertTrue(daemon.log.contains("\(skipped): symbolic link not followed"), "\(skipped) is logged as skipped: \(daemon.log)")
        }
        XCTAssertFalse(daemon.log.contains("Loop.lproj/Loop.lproj"), "a loop is never walked")
        // The default for a client: links that lead inside the bundle.
        let own = try LocalizedBundle.load(path: bundle)
        XCTAssertNotNil(own.tables["linked"]?["Localizable"])
        XCTAssertNil(own.tables["en"]?["Linked"], "Elsewhere is outside the bundle")
        XCTAssertEqual(read["en/Menu"]?["open"]?.text, "Open", "the catalog lies over the .strings")
        XCTAssertEqual(read["en/Menu"]?["close"]?.text, "Close")
        XCTAssertNil(read["en/Localizable"]?["item_count"]?.text, "the stringsdict rule lies over the plain string")
        XCTAssertNotNil(read["en/Localizable"]?["item_count"])
    }
}
