import Foundation
@testable import LprojFormats
import LprojPaths
import LprojProcessTesting
import LprojTestSupport
import XCTest
@testable import LprojTables

/// `lprojctl set`, `rm` and `mv`, run as built, on temporary bundles: what
/// they change and keep, their refusals, concurrent writers and a writer
/// killed at any moment.
final class EditCommandTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var bundle: String { directory.url.path + "/App" }

    override func setUpWithError() throws {
        directory = TemporaryDirectory()
        try directory.write("App/en.lproj/Localizable.strings", """
            /* The first screen */
            "home_title" = "Home";
            "welcome" = "Welcome, %@!";

            """)
        try directory.write("App/fr.lproj/Localizable.strings", """
            /* The first screen */
            "home_title" = "Accueil";

            """)
        try directory.write("App/en.lproj/Localizable.stringsdict", Self.rules("%d files", "%d file"))
        try directory.write("App/fr.lproj/Localizable.stringsdict", Self.rules("%d fichiers", nil))
    }

    override func tearDown() { directory = nil }

    func testSetChangesOneValueAndAddsNewKeysAtTheEndWithTheirComment() throws {
        let set = try lprojctl(["set", "home_title", "Page d'accueil", "--bundle", bundle, "--language", "fr"])
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertTrue(set.stdout.contains("fr: home_title: \"Accueil\" → \"Page d'accueil\""), set.stdout)
        let added = try lprojctl(["set", "welcome", "Bienvenue, %@ !", "--bundle", bundle, "--language", "fr", "--comment", "Greets the user"])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertEqual(try text("App/fr.lproj/Localizable.strings"), """
            /* The first screen */
            "home_title" = "Page d'accueil";
            /* Greets the user */
            "welcome" = "Bienvenue, %@ !";

            """)
        // A language with no .lproj yet gets one, UTF-8.
        let made = try lprojctl(["set", "home_title", "Inicio", "--bundle", bundle, "--language", "es", "--json"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])
        let change = try XCTUnwrap((json["changes"] as? [[String: Any]])?.first)
        XCTAssertEqual(change["created"] as? Bool, true)
        XCTAssertEqual(change["after"] as? String, "Inicio")
        XCTAssertEqual(try text("App/es.lproj/Localizable.strings"), "\"home_title\" = \"Inicio\";\n")
    }

    func testPluralFormsFollowTheLanguagesRules() throws {
        let one = try lprojctl(["set", "files", "%d fichier", "--bundle", bundle, "--language", "fr", "--plural", "n:one"])
        XCTAssertEqual(one.status, 0, one.stderr)
        let rule = try XCTUnwrap(PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: bundle + "/fr.lproj/Localizable.stringsdict")),
                                                                        format: nil) as? [String: [String: Any]])
        XCTAssertEqual((rule["files"]?["n"] as? [String: String])?["one"], "%d fichier")
        let few = try lprojctl(["set", "files", "%d x", "--bundle", bundle, "--language", "fr", "--plural", "n:few"])
        XCTAssertEqual(few.status, 2)
        XCTAssertTrue(few.stderr.contains("French (fr) has no \"few\" plural form (CLDR: one, many, other)"), few.stderr)
        let unknown = try lprojctl(["set", "files", "%d x", "--bundle", bundle, "--language", "fr", "--plural", "n:several"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("'several' is not a plural category"), unknown.stderr)
        // A new rule without "other" is refused; with --force it is written.
        let withoutOther = try lprojctl(["set", "days", "%d jour", "--bundle", bundle, "--language", "fr", "--plural", "d:one"])
        XCTAssertEqual(withoutOther.status, 1)
        XCTAssertTrue(withoutOther.stderr.contains("has no \"other\" form"), withoutOther.stderr)
        XCTAssertEqual(try lprojctl(["set", "days", "%d jour", "--bundle", bundle, "--language", "fr", "--plural", "d:one", "--force"]).status, 0)
    }

    func testANewRuleTakesTheDevelopmentLanguagesFormatAndValueType() throws {
        try directory.write("App/en.lproj/Localizable.stringsdict", Self.rules("%d files", "%d file").replacingOccurrences(of: "<string>%#@n@</string>",
                                                                                                                           with: "<string>%#@n@ in %@</string>")
                                .replacingOccurrences(of: "<string>d</string>", with: "<string>ld</string>"))
        let set = try lprojctl(["set", "files", "%ld archivos", "--bundle", bundle, "--language", "es", "--plural", "n:other"])
        XCTAssertEqual(set.status, 0, set.stderr)
        let rule = try XCTUnwrap(PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: bundle + "/es.lproj/Localizable.stringsdict")),
                                                                        format: nil) as? [String: [String: Any]])
        XCTAssertEqual(rule["files"]?["NSStringLocalizedFormatKey"] as? String, "%#@n@ in %@")
        XCTAssertEqual((rule["files"]?["n"] as? [String: String])?["NSStringFormatValueTypeKey"], "ld")
    }

    func testAnEditTheChecksRefuseChangesNothing() throws {
        let before = try text("App/fr.lproj/Localizable.strings")
        let refused = try lprojctl(["set", "welcome", "Bienvenue, %d !", "--bundle", bundle, "--language", "fr"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("fr.lproj/Localizable.strings"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("reads argument 1 as an integer (%d), but en reads it as an object (%@)"), refused.stderr)
        XCTAssertEqual(try text("App/fr.lproj/Localizable.strings"), before)
    }

    func testIfVersionRefusesAStaleEditAndPrintsTheCurrentValue() throws {
        let get = try lprojctl(["get", "home_title", "--bundle", bundle, "--language", "fr", "--json"])
        let version = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(get.stdout.utf8)) as? [String: Any])?["version"] as? String)
        XCTAssertEqual(try lprojctl(["set", "home_title", "Début", "--bundle", bundle, "--language", "fr", "--if-version", version]).status, 0)
        let stale = try lprojctl(["set", "home_title", "Maison", "--bundle", bundle, "--language", "fr", "--if-version", version])
        XCTAssertEqual(stale.status, 3)
        XCTAssertTrue(stale.stderr.contains("\"home_title\" is now \"Début\""), stale.stderr)
        XCTAssertTrue(try text("App/fr.lproj/Localizable.strings").contains("\"Début\""))
    }

    /// As in Xcode, a catalog's source text changed through the writer marks each other language's translated text
    /// of that key `needs_review`, in the same write; a text set to what it was, a language still `new`, and other
    /// keys are left as they were.
    func testChangingACatalogsSourceTextMarksItsTranslationsForReview() throws {
        try directory.write("Shop/Shop.xcstrings", """
            {
              "sourceLanguage" : "en",
              "strings" : {
                "buy" : {
                  "localizations" : {
                    "de" : { "stringUnit" : { "state" : "translated", "value" : "Kaufen" } },
                    "en" : { "stringUnit" : { "state" : "translated", "value" : "Buy" } },
                    "fr" : { "stringUnit" : { "state" : "new", "value" : "" } },
                    "ja" : { "stringUnit" : { "state" : "translated", "value" : "購入" } }
                  }
                },
                "sell" : {
                  "localizations" : {
                    "de" : { "stringUnit" : { "state" : "translated", "value" : "Verkaufen" } },
                    "en" : { "stringUnit" : { "state" : "translated", "value" : "Sell" } }
                  }
                }
              },
              "version" : "1.0"
            }
            """)
        let shop = directory.url.path + "/Shop"
        XCTAssertEqual(try lprojctl(["set", "buy", "Buy", "--bundle", shop, "--language", "en", "--table", "Shop"]).status, 0)
        XCTAssertFalse(try text("Shop/Shop.xcstrings").contains("needs_review"), "the same text: nothing to review")
        let changed = try lprojctl(["set", "buy", "Buy now", "--bundle", shop, "--language", "en", "--table", "Shop"])
        XCTAssertEqual(changed.status, 0, changed.stderr)
        let catalog = try XCTUnwrap(TableFile(bytes: Array(try text("Shop/Shop.xcstrings").utf8), path: shop + "/Shop.xcstrings", format: .xcstrings))
        guard case .catalog(let read) = catalog.contents else { return XCTFail("not a catalog") }
        XCTAssertEqual(read.tables["de"]?["buy"]?.state, .needsReview)
        XCTAssertEqual(read.tables["ja"]?["buy"]?.state, .needsReview)
        XCTAssertEqual(read.tables["de"]?["buy"]?.text, "Kaufen", "the translation kept")
        XCTAssertEqual(read.tables["fr"]?["buy"]?.state, .new)
        XCTAssertEqual(read.tables["de"]?["sell"]?.state ?? .translated, .translated)
        XCTAssertEqual(read.tables["en"]?["buy"]?.text, "Buy now")
    }

    func testRemoveAndRename() throws {
        let missing = try lprojctl(["rm", "home_title", "nope", "--bundle", bundle])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("\"nope\" is not in the Localizable table of any localization"), missing.stderr)
        XCTAssertTrue(try text("App/en.lproj/Localizable.strings").contains("home_title"), "nothing removed")
        let taken = try lprojctl(["mv", "home_title", "welcome", "--bundle", bundle])
        XCTAssertEqual(taken.status, 2)
        XCTAssertTrue(taken.stderr.contains("\"welcome\" is already a key of en's Localizable table"), taken.stderr)
        let moved = try lprojctl(["mv", "files", "documents", "--bundle", bundle])
        XCTAssertEqual(moved.status, 0, moved.stderr)
        XCTAssertTrue(try text("App/en.lproj/Localizable.stringsdict").contains("<key>documents</key>"))
        XCTAssertTrue(try text("App/fr.lproj/Localizable.stringsdict").contains("<key>documents</key>"))
        let removed = try lprojctl(["rm", "home_title", "--bundle", bundle, "--json"])
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertEqual(try text("App/fr.lproj/Localizable.strings"), "/* No entries. */\n")
        XCTAssertEqual(try text("App/en.lproj/Localizable.strings"), "\"welcome\" = \"Welcome, %@!\";\n")
        XCTAssertEqual(try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: bundle + "/fr.lproj/Localizable.strings")),
                                                                 format: nil) as? [String: String], [:])
    }

    func testAReadOnlyTableIsRefusedAndKeptAsItWas() throws {
        try XCTSkipIf(getuid() != 0, "writing as another user needs root (setpriv); CI runs as root")
        let file = bundle + "/fr.lproj/Localizable.strings"
        let before = try text("App/fr.lproj/Localizable.strings")
        chmod(directory.url.path, 0o755)
        XCTAssertEqual(Glibc.system("chown -R 65534:65534 '\(bundle)' && chmod 0444 '\(file)'"), 0)
        let lprojctl = binaryDirectory().appendingPathComponent("lprojctl").path
        let refused = try runCommand("/usr/bin/setpriv", ["--reuid", "65534", "--regid", "65534", "--clear-groups", lprojctl,
                                                          "set", "home_title", "Écrasé", "--bundle", bundle, "--language", "fr", "--json"])
        XCTAssertEqual(refused.status, 1, refused.stdout + refused.stderr)
        XCTAssertTrue(refused.stderr.contains("is not writable by you"), refused.stderr)
        XCTAssertTrue(refused.stdout.contains("\"forbidden\""), refused.stdout)
        XCTAssertEqual(try text("App/fr.lproj/Localizable.strings"), before)
        var status = stat()
        XCTAssertEqual(stat(file, &status), 0)
        XCTAssertEqual(status.st_mode & 0o777, 0o444, "the file is the same file, its mode kept")
    }

    func testATableThatIsALinkIsWrittenThroughInsideTheBundleAndRefusedOutsideIt() throws {
        let root = directory.url.path
        // de's table links to a file inside the bundle: the edit reaches that file, and the link stays a link.
        try directory.write("App/Shared/de.strings", "\"home_title\" = \"Start\";\n")
        try FileManager.default.createDirectory(atPath: bundle + "/de.lproj", withIntermediateDirectories: true)
        XCTAssertEqual(symlink("../Shared/de.strings", bundle + "/de.lproj/Localizable.strings"), 0)
        let through = try lprojctl(["set", "home_title", "Startseite", "--bundle", bundle, "--language", "de"])
        XCTAssertEqual(through.status, 0, through.stderr)
        XCTAssertEqual(try text("App/Shared/de.strings"), "\"home_title\" = \"Startseite\";\n")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: bundle + "/de.lproj/Localizable.strings"), "../Shared/de.strings")
        // es's table links outside the bundle, ja's .lproj is a link to a directory outside it: refused, nothing written anywhere.
        try directory.write("Elsewhere/es.strings", "\"home_title\" = \"Inicio\";\n")
        try FileManager.default.createDirectory(atPath: root + "/Elsewhere/ja", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: bundle + "/es.lproj", withIntermediateDirectories: true)
        XCTAssertEqual(symlink(root + "/Elsewhere/es.strings", bundle + "/es.lproj/Localizable.strings"), 0)
        XCTAssertEqual(symlink(root + "/Elsewhere/ja", bundle + "/ja.lproj"), 0)
        let outside = try lprojctl(["set", "home_title", "Portada", "--bundle", bundle, "--language", "es"])
        XCTAssertEqual(outside.status, 1, outside.stderr)
        XCTAssertTrue(outside.stderr.contains("es.lproj/Localizable.strings: is a symbolic link to \(root)/Elsewhere/es.strings, outside \(bundle)"),
                      outside.stderr)
        XCTAssertEqual(try text("Elsewhere/es.strings"), "\"home_title\" = \"Inicio\";\n")
        let linkedDirectory = try lprojctl(["set", "home_title", "ホーム", "--bundle", bundle, "--language", "ja"])
        XCTAssertEqual(linkedDirectory.status, 1, linkedDirectory.stderr)
        XCTAssertTrue(linkedDirectory.stderr.contains("its directory is \(root)/Elsewhere/ja on disk (through a symbolic link), outside \(bundle)"),
                      linkedDirectory.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root + "/Elsewhere/ja"), [])
        // A link to nothing is refused too, and stays.
        try FileManager.default.createDirectory(atPath: bundle + "/it.lproj", withIntermediateDirectories: true)
        XCTAssertEqual(symlink("gone.strings", bundle + "/it.lproj/Localizable.strings"), 0)
        let dangling = try lprojctl(["set", "home_title", "Home", "--bundle", bundle, "--language", "it"])
        XCTAssertEqual(dangling.status, 2, dangling.stderr)
        XCTAssertTrue(dangling.stderr.contains("is a symbolic link to a file that does not exist"), dangling.stderr)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: bundle + "/it.lproj/Localizable.strings"), "gone.strings")
    }

    func testAFullDiskLeavesNoEmptyNewLocalization() throws {
        try XCTSkipIf(getuid() != 0, "a full filesystem needs a tmpfs mount (root); CI runs as root")
        let disk = directory.url.path + "/Disk"
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        XCTAssertEqual(Glibc.system("mount -t tmpfs -o size=256k tmpfs '\(disk)'"), 0)
        defer { _ = Glibc.system("umount '\(disk)'") }
        try FileManager.default.createDirectory(atPath: disk + "/App/en.lproj", withIntermediateDirectories: true)
        try Data("\"home_title\" = \"Home\";\n".utf8).write(to: URL(fileURLWithPath: disk + "/App/en.lproj/Localizable.strings"))
        // Fill the disk: the table's bytes cannot be written.
        _ = Glibc.system("dd if=/dev/zero of='\(disk)/fill' bs=4k 2>/dev/null")
        let full = try lprojctl(["set", "home_title", "Accueil", "--bundle", disk + "/App", "--language", "fr"])
        XCTAssertNotEqual(full.status, 0)
        XCTAssertTrue(full.stderr.contains("No space left on device"), full.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: disk + "/App/fr.lproj"), "no empty fr.lproj is left")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: disk + "/App").sorted(), ["en.lproj"])
        // With room again the same set makes it.
        try FileManager.default.removeItem(atPath: disk + "/fill")
        XCTAssertEqual(try lprojctl(["set", "home_title", "Accueil", "--bundle", disk + "/App", "--language", "fr"]).status, 0)
        XCTAssertEqual(try String(contentsOfFile: disk + "/App/fr.lproj/Localizable.strings", encoding: .utf8), "\"home_title\" = \"Accueil\";\n")
    }

    func testAFIFONamedLikeATableIsRefusedWithoutWaitingOnIt() throws {
        try FileManager.default.createDirectory(atPath: bundle + "/de.lproj", withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(bundle + "/de.lproj/Localizable.strings", 0o644), 0)
        // Without the fix the lock's open waits for a writer forever; runCommand would then never return.
        let refused = try lprojctl(["set", "home_title", "Startseite", "--bundle", bundle, "--language", "de"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("is not a regular file (a FIFO)"), refused.stderr)
    }

    func testBadInputGetsOneMessageAndChangesNothing() throws {
        let unknown = try lprojctl(["set", "k", "v", "--bundle", bundle + "/nowhere", "--language", "fr"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("nowhere: not a bundle directory"), unknown.stderr)
        let tag = try lprojctl(["set", "k", "v", "--bundle", bundle, "--language", "../etc"])
        XCTAssertEqual(tag.status, 2)
        XCTAssertTrue(tag.stderr.contains("'../etc' is not a language tag or .lproj name"), tag.stderr)
        // Bytes that are not UTF-8 never reach a table.
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "\"$0\" set k \"$(printf 'caf\\351')\" --bundle \"$1\" --language fr 2>&1 | grep -q 'argument 3 is not valid UTF-8 text'",
                           binaryDirectory().appendingPathComponent("lprojctl").path, bundle]
        try shell.run()
        shell.waitUntilExit()
        XCTAssertEqual(shell.terminationStatus, 0, "the message names the argument")
        XCTAssertFalse(try text("App/fr.lproj/Localizable.strings").contains("\"k\""))
    }

    func testTwoWritersAtOnceKeepAllTheirKeys() throws {
        let tool = binaryDirectory().appendingPathComponent("lprojctl").path
        let writers = try ["a", "b"].map { prefix in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "i=0; while [ $i -lt 200 ]; do \"$0\" set \(prefix)$i v$i --bundle \"$1\" --language fr >/dev/null || exit 1; i=$((i+1)); done",
                                 tool, bundle]
            try process.run()
            return process
        }
        for writer in writers {
            writer.waitUntilExit()
            XCTAssertEqual(writer.terminationStatus, 0)
        }
        let table = StringsFile(bytes: try Data(contentsOf: URL(fileURLWithPath: bundle + "/fr.lproj/Localizable.strings")), path: "fr")
        XCTAssertEqual(table.diagnostics, [])
        XCTAssertEqual(table.table.count, 401)
        for i in 0..<200 {
            XCTAssertEqual(table.table["a\(i)"]?.text, "v\(i)")
            XCTAssertEqual(table.table["b\(i)"]?.text, "v\(i)")
        }
    }

    func testAWriterKilledAtAnyMomentLeavesTheOldTableOrTheNew() throws {
        // A big table, so that a write takes long enough to be cut anywhere.
        let keys = (0..<20_000).map { "\"key\($0)\" = \"value \($0) with some text to make the file longer\";" }
        try directory.write("App/fr.lproj/Localizable.strings", keys.joined(separator: "\n") + "\n")
        let path = bundle + "/fr.lproj/Localizable.strings"
        var generator = SplitMix64(seed: 21)
        var values: Set<String> = ["value 7 with some text to make the file longer"]
        for attempt in 0..<25 {
            let value = "edit \(attempt)"
            let process = Process()
            process.executableURL = binaryDirectory().appendingPathComponent("lprojctl")
            process.arguments = ["set", "key7", value, "--bundle", bundle, "--language", "fr"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Fault injection, at a point the writer reaches (not at a time): at once, once its
            // temporary exists (written or being flushed), or once the table has been replaced.
            let directory = bundle + "/fr.lproj"
            let before = Self.inode(path)
            let deadline = Date(timeIntervalSinceNow: 30)
            switch generator.next() % 3 {
            case 0: break
            case 1:
                while process.isRunning, Date() < deadline,
                      !((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).contains(where: { $0.contains(".lproj-edit.") }) {
                    sched_yield()
                }
            default:
                while process.isRunning, Date() < deadline, Self.inode(path) == before { sched_yield() }
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            values.insert(value)
            let file = StringsFile(bytes: try Data(contentsOf: URL(fileURLWithPath: path)), path: path)
            XCTAssertEqual(file.diagnostics, [], "attempt \(attempt)")
            XCTAssertEqual(file.table.count, 20_000, "attempt \(attempt)")
            XCTAssertTrue(values.contains(file.table["key7"]?.text ?? ""), "attempt \(attempt): \(file.table["key7"]?.text ?? "nil")")
        }
        // What a killed writer leaves behind is a temporary the daemon never reads...
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: bundle + "/fr.lproj")
            .filter { $0 != "Localizable.strings" && $0 != "Localizable.stringsdict" }
        for name in leftovers { XCTAssertTrue(TemporaryFiles.isTemporary(name), name) }
        // ...which the next write removes once it is a minute old.
        let abandoned = bundle + "/fr.lproj/.Localizable.strings.lproj-edit.Ab12Cd"
        XCTAssertTrue(FileManager.default.createFile(atPath: abandoned, contents: Data("torn".utf8)))
        var old = [timespec(tv_sec: time(nil) - 120, tv_nsec: 0), timespec(tv_sec: time(nil) - 120, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, abandoned, &old, 0), 0)
        XCTAssertTrue(TemporaryFiles.isTemporary(".Localizable.strings.lproj-edit.Ab12Cd"))
        XCTAssertEqual(try lprojctl(["set", "key7", "final", "--bundle", bundle, "--language", "fr"]).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: abandoned))
    }

    // MARK: - Helpers

    private func lprojctl(_ arguments: [String]) throws -> CommandResult {
        try runCommand("lprojctl", arguments, in: directory.url)
    }

    private static func inode(_ path: String) -> UInt {
        var status = stat()
        return stat(path, &status) == 0 ? UInt(status.st_ino) : 0
    }

    private func text(_ relative: String) throws -> String {
        try String(contentsOf: directory.url.appendingPathComponent(relative), encoding: .utf8)
    }

    /// A `.stringsdict` with one rule, `files`, of the variable `n`.
    static func rules(_ other: String, _ one: String?) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>files</key>
        \t<dict>
        \t\t<key>NSStringLocalizedFormatKey</key>
        \t\t<string>%#@n@</string>
        \t\t<key>n</key>
        \t\t<dict>
        \t\t\t<key>NSStringFormatSpecTypeKey</key>
        \t\t\t<string>NSStringPluralRuleType</string>
        \t\t\t<key>NSStringFormatValueTypeKey</key>
        \t\t\t<string>d</string>
        \(one.map { "\t\t\t<key>one</key>\n\t\t\t<string>\($0)</string>\n" } ?? "")\t\t\t<key>other</key>
        \t\t\t<string>\(other)</string>
        \t\t</dict>
        \t</dict>
        </dict>
        </plist>

        """
    }
}


/// `lprojctl coverage` over .strings tables and a String Catalog with every state.
final class CoverageCommandTests: XCTestCase {
    func testCountsTranslatedMissingStaleAndTheWordsToTranslate() throws {
        let directory = TemporaryDirectory()
        try directory.write("App/en.lproj/Localizable.strings", "\"a\" = \"Open the door\";\n\"b\" = \"Close %@ now\";\n\"c\" = \"Wait\";\n")
        try directory.write("App/fr.lproj/Localizable.strings", "\"a\" = \"Ouvrir la porte\";\n")
        try directory.write("App/Shop.xcstrings", """
            {
              "sourceLanguage" : "en",
              "strings" : {
                "Buy now" : {
                  "localizations" : {
                    "fr" : { "stringUnit" : { "state" : "translated", "value" : "Acheter" } }
                  }
                },
                "Cancel the order" : {
                  "localizations" : {
                    "fr" : { "stringUnit" : { "state" : "needs_review", "value" : "Annuler" } }
                  }
                },
                "Pay" : {
                  "localizations" : {
                    "fr" : { "stringUnit" : { "state" : "new", "value" : "" } }
                  }
                },
                "Brand" : {
                  "shouldTranslate" : false
                }
              },
              "version" : "1.0"
            }
            """)
        let nobody = directory.url.path + "/none.sock"
        let result = try runCommand("lprojctl", ["coverage", directory.url.path + "/App", "--json", "--socket", nobody])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let rows = try XCTUnwrap(((object["bundles"] as? [[String: Any]])?.first?["tables"]) as? [[String: Any]])
        func row(_ table: String, _ language: String) -> [String: Int] {
            (rows.first { $0["table"] as? String == table && $0["language"] as? String == language } ?? [:]).compactMapValues { $0 as? Int }
        }
        XCTAssertEqual(row("Localizable", "en"), ["total": 3, "translated": 3, "missing": 0, "stale": 0, "unchanged": 0, "missingWords": 0])
        XCTAssertEqual(row("Localizable", "fr"), ["total": 3, "translated": 1, "missing": 2, "stale": 0, "unchanged": 0, "missingWords": 3],
                       "Close %@ now: two words, Wait: one")
        XCTAssertEqual(row("Shop", "en"), ["total": 3, "translated": 3, "missing": 0, "stale": 0, "unchanged": 0, "missingWords": 0],
                       "a catalog key with no English text is its own text; Brand is not to be translated")
        XCTAssertEqual(row("Shop", "fr"), ["total": 3, "translated": 1, "missing": 1, "stale": 1, "unchanged": 0, "missingWords": 1])
        XCTAssertTrue(rows.allSatisfy { $0["missedAtRuntime"] is NSNull }, "no daemon answers")
        let text = try runCommand("lprojctl", ["coverage", directory.url.path + "/App", "--socket", nobody])
        XCTAssertTrue(text.stdout.contains("  Localizable  fr               1/3        2      0          0              3                  -"), text.stdout)
    }
}

/// What a replaced file keeps of the old one.
final class EditFileModeTests: XCTestCase {
    func testAnEditKeepsTheFilesModeAndLeavesNoTemporaryBehind() throws {
        let directory = TemporaryDirectory()
        let path = try directory.write("App/en.lproj/Localizable.strings", "\"a\" = \"A\";\n")
        chmod(path, 0o640)
        let result = try runCommand("lprojctl", ["set", "a", "B", "--bundle", directory.url.path + "/App", "--language", "en"])
        XCTAssertEqual(result.status, 0, result.stderr)
        var status = stat()
        XCTAssertEqual(stat(path, &status), 0)
        XCTAssertEqual(status.st_mode & 0o777, 0o640)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.url.path + "/App/en.lproj"), ["Localizable.strings"])
    }
}

/// `lprojctl catalog compile`, run as built.
final class CatalogCompileCommandTests: XCTestCase {
    func testACatalogCompilesAndABadOneWritesNothing() throws {
        let directory = TemporaryDirectory()
        let good = try directory.write("Shop.xcstrings", """
            {
              "sourceLanguage" : "en",
              "strings" : {
                "Buy" : { "localizations" : { "fr" : { "stringUnit" : { "state" : "translated", "value" : "Acheter" } } } }
              },
              "version" : "1.0"
            }
            """)
        let output = directory.url.path + "/Out"
        let compiled = try runCommand("lprojctl", ["catalog", "compile", good, "--output", output])
        XCTAssertEqual(compiled.status, 0, compiled.stderr)
        XCTAssertEqual(try String(contentsOfFile: output + "/fr.lproj/Shop.strings", encoding: .utf8), "\"Buy\" = \"Acheter\";\n")
        XCTAssertEqual(try String(contentsOfFile: output + "/en.lproj/Shop.strings", encoding: .utf8), "\"Buy\" = \"Buy\";\n")
        // Japanese has no "one": unreachable, not wrong — a warning at its place, and compiled as Xcode builds it.
        let unreachable = try directory.write("Unreachable.xcstrings", """
            {
              "sourceLanguage" : "en",
              "strings" : {
                "n" : { "localizations" : { "ja" : { "variations" : { "plural" : {
                  "one" : { "stringUnit" : { "state" : "translated", "value" : "1" } },
                  "other" : { "stringUnit" : { "state" : "translated", "value" : "%d" } } } } } } }
              },
              "version" : "1.0"
            }
            """)
        let warned = try runCommand("lprojctl", ["catalog", "compile", unreachable, "--output", output])
        XCTAssertEqual(warned.status, 0, warned.stderr)
        XCTAssertTrue(warned.stderr.contains("Unreachable.xcstrings:4:5: warning: \"n\" in ja has a \"one\" plural form, which ja never selects (CLDR: other)"),
                      warned.stderr)
        let compiledRule = try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: output + "/ja.lproj/Unreachable.stringsdict")),
                                                                      format: nil) as? [String: Any]
        XCTAssertNotNil(compiledRule?["n"], "the rule is compiled")
        // A catalog with an error: named with its place, and nothing written of any catalog.
        let bad = try directory.write("Bad.xcstrings", """
            {
              "sourceLanguage" : "not a language",
              "strings" : { "a" : { } },
              "version" : "1.0"
            }
            """)
        let elsewhere = directory.url.path + "/Elsewhere"
        let refused = try runCommand("lprojctl", ["catalog", "compile", good, bad, "--output", elsewhere])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("Bad.xcstrings:2:3: error: the sourceLanguage \"not a language\" is not a language tag"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: elsewhere), "nothing written")
        let states = try runCommand("lprojctl", ["catalog", "compile", good, "--output", elsewhere, "--states", "done"])
        XCTAssertEqual(states.status, 2)
    }
}
