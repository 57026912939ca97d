import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import LprojTables
import XCTest

/// Every way editors and tools save a table, against the real daemon and
/// real inotify: after each, a subscriber's state equals a fresh parse of the disk.
final class SavePatternTests: XCTestCase {
    private var daemon: DaemonProcess!
    private var connection: DaemonConnection!
    private var mirror: Mirror!
    private var bundle: String { daemon.root + "/App" }

    override func setUpWithError() throws {
        daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", table(["home_title": "Home", "login": "Log in"]))
        try daemon.write("App/zh-Hant.lproj/Localizable.strings", table(["home_title": "首頁"]))
        try daemon.write("App/en.lproj/Localizable.stringsdict", Self.pluralDictionary)
        try daemon.start()
        connection = try daemon.connect()
        _ = try connection.send(Hello(client: "tests"))
        let reply = try connection.send(Subscribe(name: "all", snapshot: true))
        XCTAssertTrue(reply.fresh)
        mirror = Mirror(snapshot: try XCTUnwrap(reply.tables))
        try assertConverged()
    }

    override func tearDown() {
        connection = nil
        if let daemon { XCTAssertEqual(daemon.stop(), 0, daemon.log) }
        daemon = nil
    }

    func testInPlaceRewrite() throws {
        try daemon.write("App/en.lproj/Localizable.strings", table(["home_title": "Start", "login": "Log in"]))
        try assertConverged()
        XCTAssertEqual(mirror.tables[Mirror.key(bundle, "en", "Localizable")]?["home_title"]?.text, "Start")
    }

    func testWriteTemporaryThenRename() throws {
        try daemon.write("App/en.lproj/.Localizable.strings.tmp", table(["home_title": "Renamed"]))
        try daemon.shell("mv App/en.lproj/.Localizable.strings.tmp App/en.lproj/Localizable.strings")
        try assertConverged()
        XCTAssertEqual(mirror.tables[Mirror.key(bundle, "en", "Localizable")]?["home_title"]?.text, "Renamed")
    }

    func testVimStyleBackupRenameAndNewFile() throws {
        try daemon.shell("""
            cd App/en.lproj && touch 4913 && rm 4913 && mv Localizable.strings Localizable.strings~ \
            && printf '"home_title" = "Vim";\\n' > Localizable.strings && rm Localizable.strings~
            """)
        try assertConverged()
        XCTAssertEqual(mirror.tables[Mirror.key(bundle, "en", "Localizable")]?["home_title"]?.text, "Vim")
        XCTAssertNil(mirror.tables[Mirror.key(bundle, "en", "Localizable")]?["login"])
    }

    func testSedInPlace() throws {
        try daemon.shell("sed -i 's/Log in/Sign in/' App/en.lproj/Localizable.strings")
        try assertConverged()
        XCTAssertEqual(mirror.tables[Mirror.key(bundle, "en", "Localizable")]?["login"]?.text, "Sign in")
    }

    func testRsyncStyleTemporary() throws {
        try daemon.write("App/en.lproj/.Localizable.strings.Xa91Qz", table(["home_title": "Synced"]))
        try daemon.shell("mv App/en.lproj/.Localizable.strings.Xa91Qz App/en.lproj/Localizable.strings")
        try assertConverged()
        XCTAssertEqual(mirror.tables[Mirror.key(bundle, "en", "Localizable")]?["home_title"]?.text, "Synced")
    }

    func testGitCheckoutOfAnotherBranch() throws {
        try daemon.shell("""
            git init -q && git config user.email t@example.com && git config user.name t && git add -A && git commit -qm one \
            && git checkout -qb other && printf '"home_title" = "Branch";\\n' > App/en.lproj/Localizable.strings \
            && mkdir -p App/fr.lproj && printf '"home_title" = "Accueil";\\n' > App/fr.lproj/Localizable.strings \
            && git rm -q App/zh-Hant.lproj/Localizable.strings && git add -A && git commit -qm two && git checkout -q master 2>/dev/null || git checkout -q main
            """)
        try assertConverged()
        try daemon.shell("git checkout -q other")
        try assertConverged()
        XCTAssertEqual(mirror.tables[Mirror.key(bundle, "fr", "Localizable")]?["home_title"]?.text, "Accueil")
        XCTAssertNil(mirror.tables[Mirror.key(bundle, "zh-Hant", "Localizable")])
    }

