import Foundation
@testable import LprojClient
@testable import LprojBundles
@testable import LprojExchange
import LprojFormats
import LprojTables
import XCTest

/// A compiled String Catalog holds what the catalog holds: for every key
/// and language, LiveBundle reading the compiled `.lproj` tables gives the
/// text (and every plural form, with numbers) it gives reading the catalog
/// itself, and Foundation reads the plain strings.
final class CatalogCompileTests: XCTestCase {
    static let fixture = """
        {
          "sourceLanguage" : "en",
          "strings" : {
            "Buy" : {
              "localizations" : {
                "fr" : { "stringUnit" : { "state" : "translated", "value" : "Acheter" } },
                "ru" : { "stringUnit" : { "state" : "needs_review", "value" : "Купить" } }
              }
            },
            "Just a key" : { },
            "%lld items" : {
              "localizations" : {
                "en" : { "variations" : { "plural" : {
                  "one" : { "stringUnit" : { "state" : "translated", "value" : "%lld item" } },
                  "other" : { "stringUnit" : { "state" : "translated", "value" : "%lld items" } } } } },
                "ru" : { "variations" : { "plural" : {
                  "one" : { "stringUnit" : { "state" : "translated", "value" : "%lld предмет" } },
                  "few" : { "stringUnit" : { "state" : "translated", "value" : "%lld предмета" } },
                  "many" : { "stringUnit" : { "state" : "translated", "value" : "%lld предметов" } },
                  "other" : { "stringUnit" : { "state" : "translated", "value" : "%lld предмета" } } } } }
              }
            },
            "files in folder" : {
              "localizations" : {
                "fr" : {
                  "stringUnit" : { "state" : "translated", "value" : "%#@files@ dans %2$@" },
                  "substitutions" : { "files" : { "argNum" : 1, "formatSpecifier" : "lld", "variations" : { "plural" : {
                    "one" : { "stringUnit" : { "state" : "translated", "value" : "%arg fichier" } },
                    "other" : { "stringUnit" : { "state" : "translated", "value" : "%arg fichiers" } } } } } }
                }
              }
            },
            "Tap" : {
              "localizations" : {
                "fr" : { "variations" : { "device" : {
                  "mac" : { "stringUnit" : { "state" : "translated", "value" : "Cliquez" } },
                  "other" : { "stringUnit" : { "state" : "translated", "value" : "Touchez" } } } } }
              }
            },
            "Old" : {
              "localizations" : { "fr" : { "stringUnit" : { "state" : "stale", "value" : "Ancien" } } }
            }
          },
          "version" : "1.0"
        }
        """

    func testTheFixtureCompilesToWhatTheCatalogHolds() throws {
        try assertCompiledEqualsCatalog(Array(Self.fixture.utf8), name: "Shop", arguments: [[0], [1], [2], [3], [5], [11], [21], [101]])
        let compiled = try CatalogCompiler.compile(StringCatalogFile(bytes: Array(Self.fixture.utf8), path: "Shop.xcstrings").catalog)
        let english = try XCTUnwrap(compiled["en"]?.strings)
        XCTAssertEqual(try PropertyListSerialization.propertyList(from: Data(english), format: nil) as? [String: String],
                       ["Buy": "Buy", "Just a key": "Just a key", "Tap": "Tap", "files in folder": "files in folder", "Old": "Old"],
                       "the source language: each key is its own text")
        let rules = try XCTUnwrap(PropertyListSerialization.propertyList(from: Data(XCTUnwrap(compiled["fr"]?.stringsDict)), format: nil)
            as? [String: [String: Any]])
        XCTAssertEqual(rules["files in folder"]?["NSStringLocalizedFormatKey"] as? String, "%1$#@files@ dans %2$@", "argNum becomes a position")
        // %arg is the substitution's own argument: written as Foundation formats it, as Xcode compiles it.
        let files = try XCTUnwrap(rules["files in folder"]?["files"] as? [String: Any])
        XCTAssertEqual(files["one"] as? String, "%1$lld fichier")
        XCTAssertEqual(files["other"] as? String, "%1$lld fichiers")
        XCTAssertEqual(String(format: files["other"] as! String, locale: Locale(identifier: "fr"), 3), "3 fichiers", "Foundation's printf reads it")
        XCTAssertEqual((rules["Tap"]?["NSStringDeviceSpecificRuleType"] as? [String: String])?["mac"], "Cliquez")
        // --states narrows: a unit needing review is left out.
        let reviewed = try CatalogCompiler.compile(StringCatalogFile(bytes: Array(Self.fixture.utf8), path: "Shop.xcstrings").catalog,
                                                   states: [.translated])
        let russian = try XCTUnwrap(reviewed["ru"])
        XCTAssertNil(russian.strings, "Купить needs review")
        XCTAssertNotNil(russian.stringsDict)
    }

