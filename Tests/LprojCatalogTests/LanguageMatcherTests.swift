import LprojTables
import XCTest
@testable import LprojCatalog

final class LanguageMatcherTests: XCTestCase {
    func testICUData() {
        XCTAssertEqual(ICU.parent("en-IN"), "en-001")
        XCTAssertEqual(ICU.parent("en-001"), "en")
        XCTAssertEqual(ICU.parent("es-MX"), "es-419")
        XCTAssertEqual(ICU.parent("zh-Hant-HK"), "zh-Hant")
        XCTAssertNil(ICU.parent("zh-Hant"), "Traditional Chinese has the root as parent, not zh")
        XCTAssertEqual(ICU.parent("fr-CA"), "fr")
        XCTAssertNil(ICU.parent("fr"))
        XCTAssertEqual(ICU.maximize("zh-TW"), "zh-Hant-TW")
        XCTAssertEqual(ICU.maximize("zh"), "zh-Hans-CN")
    }

    func testTags() {
        let cases: [(String, String?)] = [
            ("en", "en"), ("EN-us", "en-US"), ("zh_Hant_TW", "zh-Hant-TW"), ("zh-hans", "zh-Hans"), ("pt_BR", "pt-BR"),
            ("zh_TW.UTF-8", "zh-TW"), ("de_DE@euro", "de-DE"), ("es-419", "es-419"), ("English", "en"),
            ("Japanese.lproj", "ja"), ("Traditional Chinese", "zh-Hant"), ("iw", "he"), ("no", "nb"), ("Base", "Base"),
            ("sr-Latn", "sr-Latn"), ("", nil), ("1234", nil), ("e", nil), ("en--US", nil), ("en-US-x-private", "en-US-x-private"),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(LanguageTag(text)?.identifier, expected, text)
        }
        XCTAssertEqual(LanguageTag("zh-TW")?.maximized.identifier, "zh-Hant-TW")
        XCTAssertTrue(LanguageTag("ar")!.isRightToLeft)
        XCTAssertTrue(LanguageTag("he-IL")!.isRightToLeft)
        XCTAssertTrue(LanguageTag("fa")!.isRightToLeft)
        XCTAssertTrue(LanguageTag("ur")!.isRightToLeft)
        XCTAssertFalse(LanguageTag("en")!.isRightToLeft)
        XCTAssertFalse(LanguageTag("zh-Hant")!.isRightToLeft)
    }