    func testCopyingANewLocalizationIn() throws {
        let outside = daemon.directory + "/outside/ja.lproj"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Data(table(["home_title": "ホーム"]).utf8).write(to: URL(fileURLWithPath: outside + "/Localizable.strings"))
        try daemon.shell("cp -r '\(outside)' App/")
        try assertConverged()
        XCTAssertEqual(mirror.tables[Mirror.key(bundle, "ja", "Localizable")]?["home_title"]?.text, "ホーム")
        try daemon.shell("mkdir -p New/a/b/de.lproj && printf '\"k\" = \"v\";' > New/a/b/de.lproj/Localizable.strings")
        try assertConverged()
        XCTAssertEqual(mirror.tables[Mirror.key(daemon.root + "/New/a/b", "de", "Localizable")]?["k"]?.text, "v")
    }

    func testRemovingALocalization() throws {
        try daemon.shell("rm -rf App/zh-Hant.lproj")
        try assertConverged()
        XCTAssertNil(mirror.tables[Mirror.key(bundle, "zh-Hant", "Localizable")])
    }

    func testMovingALocalizationOutAndBack() throws {
        try daemon.shell("mv App/zh-Hant.lproj '\(daemon.directory)/parked.lproj'")
        try assertConverged()
        XCTAssertNil(mirror.tables[Mirror.key(bundle, "zh-Hant", "Localizable")])
        try daemon.shell("mv '\(daemon.directory)/parked.lproj' App/zh-Hant.lproj")
        try assertConverged()
        XCTAssertEqual(mirror.tables[Mirror.key(bundle, "zh-Hant", "Localizable")]?["home_title"]?.text, "首頁")
    }

    func testARootThatGoesAwayAndComesBack() throws {
        try daemon.shell("mv '\(daemon.root)' '\(daemon.directory)/parked'", in: daemon.directory)
        try assertConverged()
        XCTAssertTrue(mirror.tables.isEmpty, "a root's tables go with it")
        try daemon.shell("mv '\(daemon.directory)/parked' '\(daemon.root)'", in: daemon.directory)
        try assertConverged()
        XCTAssertEqual(mirror.tables[Mirror.key(bundle, "zh-Hant", "Localizable")]?["home_title"]?.text, "首頁")
    }

    func testBrokenSaveKeepsTheLastGoodVersionThenTheFixPublishesTheDiff() throws {
        try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Broken\"\n\"login\" = \"Log in\";\n")
        let invalidEvent = try connection.awaitEvent(TableInvalid.name)
        try mirror.apply(invalidEvent)
        let invalid = try invalidEvent.decode(TableInvalid.self)
        XCTAssertEqual(invalid.kept, .lastGood)
        XCTAssertEqual(invalid.language, "en")
        let error = try XCTUnwrap(invalid.diagnostics.first { $0.severity == .error })
        XCTAssertEqual(error.line, 1)
        XCTAssertEqual(error.column, 24, "the missing ';' is named at the end of the value")
        // Still served: the last good version.
        let lookup = try connection.send(Lookup(bundle: bundle, key: "home_title", languages: ["en"]))
        XCTAssertEqual(lookup.text, "Home")
        let list = try connection.send(List())
        let summary = list.bundles.first { $0.path == bundle }?.localizations.first { $0.name == "en" }?.tables.first { $0.name == "Localizable" }
        XCTAssertEqual(summary?.health, .invalid)
        XCTAssertEqual(summary?.entries, 3)

