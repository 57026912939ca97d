import Foundation
@testable import LprojFormats
import XCTest
@testable import LprojTables

/// `lprojctl catalog sync`, `export` and `import`, run as built on temporary
/// trees; XLIFF read and edited by translate-toolkit (pinned, in the virtual
/// environment `make test` makes), as translators' tools read it.
final class CatalogExchangeTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var root: String { directory.url.path }
    private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    override func setUpWithError() throws { directory = TemporaryDirectory() }
    override func tearDown() { directory = nil }

    // MARK: - sync

    func testSyncAddsUsedKeysMarksUnusedOnesStaleAndKeepsTranslations() throws {
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("sync/Sources").path, toPath: root + "/Sources")
        try directory.write("Resources/Localizable.xcstrings", """
            {
              "sourceLanguage" : "en",
              "strings" : {
                "Inbox" : {
                  "localizations" : {
                    "de" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "Posteingang"
                      }
                    }
                  }
                },
                "Old screen" : {
                  "localizations" : {
                    "de" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "Alter Bildschirm"
                      }
                    }
                  }
                },
                "Typed by hand" : {
                  "extractionState" : "manual"
                }
              },
              "version" : "1.0"
            }
            """)
        let catalog = root + "/Resources/Localizable.xcstrings"
        let before = try Data(contentsOf: URL(fileURLWithPath: catalog))
        let dryRun = try lprojctl(["catalog", "sync", "Sources", "--catalog", catalog, "--macro", "AppString", "--dry-run"], in: directory.url)
        XCTAssertEqual(dryRun.status, 0, dryRun.stderr)
        XCTAssertEqual(dryRun.stdout, """
            + "compose.button"
            # "Inbox" comment: "The list of messages"
            - "Old screen" is stale: no source uses it
            + "settings.title"
            + "Welcome"

            """)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: catalog)), before, "a dry run writes nothing")
        let check = try lprojctl(["catalog", "sync", "Sources", "--catalog", catalog, "--macro", "AppString", "--check"], in: directory.url)
        XCTAssertEqual(check.status, 1, "--check fails while the catalog is behind the sources")

        let sync = try lprojctl(["catalog", "sync", "Sources", "--catalog", catalog, "--macro", "AppString"], in: directory.url)
        XCTAssertEqual(sync.status, 0, sync.stderr)
        XCTAssertEqual(try String(contentsOfFile: catalog, encoding: .utf8), """
            {
              "sourceLanguage" : "en",
              "strings" : {
                "compose.button" : {
                  "comment" : "Starts a new message",
                  "extractionState" : "extracted_with_value",
                  "localizations" : {
                    "en" : {
                      "stringUnit" : {
                        "state" : "new",
                        "value" : "Write a message"
                      }
                    }
                  }
                },
                "Inbox" : {
                  "comment" : "The list of messages",
                  "localizations" : {
                    "de" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "Posteingang"
                      }
                    }
                  }
                },
                "Old screen" : {
                  "extractionState" : "stale",
                  "localizations" : {
                    "de" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "Alter Bildschirm"
                      }
                    }
                  }
                },
                "settings.title" : {
                  "comment" : "The settings screen's title"
                },
                "Typed by hand" : {
                  "extractionState" : "manual"
                },
                "Welcome" : {
                  "comment" : "The first screen's title"
                }
              },
              "version" : "1.0"
            }
            """)
        // In line with the sources: nothing more to do, --check passes.
        let again = try lprojctl(["catalog", "sync", "Sources", "--catalog", catalog, "--macro", "AppString", "--check"], in: directory.url)
        XCTAssertEqual(again.status, 0, again.stdout + again.stderr)
        XCTAssertEqual(again.stdout, "")
        // A stale key used again is extracted again, its translation kept.
        try directory.write("Sources/Back.swift", "let s = String(localized: \"Old screen\")\n")
        let revived = try lprojctl(["catalog", "sync", "Sources", "--catalog", catalog, "--macro", "AppString"], in: directory.url)
        XCTAssertEqual(revived.stdout, "* \"Old screen\" is used again\n")
        let file = StringCatalogFile(bytes: try Data(contentsOf: URL(fileURLWithPath: catalog)), path: catalog)
        XCTAssertEqual(file.catalog.tables["de"]?["Old screen"]?.text, "Alter Bildschirm")
        // The other table's keys are that table's: a new Other.xcstrings gets only its own.
        let other = try lprojctl(["catalog", "sync", "Sources", "--catalog", root + "/Resources/Other.xcstrings"], in: directory.url)
        XCTAssertEqual(other.status, 0, other.stderr)
        XCTAssertEqual(other.stdout, "+ \"Elsewhere\"\n")
    }

    /// Whisky's catalog, as Xcode extracted it from the Swift sources beside it (the shared corpus): sync finds every key
    /// Xcode found and no other — none falsely stale, none falsely new — and `--explain` says where and why.
    func testSyncFindsWhatXcodeFoundInWhisky() throws {
        var corpus = Self.fixtures.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus")
        if let path = ProcessInfo.processInfo.environment["LPROJ_CORPUS"] { corpus = URL(fileURLWithPath: path) }
        let whisky = corpus.appendingPathComponent("Whisky-App+Whisky").path
        let catalog = try Data(contentsOf: URL(fileURLWithPath: whisky + "/Whisky/Localizable.xcstrings"))
        try directory.write("Localizable.xcstrings", String(decoding: catalog, as: UTF8.self))
        let check = try lprojctl(["catalog", "sync", whisky, "--catalog", "Localizable.xcstrings", "--check"], in: directory.url)
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertEqual(check.stdout, "", "no key falsely new or stale")
        XCTAssertTrue(check.stderr.hasPrefix("145 keys used; 0 changes"), check.stderr)

        let explain = try lprojctl(["catalog", "sync", whisky, "--catalog", "Localizable.xcstrings", "--explain"], in: directory.url)
        XCTAssertEqual(explain.status, 0, explain.stderr)
        let lines = explain.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 152)
        for expected in [
            "\"config.dpi\": used at \(whisky)/Whisky/Views/Bottle/ConfigView.swift:90:40 (SettingItemView(title:))",
            "\"rename.bottle.title\": used at \(whisky)/Whisky/Views/Bottle/BottleListEntry.swift:38:28 (RenameView(_:))",
            "\"tab.processes\": stale, no source uses it as a key",
            "\"winetricks.category.apps\": added by hand, left alone",
        ] {
            XCTAssertTrue(lines.contains(expected), expected + "\n" + explain.stdout)
        }
        XCTAssertEqual(try Data(contentsOf: directory.url.appendingPathComponent("Localizable.xcstrings")), catalog, "explaining writes nothing")

        let json = try lprojctl(["catalog", "sync", whisky, "--catalog", "Localizable.xcstrings", "--json"], in: directory.url)
        let accounts = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(accounts.count, 152)
        let verdicts = Dictionary(grouping: accounts.compactMap { $0["verdict"] as? String }, by: { $0 }).mapValues(\.count)
        XCTAssertEqual(verdicts, ["used": 140, "manual": 11, "stale": 1])

        // Without its own declarations (a view's initializer in a file not scanned), a key is stale, and --explain says where its text is.
        let alone = try lprojctl(["catalog", "sync", whisky + "/Whisky/Views/Bottle/BottleListEntry.swift", "--catalog", "Localizable.xcstrings",
                                  "--explain"], in: directory.url)
        XCTAssertTrue(alone.stdout.contains("\"rename.bottle.title\": stale, no source uses it as a key; its text is a plain String at "
                                            + "\(whisky)/Whisky/Views/Bottle/BottleListEntry.swift:38:28"), alone.stdout)
        let named = try lprojctl(["catalog", "sync", whisky + "/Whisky/Views/Bottle/BottleListEntry.swift", "--catalog", "Localizable.xcstrings",
                                  "--explain", "--localizable", "RenameView:_"], in: directory.url)
        XCTAssertTrue(named.stdout.contains("\"rename.bottle.title\": used at "), named.stdout)
        let bad = try lprojctl(["catalog", "sync", whisky, "--catalog", "Localizable.xcstrings", "--localizable", "RenameView"], in: directory.url)
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--localizable: 'RenameView' is not a position: write NAME:LABEL"), bad.stderr)
    }

    func testSyncRefusesABrokenCatalogAndUnreadableSources() throws {
        try directory.write("Sources/A.swift", "let a = String(localized: \"A\")\n")
        try directory.write("Localizable.xcstrings", "{\n  \"sourceLanguage\" : \"en\",\n  \"strings\" : {\n    \"A\" : [\n}\n")
        let broken = try lprojctl(["catalog", "sync", "Sources", "--catalog", "Localizable.xcstrings"], in: directory.url)
        XCTAssertEqual(broken.status, 1)
        XCTAssertTrue(broken.stderr.contains("Localizable.xcstrings:5:"), broken.stderr)
        XCTAssertTrue(broken.stderr.contains("nothing was written"), broken.stderr)
        let missing = try lprojctl(["catalog", "sync", "NoSuchDirectory", "--catalog", "New.xcstrings"], in: directory.url)
        XCTAssertEqual(missing.status, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/New.xcstrings"))
    }

    // MARK: - export and import

    func testTranslateToolkitReadsTheExportAndItsEditsImportExactly() throws {
        try writeCatalog()
        let catalog = "App/Localizable.xcstrings"
        let original = try Data(contentsOf: URL(fileURLWithPath: root + "/" + catalog))
        let export = try lprojctl(["catalog", "export", "--catalog", catalog, "--output", "out", "--language", "ru", "--language", "de"], in: directory.url)
        XCTAssertEqual(export.status, 0, export.stderr)
        let contents = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: directory.url.appendingPathComponent("out/ru.xcloc/contents.json")))
                                     as? [String: Any])
        XCTAssertEqual(contents["targetLocale"] as? String, "ru")
        XCTAssertEqual(contents["developmentRegion"] as? String, "en")
        let xliff = root + "/out/ru.xcloc/Localized Contents/ru.xliff"
        let units = try toolkitUnits(xliff)
        XCTAssertEqual(units.map { $0.id }, [
            "%lld files", "%lld files|==|substitutions.count.plural.one", "%lld files|==|substitutions.count.plural.few",
            "%lld files|==|substitutions.count.plural.many", "%lld files|==|substitutions.count.plural.other",
            "Done", "items|==|plural.one", "items|==|plural.few", "items|==|plural.many", "items|==|plural.other",
            "Tap|==|device.mac", "Tap|==|device.other", "Tap", "Welcome, %@",
        ])
        XCTAssertEqual(units.first { $0.id == "Tap|==|device.mac" }?.source, "Click")
        XCTAssertNil(units.first { $0.id == "Tap|==|device.mac" }?.target)
        XCTAssertEqual(units.first { $0.id == "Tap" }?.target, "Нажмите", "a translation that does not vary is its own unit")
        XCTAssertEqual(units.first { $0.id == "Done" }?.note, "The button that closes a sheet")
        XCTAssertEqual(units.first { $0.id == "Done" }?.target, "Готово")
        XCTAssertEqual(units.first { $0.id == "items|==|plural.few" }?.source, "%lld items", "a form English lacks shows its other form")
        XCTAssertEqual(units.first { $0.id == "items|==|plural.one" }?.target, "%lld предмет")
        XCTAssertNil(units.first { $0.id == "items|==|plural.many" }?.target)
        XCTAssertEqual(units.first { $0.id == "%lld files" }?.source, "%#@count@ in the folder")
        XCTAssertNil(units.first { $0.id == "Old" }, "stale keys are not sent to translators")

        // Export then import with no edit changes no byte.
        let unchanged = try lprojctl(["catalog", "import", "out/ru.xcloc", "out/de.xcloc"], in: directory.url)
        XCTAssertEqual(unchanged.status, 0, unchanged.stderr)
        XCTAssertTrue(unchanged.stderr.contains("0 added, 0 changed"), unchanged.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: root + "/" + catalog)), original)

        // The translator's tool fills and changes targets and saves its own XLIFF.
        let edits = ["items|==|plural.many": "%lld предметов", "items|==|plural.other": "%lld предмета", "Done": "Готово & закрыть <сейчас>",
                     "Tap|==|device.mac": "Щёлкните", "Tap|==|device.other": "Нажмите",
                     "Welcome, %@": "Добро пожаловать, %@\nснова", "%lld files|==|substitutions.count.plural.few": "%lld файла"]
        try toolkit(["edit", xliff, String(decoding: JSONSerialization.data(withJSONObject: edits), as: UTF8.self)])
        let dryRun = try lprojctl(["catalog", "import", "out/ru.xcloc", "--dry-run"], in: directory.url)
        XCTAssertEqual(dryRun.stdout, "App/Localizable.xcstrings (ru): 5 added, 2 changed, 4 unchanged\n")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: root + "/" + catalog)), original)
        let imported = try lprojctl(["catalog", "import", "out/ru.xcloc"], in: directory.url)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let ru = try XCTUnwrap(StringCatalogFile(bytes: Data(contentsOf: URL(fileURLWithPath: root + "/" + catalog)), path: catalog).catalog.tables["ru"])
        XCTAssertEqual(ru["Done"]?.text, "Готово & закрыть <сейчас>")
        XCTAssertEqual(ru["Welcome, %@"]?.text, "Добро пожаловать, %@\nснова")
        XCTAssertEqual(ru["items"]?.value, .plural(["one": .text("%lld предмет"), "many": .text("%lld предметов"), "other": .text("%lld предмета")]))
        XCTAssertEqual(ru["%lld files"]?.substitutions["count"]?.variants, .plural(["one": .text("%lld файл"), "few": .text("%lld файла")]))
        XCTAssertEqual(ru["Tap"]?.value, .device(["mac": .text("Щёлкните"), "other": .text("Нажмите")]), "varied by device as Xcode varies it")
        // The edits read back from the catalog are what the tool wrote: a second import changes nothing.
        let twice = try lprojctl(["catalog", "import", "out/ru.xcloc"], in: directory.url)
        XCTAssertTrue(twice.stdout.contains("0 added, 0 changed, 11 unchanged"), twice.stdout)
    }

    /// A substitution's argument, `%arg` in the catalog, is exported as the specifier it stands for (`%2$lld`, as Xcode
    /// exports it: a translator's tool reads `%arg` as `%a`), and comes back as `%arg`: an unedited export imports as no
    /// change, an edited form is written in the catalog's terms.
    func testASubstitutionsArgumentTravelsAsItsSpecifierAndComesBackAsArg() throws {
        let catalog = try directory.write("App/Files.xcstrings", """
            {
              "sourceLanguage" : "en",
              "strings" : {
                "%@ has %lld files" : {
                  "localizations" : {
                    "en" : {
                      "stringUnit" : { "state" : "translated", "value" : "%1$@ has %2$#@count@" },
                      "substitutions" : { "count" : { "argNum" : 2, "formatSpecifier" : "lld", "variations" : { "plural" : {
                        "one" : { "stringUnit" : { "state" : "translated", "value" : "%arg file" } },
                        "other" : { "stringUnit" : { "state" : "translated", "value" : "%arg files" } } } } } }
                    },
                    "fr" : {
                      "stringUnit" : { "state" : "translated", "value" : "%1$@ a %2$#@count@" },
                      "substitutions" : { "count" : { "argNum" : 2, "formatSpecifier" : "lld", "variations" : { "plural" : {
                        "one" : { "stringUnit" : { "state" : "translated", "value" : "%arg fichier" } },
                        "other" : { "stringUnit" : { "state" : "translated", "value" : "%arg fichiers" } } } } } }
                    }
                  }
                }
              },
              "version" : "1.0"
            }
            """)
        let original = try Data(contentsOf: URL(fileURLWithPath: catalog))
        let export = try lprojctl(["catalog", "export", "--catalog", "App/Files.xcstrings", "--output", "out", "--language", "fr"], in: directory.url)
        XCTAssertEqual(export.status, 0, export.stderr)
        let xliff = root + "/out/fr.xcloc/Localized Contents/fr.xliff"
        let text = try String(contentsOfFile: xliff, encoding: .utf8)
        XCTAssertTrue(text.contains("<source>%2$lld files</source>"), text)
        XCTAssertTrue(text.contains(">%2$lld fichiers</target>"), text)
        XCTAssertFalse(text.contains("%arg"), "no %arg leaves the catalog")
        let unchanged = try lprojctl(["catalog", "import", "out/fr.xcloc"], in: directory.url)
        XCTAssertEqual(unchanged.status, 0, unchanged.stderr)
        XCTAssertTrue(unchanged.stdout.contains("0 added, 0 changed"), unchanged.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: catalog)), original, "an unedited export changes no byte")
        try text.replacingOccurrences(of: ">%2$lld fichiers</target>", with: ">%2$lld dossiers</target>")
            .write(toFile: xliff, atomically: true, encoding: .utf8)
        let edited = try lprojctl(["catalog", "import", "out/fr.xcloc"], in: directory.url)
        XCTAssertEqual(edited.status, 0, edited.stderr)
        let fr = try XCTUnwrap(StringCatalogFile(bytes: Data(contentsOf: URL(fileURLWithPath: catalog)), path: catalog).catalog.tables["fr"])
        XCTAssertEqual(fr["%@ has %lld files"]?.substitutions["count"]?.variants,
                       .plural(["one": .text("%arg fichier"), "other": .text("%arg dossiers")]), "written in the catalog's terms")
    }

    /// A translator's state-only change — marking a text as needing review, or reviewed, the text as it is — is a change
    /// (it imported as "0 changed").
    func testAStateOnlyChangeIsImported() throws {
        let catalog = try directory.write("App/Done.xcstrings", """
            {
              "sourceLanguage" : "en",
              "strings" : {
                "Done" : { "localizations" : { "fr" : { "stringUnit" : { "state" : "translated", "value" : "Terminé" } } } }
              },
              "version" : "1.0"
            }
            """)
        let export = try lprojctl(["catalog", "export", "--catalog", "App/Done.xcstrings", "--output", "out", "--language", "fr"], in: directory.url)
        XCTAssertEqual(export.status, 0, export.stderr)
        let xliff = root + "/out/fr.xcloc/Localized Contents/fr.xliff"
        let text = try String(contentsOfFile: xliff, encoding: .utf8)
        XCTAssertTrue(text.contains("<target state=\"translated\">Terminé</target>"), text)
        func importing(_ state: String) throws -> (CommandResult, TranslationState?) {
            try text.replacingOccurrences(of: "<target state=\"translated\">", with: "<target state=\"\(state)\">").write(toFile: xliff, atomically: true, encoding: .utf8)
            let result = try lprojctl(["catalog", "import", "out/fr.xcloc"], in: directory.url)
            let fr = StringCatalogFile(bytes: try Data(contentsOf: URL(fileURLWithPath: catalog)), path: catalog).catalog.tables["fr"]
            XCTAssertEqual(fr?["Done"]?.text, "Terminé", "the text as it was")
            return (result, fr?["Done"].map { $0.state ?? .translated })
        }
        let (review, needsReview) = try importing("needs-review-translation")
        XCTAssertEqual(review.status, 0, review.stderr)
        XCTAssertTrue(review.stdout.contains("0 added, 1 changed, 0 unchanged"), review.stdout)
        XCTAssertEqual(needsReview, .needsReview)
        let (final, translated) = try importing("final")
        XCTAssertTrue(final.stdout.contains("0 added, 1 changed"), final.stdout)
        XCTAssertEqual(translated, .translated)
        let (again, _) = try importing("translated")
        XCTAssertTrue(again.stdout.contains("0 added, 0 changed, 1 unchanged"), again.stdout)
    }

    func testABundleRoundTripsAndAnXcodeExportImports() throws {
        try writeBundle()
        let files = ["App/en.lproj/Localizable.strings", "App/en.lproj/Localizable.stringsdict", "App/de.lproj/Localizable.strings"]
        let before = try files.map { try Data(contentsOf: directory.url.appendingPathComponent($0)) }
        let export = try lprojctl(["catalog", "export", "--bundle", "App", "--output", "out"], in: directory.url)
        XCTAssertEqual(export.status, 0, export.stderr)
        let units = try toolkitUnits(root + "/out/de.xcloc/Localized Contents/de.xliff")
        XCTAssertEqual(units.map { $0.id }, ["home_title", "welcome", "/files:dict/NSStringLocalizedFormatKey:dict/:string",
                                             "/files:dict/n:dict/one:dict/:string", "/files:dict/n:dict/other:dict/:string"])
        XCTAssertEqual(units[0].note, "Title of the first screen")
        XCTAssertEqual(units[0].target, "Start")
        XCTAssertNil(units[1].target)
        let same = try lprojctl(["catalog", "import", "out/de.xcloc"], in: directory.url)
        XCTAssertEqual(same.status, 0, same.stderr)
        XCTAssertEqual(try files.map { try Data(contentsOf: directory.url.appendingPathComponent($0)) }, before)

        // What Xcode itself exports for this bundle, translated.
        let xcode = try lprojctl(["catalog", "import", Self.fixtures.appendingPathComponent("xliff/xcode-export-de.xliff").path], in: directory.url)
        XCTAssertEqual(xcode.status, 0, xcode.stderr)
        XCTAssertEqual(xcode.stdout, """
            App/en.lproj/Localizable.strings (de): 1 added, 1 changed, 0 unchanged
            App/en.lproj/Localizable.stringsdict (de): 3 added, 0 changed, 0 unchanged

            """)
        XCTAssertEqual(try String(contentsOfFile: root + "/App/de.lproj/Localizable.strings", encoding: .utf8), """
            /* Title of the first screen */
            "home_title" = "Startseite";
            "welcome" = "Willkommen, %@!";

            """)
        let rules = try XCTUnwrap(PropertyListSerialization.propertyList(from: Data(contentsOf: directory.url.appendingPathComponent("App/de.lproj/Localizable.stringsdict")),
                                                                         format: nil) as? [String: [String: Any]])
        XCTAssertEqual(rules["files"]?["NSStringLocalizedFormatKey"] as? String, "%#@n@")
        XCTAssertEqual((rules["files"]?["n"] as? [String: String])?["one"], "%d Datei")
        XCTAssertEqual((rules["files"]?["n"] as? [String: String])?["other"], "%d Dateien")
        XCTAssertEqual((rules["files"]?["n"] as? [String: String])?["NSStringFormatValueTypeKey"], "d")
    }

    /// A `.stringsdict`'s device variations import as they export: each device's text into the language's file (made when
    /// missing, edited in place when there), every other byte kept; a device's text for an entry the file holds as a
    /// plain format is refused at its line, nothing written.
    func testAStringsDictsDeviceVariationsImport() throws {
        func deviceRules(_ forms: [(String, String)], plain: Bool = false) -> String {
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>tap</key>
            \t<dict>
            \t\t<key>\(plain ? "NSStringLocalizedFormatKey" : "NSStringDeviceSpecificRuleType")</key>
            \(plain ? "\t\t<string>Tippen</string>" : "\t\t<dict>\n" + forms.map { "\t\t\t<key>\($0)</key>\n\t\t\t<string>\($1)</string>\n" }.joined() + "\t\t</dict>")
            \t</dict>
            </dict>
            </plist>

            """
        }
        try directory.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Home\";\n")
        try directory.write("App/en.lproj/Localizable.stringsdict", deviceRules([("iphone", "Tap to start"), ("mac", "Click to start")]))
        try directory.write("App/de.lproj/Localizable.strings", "\"home_title\" = \"Start\";\n")
        let export = try lprojctl(["catalog", "export", "--bundle", "App", "--output", "out"], in: directory.url)
        XCTAssertEqual(export.status, 0, export.stderr)
        let xliff = root + "/out/de.xcloc/Localized Contents/de.xliff"
        let units = try toolkitUnits(xliff).filter { $0.id.hasPrefix("/tap") }
        XCTAssertEqual(units.map(\.id), ["/tap:dict/NSStringDeviceSpecificRuleType:dict/iphone:dict/:string",
                                          "/tap:dict/NSStringDeviceSpecificRuleType:dict/mac:dict/:string"])
        var text = try String(contentsOfFile: xliff, encoding: .utf8)
        for (source, target) in [("Tap to start", "Zum Starten tippen"), ("Click to start", "Zum Starten klicken")] {
            text = text.replacingOccurrences(of: "<source>\(source)</source>", with: "<source>\(source)</source>\n<target>\(target)</target>")
        }
        try text.write(toFile: xliff, atomically: true, encoding: .utf8)
        let imported = try lprojctl(["catalog", "import", "out/de.xcloc"], in: directory.url)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stdout.contains("App/en.lproj/Localizable.stringsdict (de): 2 added, 0 changed, 0 unchanged"), imported.stdout)
        let made = root + "/App/de.lproj/Localizable.stringsdict"
        let rules = try XCTUnwrap(PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: made)), format: nil)
            as? [String: [String: [String: String]]])
        XCTAssertEqual(rules["tap"]?["NSStringDeviceSpecificRuleType"], ["iphone": "Zum Starten tippen", "mac": "Zum Starten klicken"])

        // One device's text changed in a file written by hand: that string changes, every other byte stays.
        try directory.write("App/de.lproj/Localizable.stringsdict", deviceRules([("iphone", "Tippen"), ("mac", "Klicken")]))
        text = text.replacingOccurrences(of: "Zum Starten tippen", with: "Tippen")
        try text.write(toFile: xliff, atomically: true, encoding: .utf8)
        let edited = try lprojctl(["catalog", "import", "out/de.xcloc"], in: directory.url)
        XCTAssertEqual(edited.status, 0, edited.stderr)
        XCTAssertTrue(edited.stdout.contains("(de): 0 added, 1 changed, 1 unchanged"), edited.stdout)
        XCTAssertEqual(try String(contentsOfFile: made, encoding: .utf8),
                       deviceRules([("iphone", "Tippen"), ("mac", "Zum Starten klicken")]))

        // The language's file holds the entry as a plain format: refused, nothing written.
        let plain = deviceRules([], plain: true)
        try directory.write("App/de.lproj/Localizable.stringsdict", plain)
        let refused = try lprojctl(["catalog", "import", "out/de.xcloc"], in: directory.url)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("de.xliff:19:1: error: unit \"/tap:dict/NSStringDeviceSpecificRuleType:dict/iphone:dict/:string\": de has \"tap\" as one text, not varied by device"), refused.stderr)
        XCTAssertTrue(refused.stderr.hasSuffix("nothing was written\n"), refused.stderr)
        XCTAssertEqual(try String(contentsOfFile: made, encoding: .utf8), plain)
    }

    func testALocalizationNamedLikeAPathIsAnErrorAndCompileWritesNothingOutsideItsOutput() throws {
        let catalog = """
            {
              "sourceLanguage" : "en",
              "strings" : {
                "home" : {
                  "localizations" : {
                    "../../escaped" : {
                      "stringUnit" : { "state" : "translated", "value" : "Out" }
                    },
                    "en" : {
                      "stringUnit" : { "state" : "translated", "value" : "Home" }
                    }
                  }
                }
              },
              "version" : "1.0"
            }

            """
        try directory.write("work/Localizable.xcstrings", catalog)
        let compiled = try lprojctl(["catalog", "compile", "work/Localizable.xcstrings", "--output", "work/out/build"], in: directory.url)
        XCTAssertEqual(compiled.status, 1, compiled.stderr)
        XCTAssertTrue(compiled.stderr.contains("Localizable.xcstrings:6:9: error: \"../../escaped\" (a localization of \"home\") is not a localization name"),
                      compiled.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/escaped.lproj"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/work/out/build"), "nothing was written")
        let lint = try lprojctl(["lint", "work/Localizable.xcstrings"], in: directory.url)
        XCTAssertEqual(lint.status, 1)
        XCTAssertTrue(lint.stdout.contains("is not a localization name") || lint.stderr.contains("is not a localization name"), lint.stdout)
        for name in ["en", "pt-BR", "zh-Hans", "zh_CN", "Base", "sr-Latn-RS"] { XCTAssertTrue(StringCatalogFile.isLocalizationName(name), name) }
        for name in ["", ".", "..", "../x", "a/b", ".hidden", "-x", "é", "en\u{0}"] { XCTAssertFalse(StringCatalogFile.isLocalizationName(name), name) }
    }

    func testBadInputIsOneMessageAndNothingIsWritten() throws {
        try writeBundle()
        let strings = root + "/App/de.lproj/Localizable.strings"
        let before = try Data(contentsOf: URL(fileURLWithPath: strings))
        func importing(_ text: String) throws -> CommandResult {
            try directory.write("in.xliff", text)
            return try lprojctl(["catalog", "import", "in.xliff"], in: directory.url)
        }
        func xliff(original: String = "App/en.lproj/Localizable.strings", _ units: String) -> String {
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2">
              <file original="\(original)" source-language="en" target-language="de" datatype="plaintext">
                <body>
            \(units)
                </body>
              </file>
            </xliff>
            """
        }
        let good = "<trans-unit id=\"home_title\"><source>Home</source><target>Heim</target></trans-unit>"
        let malformed = try importing(xliff(good + "\n<trans-unit id=\"welcome\"><source>Welcome</target></trans-unit>"))
        XCTAssertEqual(malformed.status, 1)
        XCTAssertTrue(malformed.stderr.hasPrefix("\(root)/in.xliff:6:"), malformed.stderr)
        XCTAssertTrue(malformed.stderr.contains("not well-formed XML: an end tag that does not match its start tag"), malformed.stderr)
        let unknown = try importing(xliff(original: "App/Info.plist", good))
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("in.xliff:3:1: error: \"App/Info.plist\" is not a String Catalog"), unknown.stderr)
        let outside = try importing(xliff(original: "../elsewhere/en.lproj/Localizable.strings", good))
        XCTAssertTrue(outside.stderr.contains("in.xliff:3:1: error: \"../elsewhere/en.lproj/Localizable.strings\" is outside \(root)"), outside.stderr)
        let absolute = try importing(xliff(original: "/etc/en.lproj/Localizable.strings", good))
        XCTAssertTrue(absolute.stderr.contains("\"/etc/en.lproj/Localizable.strings\" is outside"), absolute.stderr)
        // A path that reads as inside but leads out through a link: a linked .lproj, a linked table.
        let elsewhere = TemporaryDirectory()
        try elsewhere.write("de.lproj/Localizable.strings", "\"home_title\" = \"Draußen\";\n")
        try elsewhere.write("Other.strings", "\"home_title\" = \"Draußen\";\n")
        try FileManager.default.createDirectory(atPath: root + "/Linked", withIntermediateDirectories: true)
        XCTAssertEqual(symlink(elsewhere.url.path + "/de.lproj", root + "/Linked/de.lproj"), 0)
        XCTAssertEqual(symlink(elsewhere.url.path + "/Other.strings", root + "/App/de.lproj/Other.strings"), 0)
        for original in ["Linked/de.lproj/Localizable.strings", "App/de.lproj/Other.strings"] {
            let linked = try importing(xliff(original: original.replacingOccurrences(of: "de.lproj", with: "en.lproj"), good))
            XCTAssertNotEqual(linked.status, 0, original)
            XCTAssertTrue(linked.stderr.contains("outside \(root)"), linked.stderr)
        }
        XCTAssertEqual(try String(contentsOfFile: elsewhere.url.path + "/de.lproj/Localizable.strings", encoding: .utf8), "\"home_title\" = \"Draußen\";\n")
        XCTAssertEqual(try String(contentsOfFile: elsewhere.url.path + "/Other.strings", encoding: .utf8), "\"home_title\" = \"Draußen\";\n")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: root + "/App/de.lproj/Other.strings"), elsewhere.url.path + "/Other.strings")
        let noCatalog = try importing(xliff(original: "Missing.xcstrings", good))
        XCTAssertTrue(noCatalog.stderr.contains("in.xliff:3:1: error: \"Missing.xcstrings\" names \(root)/Missing.xcstrings, which does not exist"),
                      noCatalog.stderr)
        let mismatched = try importing(xliff(good + "\n<trans-unit id=\"welcome\">\n<source>Welcome, %@!</source><target>Willkommen, %d!</target></trans-unit>"))
        XCTAssertEqual(mismatched.status, 1)
        XCTAssertTrue(mismatched.stderr.contains("in.xliff:6:1: error: unit \"welcome\": the translation reads argument 1 as an integer (%d), "
                                                 + "but en reads it as an object (%@)"), mismatched.stderr)
        let variable = try importing(xliff(original: "App/en.lproj/Localizable.stringsdict",
                                           "<trans-unit id=\"/files:dict/NSStringLocalizedFormatKey:dict/:string\"><source>%#@n@</source><target>%#@m@</target></trans-unit>"))
        XCTAssertTrue(variable.stderr.contains("names the variable %#@m@, which the source does not have"), variable.stderr)
        let category = try importing(xliff(original: "App/en.lproj/Localizable.stringsdict",
                                           "<trans-unit id=\"/files:dict/n:dict/few:dict/:string\"><source>%d files</source><target>%d x</target></trans-unit>"))
        XCTAssertTrue(category.stderr.contains("German (de) never selects the \"few\" plural form"), category.stderr)
        let badID = try importing(xliff(original: "App/en.lproj/Localizable.stringsdict",
                                        "<trans-unit id=\"files\"><source>a</source><target>b</target></trans-unit>"))
        XCTAssertTrue(badID.stderr.contains("unit \"files\": not an id Xcode writes"), badID.stderr)
        // A unit for a key no localization has: an import translates, it adds no key (it was added silently, exit 0).
        let unknownKey = try importing(xliff(good + "\n<trans-unit id=\"no_such_key\">\n<source>Gone</source><target>Weg</target></trans-unit>"))
        XCTAssertTrue(unknownKey.stderr.contains("in.xliff:6:1: error: unit \"no_such_key\": no localization of \"App/en.lproj/Localizable.strings\" "
                                                 + "has the key \"no_such_key\""), unknownKey.stderr)
        // An XLIFF exported from another source language (it was accepted).
        let otherSource = try importing(xliff(good).replacingOccurrences(of: "source-language=\"en\"", with: "source-language=\"fr\""))
        XCTAssertTrue(otherSource.stderr.contains("in.xliff:3:1: error: source-language \"fr\" is not the language "
                                                  + "\"App/en.lproj/Localizable.strings\" is written in (en)"), otherSource.stderr)
        for result in [malformed, unknown, outside, absolute, noCatalog, mismatched, variable, category, badID, unknownKey, otherSource] {
            XCTAssertEqual(result.status, 1)
            XCTAssertTrue(result.stderr.hasSuffix("nothing was written\n"), result.stderr)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: strings)), before, "the good unit beside a bad one is not written either")
        let usage = try lprojctl(["catalog", "export", "--output", "out"], in: directory.url)
        XCTAssertEqual(usage.status, 2)
        let fromBelow = try lprojctl(["catalog", "export", "--bundle", "../App", "--output", "../out"], in: directory.url.appendingPathComponent("App"))
        XCTAssertEqual(fromBelow.status, 1)
        XCTAssertTrue(fromBelow.stderr.contains("../App/en.lproj/Localizable.strings: error: outside the current directory"), fromBelow.stderr)
    }

    // MARK: - Helpers

    private func lprojctl(_ arguments: [String], in directory: URL) throws -> CommandResult {
        try runCommand("lprojctl", arguments, in: directory)
    }

    private struct ToolkitUnit: Decodable {
        var id: String
        var source: String
        var target: String?
        var note: String?
    }

    /// The units of an XLIFF file as translate-toolkit reads them.
    private func toolkitUnits(_ path: String) throws -> [ToolkitUnit] {
        try JSONDecoder().decode([ToolkitUnit].self, from: Data(toolkit(["dump", path]).utf8))
    }

    @discardableResult
    private func toolkit(_ arguments: [String]) throws -> String {
        let package = Self.fixtures.deletingLastPathComponent().deletingLastPathComponent()
        let python = ProcessInfo.processInfo.environment["LPROJ_PYTHON"] ?? package.appendingPathComponent(".build/venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else { throw MissingTool(python: python) }
        let result = try runCommand(python, [Self.fixtures.deletingLastPathComponent().appendingPathComponent("Tools/xliff_units.py").path] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout
    }

    private struct MissingTool: Error, CustomStringConvertible {
        var python: String
        var description: String { "\(python) is missing: `make test` makes the virtual environment with translate-toolkit" }
    }

    private func writeCatalog() throws {
        try directory.write("App/Localizable.xcstrings", """
            {
              "sourceLanguage" : "en",
              "strings" : {
                "%lld files" : {
                  "localizations" : {
                    "en" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "%#@count@ in the folder"
                      },
                      "substitutions" : {
                        "count" : {
                          "argNum" : 1,
                          "formatSpecifier" : "lld",
                          "variations" : {
                            "plural" : {
                              "one" : {
                                "stringUnit" : {
                                  "state" : "translated",
                                  "value" : "%arg file"
                                }
                              },
                              "other" : {
                                "stringUnit" : {
                                  "state" : "translated",
                                  "value" : "%arg files"
                                }
                              }
                            }
                          }
                        }
                      }
                    },
                    "ru" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "%#@count@ в папке"
                      },
                      "substitutions" : {
                        "count" : {
                          "argNum" : 1,
                          "formatSpecifier" : "lld",
                          "variations" : {
                            "plural" : {
                              "one" : {
                                "stringUnit" : {
                                  "state" : "translated",
                                  "value" : "%lld файл"
                                }
                              }
                            }
                          }
                        }
                      }
                    }
                  }
                },
                "Done" : {
                  "comment" : "The button that closes a sheet",
                  "localizations" : {
                    "de" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "Fertig"
                      }
                    },
                    "ru" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "Готово"
                      }
                    }
                  }
                },
                "items" : {
                  "localizations" : {
                    "en" : {
                      "variations" : {
                        "plural" : {
                          "one" : {
                            "stringUnit" : {
                              "state" : "translated",
                              "value" : "%lld item"
                            }
                          },
                          "other" : {
                            "stringUnit" : {
                              "state" : "translated",
                              "value" : "%lld items"
                            }
                          }
                        }
                      }
                    },
                    "ru" : {
                      "variations" : {
                        "plural" : {
                          "one" : {
                            "stringUnit" : {
                              "state" : "translated",
                              "value" : "%lld предмет"
                            }
                          }
                        }
                      }
                    }
                  }
                },
                "Old" : {
                  "extractionState" : "stale"
                },
                "Tap" : {
                  "localizations" : {
                    "en" : {
                      "variations" : {
                        "device" : {
                          "mac" : {
                            "stringUnit" : {
                              "state" : "translated",
                              "value" : "Click"
                            }
                          },
                          "other" : {
                            "stringUnit" : {
                              "state" : "translated",
                              "value" : "Tap"
                            }
                          }
                        }
                      }
                    },
                    "ru" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "Нажмите"
                      }
                    }
                  }
                },
                "Welcome, %@" : {
                  "localizations" : {
                    "ru" : {
                      "stringUnit" : {
                        "state" : "needs_review",
                        "value" : "Добро пожаловать, %@"
                      }
                    }
                  }
                }
              },
              "version" : "1.0"
            }
            """)
    }

    private func writeBundle() throws {
        try directory.write("App/en.lproj/Localizable.strings", """
            /* Title of the first screen */
            "home_title" = "Home";
            "welcome" = "Welcome, %@!";

            """)
        try directory.write("App/de.lproj/Localizable.strings", """
            /* Title of the first screen */
            "home_title" = "Start";

            """)
        try directory.write("App/en.lproj/Localizable.stringsdict", EditCommandTests.rules("%d files", "%d file"))
    }

    /// A catalog has no Base: migrating carries Base.lproj's keys into the development language where it lacks them, and says
    /// so — Xcode's migration — never a silent loss.
    func testMigrateCarriesBaseIntoTheDevelopmentLanguageAndSaysSo() throws {
        let directory = TemporaryDirectory()
        try directory.write("App/Base.lproj/Main.strings", "\"title\" = \"Base title\";\n\"button\" = \"Base button\";\n")
        try directory.write("App/en.lproj/Main.strings", "\"title\" = \"English title\";\n")
        try directory.write("App/fr.lproj/Main.strings", "\"title\" = \"Titre\";\n")
        let bundle = directory.url.path + "/App"
        let result = try runCommand("lprojctl", ["catalog", "migrate", bundle, "--table", "Main"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("1 key of Base.lproj/Main carried into en, which lacked it (a catalog has no Base): \"button\""), result.stderr)
        let catalog = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: bundle + "/Main.xcstrings"))) as? [String: Any]
        let strings = try XCTUnwrap(catalog?["strings"] as? [String: [String: Any]])
        func value(_ key: String, _ language: String) -> String? {
            ((strings[key]?["localizations"] as? [String: Any])?[language] as? [String: Any]).flatMap { ($0["stringUnit"] as? [String: Any])?["value"] as? String }
        }
        XCTAssertEqual(value("button", "en"), "Base button", "Base's key, now the development language's")
        XCTAssertEqual(value("title", "en"), "English title", "the development language's own text wins")
        XCTAssertEqual(value("title", "fr"), "Titre")
        XCTAssertNil((strings["title"]?["localizations"] as? [String: Any])?["Base"], "no Base in a catalog")
    }

}