    func testTheCorpusCatalogCompilesToWhatItHolds() throws {
        var corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/corpus")
        if let path = ProcessInfo.processInfo.environment["LPROJ_CORPUS"] { corpus = URL(fileURLWithPath: path) }
        let catalog = corpus.appendingPathComponent("Whisky-App+Whisky/Whisky/Localizable.xcstrings")
        try assertCompiledEqualsCatalog(Array(Data(contentsOf: catalog)), name: "Localizable", arguments: [[]])
    }

    /// For every language and key: the compiled tables and the catalog give LiveBundle the same text.
    private func assertCompiledEqualsCatalog(_ bytes: [UInt8], name: String, arguments: [[Int]]) throws {
        let file = StringCatalogFile(bytes: bytes, path: name + ".xcstrings")
        XCTAssertFalse(file.diagnostics.containsErrors)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("compile-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = directory + "/Catalog", compiled = directory + "/Compiled"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: source + "/" + name + ".xcstrings"))
        for (language, tables) in try CatalogCompiler.compile(file.catalog) {
            try FileManager.default.createDirectory(atPath: compiled + "/" + language + ".lproj", withIntermediateDirectories: true)
            if let strings = tables.strings { try Data(strings).write(to: URL(fileURLWithPath: compiled + "/\(language).lproj/\(name).strings")) }
            if let rules = tables.stringsDict { try Data(rules).write(to: URL(fileURLWithPath: compiled + "/\(language).lproj/\(name).stringsdict")) }
        }
        if name == "Shop" {
            // What the compiled tables say, read back (both sides equal below, and right here).
            func view(_ language: String) throws -> LiveBundle.Localization {
                var options = LiveBundle.Options()
                options.connects = false
                return try LiveBundle(path: compiled, options: options).localization(preferences: [language])
            }
            XCTAssertEqual(try view("ru").localizedString(format: "%lld items", table: name, arguments: [21]), "21 предмет")
            XCTAssertEqual(try view("ru").localizedString(format: "%lld items", table: name, arguments: [3]), "3 предмета")
            XCTAssertEqual(try view("fr").localizedString(format: "files in folder", table: name, arguments: [1, "Documents"]), "1 fichier dans Documents")
            XCTAssertEqual(try view("fr").localizedString(forKey: "Tap", value: nil, table: name), "Touchez")
        }
        var compared = 0
        for language in Set(file.catalog.tables.keys).union([file.catalog.sourceLanguage]).sorted() {
            func live(_ path: String) throws -> LiveBundle {
                var options = LiveBundle.Options()
                options.connects = false
                options.development = file.catalog.sourceLanguage
                options.environment = ["LANGUAGE": language, "LANG": "en_US.UTF-8", "XDG_CONFIG_HOME": directory + "/config"]
                return try LiveBundle(path: path, options: options)
            }
            let (fromCatalog, fromCompiled) = (try live(source), try live(compiled))
            XCTAssertEqual(fromCatalog.language, fromCompiled.language, language)
            for key in Set(file.catalog.keys).union(file.catalog.tables[language]?.sortedKeys ?? []).sorted() {
                XCTAssertEqual(fromCompiled.localizedString(forKey: key, value: nil, table: name),
                               fromCatalog.localizedString(forKey: key, value: nil, table: name), "\(language) \(key)")
                for numbers in arguments where !numbers.isEmpty {
                    let values = numbers.map { $0 as any CVarArg } + ["Documents" as any CVarArg]
                    XCTAssertEqual(fromCompiled.current.localizedString(format: key, table: name, arguments: values),
                                   fromCatalog.current.localizedString(format: key, table: name, arguments: values), "\(language) \(key) \(numbers)")
                }
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 0)
    }
}

/// A migrated catalog holds what the tables held: LiveBundle reading the
/// catalog alone gives every text the `.lproj` tables gave, plural forms
/// with numbers included, over ten of a real app's localizations.
final class CatalogMigrationTests: XCTestCase {
    func testARealAppsTablesMigrateIntoACatalogWithEveryValueIntact() throws {
        var corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/corpus")
        if let path = ProcessInfo.processInfo.environment["LPROJ_CORPUS"] { corpus = URL(fileURLWithPath: path) }
        let original = corpus.appendingPathComponent("element-hq+element-x-ios/ElementX/Resources/Localizations").path
        let bundle = try LocalizedBundle.load(path: original)
        var tables: [String: Table] = [:]
        // Ten of its 40 localizations (a debug build renders the whole 13 MB catalog slowly): those with the most plural categories and a few others.
        for localization in ["be", "cs", "de", "en", "fr", "ja", "pl", "ru", "uk", "zh-Hans"] {
            tables[localization] = try XCTUnwrap(bundle.table("Localizable", localization: localization), localization)
        }
        let text = CatalogMigration.catalog(tables: tables, sourceLanguage: "en")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("migrate-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(text).write(to: URL(fileURLWithPath: directory + "/Localizable.xcstrings"))
        // Read back: no error.
        let file = StringCatalogFile(bytes: text, path: "Localizable.xcstrings")
        XCTAssertEqual(file.diagnostics.filter { $0.severity == .error }, [])
        var compared = 0, rules = 0
        func live(_ path: String) throws -> LiveBundle {
            var options = LiveBundle.Options()
            options.connects = false
            options.development = "en"
            options.environment = ["LANG": "en_US.UTF-8", "XDG_CONFIG_HOME": directory + "/config"]
            return try LiveBundle(path: path, options: options)
        }
        let (tablesBundle, catalogBundle) = (try live(original), try live(directory))
        // Every language's units are counted; the lookups are compared in those with the most plural categories and a few others.
        for (language, table) in tables.sorted(by: { $0.key < $1.key }) { XCTAssertEqual(file.catalog.tables[language]?.count, table.count, language) }
        for language in ["be", "cs", "de", "en", "fr", "ja", "pl", "ru", "uk", "zh-Hans"] {
            let table = try XCTUnwrap(tables[language], language)
            let (before, after) = (tablesBundle.localization(preferences: [language]), catalogBundle.localization(preferences: [language]))
            for key in table.sortedKeys {
                XCTAssertEqual(after.localizedString(forKey: key, value: nil, table: nil), before.localizedString(forKey: key, value: nil, table: nil),
                               "\(language) \(key)")
                if table[key]?.text == nil {
                    rules += 1
                    for number in [1, 2, 5, 21] {
                        let arguments: [any CVarArg] = [number, "Ada", number]
                        XCTAssertEqual(after.localizedString(format: key, table: nil, arguments: arguments),
                                       before.localizedString(format: key, table: nil, arguments: arguments), "\(language) \(key) \(number)")
                    }
                }
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 5_000)
        XCTAssertGreaterThan(rules, 100, "plural rules from the .stringsdict files")
    }
}