        try daemon.write("App/en.lproj/Localizable.strings", table(["home_title": "Fixed", "login": "Log in"]))
        let fixedEvent = try connection.awaitEvent(TableChanged.name)
        try mirror.apply(fixedEvent)
        let fixed = try fixedEvent.decode(TableChanged.self)
        XCTAssertEqual(fixed.changed["home_title"]?.text, "Fixed")
        XCTAssertTrue(fixed.added.isEmpty && fixed.removed.isEmpty, "diffed against the last good version")
        try assertConverged()
    }

    func testEditingTheStringsdictAndACatalog() throws {
        try daemon.write("App/en.lproj/Localizable.stringsdict", Self.pluralDictionary.replacingOccurrences(of: "%d items", with: "%d things"))
        try daemon.write("App/Menu.xcstrings", """
            {"sourceLanguage":"en","version":"1.0","strings":{"open":{"localizations":{
              "en":{"stringUnit":{"state":"translated","value":"Open"}},
              "ja":{"stringUnit":{"state":"translated","value":"開く"}}}}}}
            """)
        try assertConverged()
        XCTAssertEqual(mirror.tables[Mirror.key(bundle, "ja", "Menu")]?["open"]?.text, "開く")
    }

    /// A FIFO named like a table, closed by a writer (IN_CLOSE_WRITE), is
    /// never read as a table (the daemon never blocks opening it) and is
    /// said once in the log, as one met at start is.
    func testAFIFONamedLikeATableNeverHangsTheDaemon() throws {
        // In a directory watched from the start (a new one might be listed
        // only after the close, and a FIFO is not listed as a file).
        let path = daemon.root + "/App/en.lproj/Menu.strings"
        XCTAssertEqual(mkfifo(path, 0o644), 0)
        // O_RDWR does not wait for a reader; closing it is a close-after-write.
        let writer = open(path, O_RDWR | O_NONBLOCK)
        XCTAssertGreaterThanOrEqual(writer, 0)
        close(writer)
        try mirror.catchUp(connection)
        XCTAssertEqual(daemon.log.components(separatedBy: "\(path): a FIFO, not a regular file: not read").count - 1, 1, daemon.log)
        XCTAssertTrue(mirror.invalid.isEmpty, "\(mirror.invalid)")
        // Still answering, and still following saves.
        XCTAssertEqual(try connection.send(Lookup(bundle: bundle, key: "home_title", languages: ["en"])).text, "Home")
        unlink(path)
        try daemon.write("App/en.lproj/Menu.strings", table(["open": "Open"]))
        try assertConverged()
        XCTAssertEqual(mirror.tables[Mirror.key(bundle, "en", "Menu")]?["open"]?.text, "Open")
    }

    // MARK: helpers

    private func assertConverged(file: StaticString = #filePath, line: UInt = #line) throws {
        try mirror.catchUp(connection)
        let bundles = Set(mirror.tables.keys.map { String($0.string.split(separator: "|")[0]) }).union(try diskBundles())
        XCTAssertEqual(mirror, try Mirror(disk: bundles.sorted().filter { FileManager.default.fileExists(atPath: $0) }),
                       "the subscriber's state differs from a fresh parse of the disk", file: file, line: line)
    }

    /// Directories under the root that hold a .lproj or .xcstrings.
    private func diskBundles() throws -> [String] {
        var found = Set<String>()
        let enumerator = FileManager.default.enumerator(atPath: daemon.root)
        while let relative = enumerator?.nextObject() as? String {
            if relative.hasPrefix(".git") { continue }
            if relative.hasSuffix(".lproj") || relative.hasSuffix(".xcstrings") {
                found.insert((daemon.root + "/" + relative as NSString).deletingLastPathComponent)
            }
        }
        return found.sorted()
    }

    private func table(_ entries: [String: String]) -> String {
        entries.keys.sorted().map { "\"\($0)\" = \"\(entries[$0]!)\";" }.joined(separator: "\n") + "\n"
    }

    static let pluralDictionary = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict><key>item_count</key><dict>
          <key>NSStringLocalizedFormatKey</key><string>%#@items@</string>
          <key>items</key><dict>
            <key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>
            <key>NSStringFormatValueTypeKey</key><string>d</string>
            <key>one</key><string>%d item</string>
            <key>other</key><string>%d items</string>
          </dict></dict></dict></plist>
        """
}