    /// (preferences, available, development, expected chain)
    let cases: [([String], [String], String?, [String])] = [
        // Exact and case-insensitive.
        (["en"], ["en", "fr"], nil, ["en"]),
        (["fr"], ["en", "fr"], "en", ["fr", "en"]),
        (["FR-fr"], ["fr-FR", "fr"], nil, ["fr-FR", "fr"]),
        (["pt-BR"], ["pt", "pt-BR", "pt-PT"], nil, ["pt-BR", "pt"]),
        (["pt-PT"], ["pt", "pt-BR", "pt-PT"], nil, ["pt-PT", "pt"]),
        // Chinese: script-aware, Traditional never falls to Simplified.
        (["zh-TW"], ["zh-Hans", "zh-Hant", "en"], "en", ["zh-Hant", "en"]),
        (["zh-HK"], ["zh-Hans", "zh-Hant", "en"], "en", ["zh-Hant", "en"]),
        (["zh-MO"], ["zh-Hans", "zh-Hant", "en"], "en", ["zh-Hant", "en"]),
        (["zh-MO"], ["zh-Hans", "zh-Hant", "zh-HK"], nil, ["zh-HK", "zh-Hant"]),
        (["zh-CN"], ["zh-Hans", "zh-Hant", "en"], "en", ["zh-Hans", "en"]),
        (["zh-SG"], ["zh-Hans", "zh-Hant", "en"], "en", ["zh-Hans", "en"]),
        (["zh"], ["zh-Hans", "zh-Hant", "en"], "en", ["zh-Hans", "en"]),
        (["zh-Hans-CN"], ["zh-Hans", "zh-Hant"], nil, ["zh-Hans"]),
        (["zh-Hant-TW"], ["zh-Hans", "zh-Hant"], nil, ["zh-Hant"]),
        (["zh-TW"], ["zh-Hans", "en"], "en", ["en"]),
        (["zh-HK"], ["zh_CN", "zh_TW", "en"], "en", ["zh_TW", "en"]),
        (["zh-Hans"], ["zh_CN", "zh_TW"], nil, ["zh_CN"]),
        (["zh-Hant"], ["zh-TW", "zh-HK"], nil, ["zh-TW"]),
        // CLDR parents.
        (["en-IN"], ["en", "en-GB"], nil, ["en-GB", "en"]),
        (["en-AU"], ["en", "en-GB"], nil, ["en-GB", "en"]),
        (["en-AU"], ["en-AU", "en-GB", "en"], nil, ["en-AU", "en"]),
        (["en-IN"], ["en"], nil, ["en"]),
        (["es-MX"], ["es", "es-419"], nil, ["es-419", "es"]),
        (["es-AR"], ["es", "es-419"], nil, ["es-419", "es"]),
        (["es-ES"], ["es", "es-419"], nil, ["es"]),
        (["es-AR"], ["es", "es-MX"], nil, ["es-MX", "es"]),
        // More generic.
        (["en-GB"], ["en", "fr"], nil, ["en"]),
        (["en-US"], ["en", "en-GB"], nil, ["en"]),
        (["fr-CA"], ["fr", "en"], "en", ["fr", "en"]),
        (["de-AT"], ["de", "en"], "en", ["de", "en"]),
        (["sr-Latn-RS"], ["sr", "sr-Latn"], nil, ["sr-Latn"]),
        (["sr-RS"], ["sr", "sr-Latn"], nil, ["sr"]),
        // More specific when that is all there is.
        (["en"], ["en-GB", "fr"], nil, ["en-GB"]),
        (["pt"], ["pt-BR", "pt-PT"], nil, ["pt-BR"]),
        // Preferences in order; the first that matches decides.
        (["ja", "fr", "en"], ["en", "fr"], "en", ["fr", "en"]),
        (["ja", "ko"], ["en", "fr"], "en", ["en"]),
        (["xx", "de"], ["de", "en"], "en", ["de", "en"]),
        // Legacy names on disk.
        (["en"], ["English", "French"], nil, ["English"]),
        (["fr-CA"], ["English", "French"], "English", ["French", "English"]),
        (["ja-JP"], ["Japanese", "English"], "English", ["Japanese", "English"]),
        (["zh-TW"], ["Traditional Chinese", "English"], nil, ["Traditional Chinese"]),
        // Base is not a language; development comes last, present or not.
        (["fr"], ["Base", "en"], "en", ["en"]),
        (["fr"], ["Base"], "en", ["en"]),
        ([], ["en", "de"], "de", ["de"]),
        (["he"], ["iw", "en"], nil, ["iw"]),
        (["nb"], ["no", "en"], nil, ["no"]),
        // Siblings: the base language first, then the language's likely region, never alphabetical first.
        (["fr-CH"], ["fr-CA", "fr-FR", "en"], "en", ["fr-FR", "en"]),
        (["de-CH"], ["de-AT", "de-DE", "en"], "en", ["de-DE", "en"]),
        (["de-CH"], ["de-AT", "de", "de-DE"], nil, ["de"]),
        (["fr-BE"], ["fr-CA", "fr", "fr-FR"], nil, ["fr"]),
        (["pt-AO"], ["pt-BR", "pt-PT"], nil, ["pt-PT"]),
    ]

    /// A legacy `English.lproj` is the development `en` of an old bundle.
    func testALegacyEnglishIsTheDevelopmentLocalization() {
        XCTAssertEqual(BundleLookup.defaultDevelopment(available: ["Japanese", "English"]), "English")
        XCTAssertEqual(BundleLookup.defaultDevelopment(available: ["en", "English"]), "en")
        let bundle = LocalizedBundle(path: "/b", tables: ["Japanese": ["Localizable": Table(strings: ["a": "エー"])],
                                                         "English": ["Localizable": Table(strings: ["a": "A", "b": "B"])]])
        let found = BundleLookup(key: "b", table: nil, in: bundle, preferences: ["ja"], developmentFallback: true)
        XCTAssertEqual(found.searchList, ["Japanese", "English"])
        XCTAssertEqual(found.resolution.text, "B", "--fallback from Japanese.lproj reaches English.lproj")
    }

    func testMatchingTable() {
        XCTAssertGreaterThanOrEqual(cases.count, 40)
        for (preferences, available, development, expected) in cases {
            XCTAssertEqual(LanguageMatcher.match(preferences: preferences, available: available, development: development), expected,
                           "prefer \(preferences) from \(available) dev \(development ?? "-")")
        }
    }
}
