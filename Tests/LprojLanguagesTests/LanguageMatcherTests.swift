@testable import LprojLanguages
import LprojTables
import XCTest

final class LanguageMatcherTests: XCTestCase {
    func testICUData() {
        XCTAssertEqual(ICU.parentLocales["en_IN"], "en_001")
        XCTAssertEqual(ICU.parentLocales["es_MX"], "es_419")
        XCTAssertEqual(ICU.parentLocales["zh_Hant"], "root")
        XCTAssertEqual(ICU.languageAlias("iw"), "he")
        XCTAssertEqual(ICU.languageAlias("iw_IL"), "he_IL", "the region kept when the language alone is replaced")
        XCTAssertNil(ICU.languageAlias("fr"))
        XCTAssertEqual(ICU.maximize("zh-TW"), "zh-Hant-TW")
        XCTAssertEqual(ICU.maximize("zh"), "zh-Hans-CN")
    }

    /// The parent chains the matching compares, Apple's parents first.
    func testParentChains() {
        func chain(_ name: String, penalizing: Bool = false) -> [String] {
            LocalizationsToUse.Locale(name).chain(penalizingRegion: penalizing)
        }
        XCTAssertEqual(chain("en-IN"), ["en_IN", "en_GB", "en_001", "en"])
        XCTAssertEqual(chain("en-FR"), ["en_FR", "en_150", "en_GB", "en_001", "en"])
        XCTAssertEqual(chain("en-CA"), ["en_CA", "en_001", "en"])
        XCTAssertEqual(chain("es-CL"), ["es_CL", "es_419", "es"])
        XCTAssertEqual(chain("es-AR", penalizing: true), ["es_AR", "es_AR", "es_419", "es"], "not es's default region: one step further")
        XCTAssertEqual(chain("es-MX", penalizing: true), ["es_MX", "es_419", "es"], "es-MX is never penalized")
        XCTAssertEqual(chain("fr-FR", penalizing: true), ["fr_FR", "fr"], "fr's default region")
        XCTAssertEqual(chain("zh-HK"), ["zh_Hant_HK", "zh_HK", "zh_Hant", "zh_TW"], "never zh, which is Simplified")
        XCTAssertEqual(chain("zh-Hant-MO"), ["zh_Hant_MO", "zh_Hant_HK", "zh_HK", "zh_Hant", "zh_TW"], "CLDR's Macao → Hong Kong, then Apple's")
        XCTAssertEqual(chain("pt-AO"), ["pt_AO", "pt_PT", "pt"])
        XCTAssertEqual(chain("English"), ["en"])
        XCTAssertEqual(LocalizationsToUse.Locale("English").base, "english")
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
        (["en-AU"], ["en-AU", "en-GB", "en"], nil, ["en-AU", "en-GB", "en"]),
        (["en-IN"], ["en"], nil, ["en"]),
        (["es-MX"], ["es", "es-419"], nil, ["es-419", "es"]),
        (["es-AR"], ["es", "es-419"], nil, ["es-419", "es"]),
        (["es-ES"], ["es", "es-419"], nil, ["es"]),
        (["es-AR"], ["es", "es-MX"], nil, ["es"]),
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

    /// Apple's own examples (`ualoc_localizationsToUse`, as CFBundle uses it): the same best match and the same list.
    let appleCases: [([String], [String], [String])] = [
        // A sibling region is never chosen over the language: es-CL and es-AR share es-419, not each other.
        (["es-CL"], ["es", "es-AR"], ["es"]),
        (["es-AR"], ["es", "es-MX"], ["es"]),
        (["es-AR"], ["es-419", "es-MX", "es"], ["es-419", "es"]),
        (["es-MX"], ["es", "es-419", "es-MX"], ["es-MX", "es-419", "es"]),
        // English: en-001 is the parent of most, en-GB Apple's own parent of the Commonwealth's.
        (["en-CA"], ["en", "en-GB", "en-001"], ["en-001", "en"]),
        (["en-IN"], ["en", "en-GB", "en-001"], ["en-GB", "en-001", "en"]),
        (["en-IN"], ["en", "en-001"], ["en-001", "en"]),
        (["en-FR"], ["en", "en-GB"], ["en-GB", "en"]),
        (["en-FR"], ["en", "en-150", "en-GB"], ["en-150", "en-GB", "en"]),
        (["en-IL"], ["en", "en-GB"], ["en"]),
        (["en-NZ"], ["en", "en-AU", "en-GB"], ["en-AU", "en-GB", "en"]),
        (["en-AU"], ["en-AU", "en-GB", "en"], ["en-AU", "en-GB", "en"]),
        (["en-US"], ["en-GB", "en"], ["en"]),
        // Chinese: Macao falls back to Hong Kong, Hong Kong to Traditional, Traditional to Taiwan; never to Simplified.
        (["zh-Hant-MO"], ["zh-Hant", "zh-Hant-HK"], ["zh-Hant-HK", "zh-Hant"]),
        (["zh-HK"], ["zh-Hans", "zh-TW"], ["zh-TW"]),
        (["zh-Hant-HK"], ["zh-Hant-HK", "zh-Hant-TW"], ["zh-Hant-HK", "zh-Hant-TW"]),
        (["zh-Hant-HK"], ["zh-Hant-HK", "zh-Hant-TW", "zh-Hant"], ["zh-Hant-HK", "zh-Hant"]),
        (["yue-Hant"], ["zh-Hans", "zh-Hant", "zh-HK"], ["zh-HK", "zh-Hant"]),
        // A later preference of the same language that matches exactly takes over a near match with a region.
        (["fr-CH", "fr-CA"], ["fr-FR", "fr-CA"], ["fr-CA"]),
        // The language's default region first among regions.
        (["it"], ["it-CH", "it-IT"], ["it-IT"]),
        // Brazilian Portuguese for European only when nothing else matches.
        (["pt-PT", "fr"], ["pt-BR", "fr"], ["fr"]),
        (["pt-PT"], ["pt-BR", "de"], ["pt-BR"]),
        (["pt-AO"], ["pt", "pt-PT", "pt-BR"], ["pt-PT", "pt"]),
        // Nothing matches: "no linguistic content" if the bundle has it.
        (["ja"], ["fr", "zxx"], ["zxx"]),
        (["ja"], ["fr"], []),
        // Norwegian: nb, nn and no are one group.
        (["nn"], ["nb", "en"], ["nb"]),
        // Names as written beat names as normalized; the other name of the same language follows.
        (["en"], ["English", "en"], ["en", "English"]),
    ]

    /// `ualoc.h`'s Chinese block, whole: six sets of lprojs, each preference's list in each.
    /// Two cells are left out because the header contradicts itself there: it gives `zh_HK` alone for
    /// `zh-HK` and `zh-MO` in `[zh_CN, zh_TW, zh_HK]`, but `zh_HK, zh_TW` for `zh-HK` in the same set
    /// with `zh_MO` added, which cannot change a `zh-HK` list; the rule gives `zh_HK, zh_TW` in both.
    func testUalocHeadersChineseExamples() {
        let sets = ["zh_CN zh_TW", "zh_CN zh_TW zh_HK", "zh_CN zh_TW zh_HK zh_MO", "zh_Hans zh_Hant zh_Hant_HK",
                    "zh_CN zh_TW zh_Hans zh_Hant", "zh_CN zh_TW zh_HK zh_Hans zh_Hant zh_Hant_HK"]
        let rows: [(String, [String?])] = [
            ("zh", ["zh_CN", "zh_CN", "zh_CN", "zh_Hans", "zh_Hans", "zh_Hans"]),
            ("zh-Hans", ["zh_CN", "zh_CN", "zh_CN", "zh_Hans", "zh_Hans", "zh_Hans"]),
            ("zh-Hant", ["zh_TW", "zh_TW", "zh_TW", "zh_Hant", "zh_Hant", "zh_Hant"]),
            ("zh-Hans-CN", ["zh_CN", "zh_CN", "zh_CN", "zh_Hans", "zh_CN zh_Hans", "zh_CN zh_Hans"]),
            ("zh-Hans-SG", ["zh_CN", "zh_CN", "zh_CN", "zh_Hans", "zh_Hans", "zh_Hans"]),
            ("zh-Hant-TW", ["zh_TW", "zh_TW", "zh_TW", "zh_Hant", "zh_TW zh_Hant", "zh_TW zh_Hant"]),
            ("zh-Hant-HK", ["zh_TW", "zh_HK zh_TW", "zh_HK zh_TW", "zh_Hant_HK zh_Hant", "zh_Hant", "zh_Hant_HK zh_Hant"]),
            ("zh-Hant-MO", ["zh_TW", "zh_HK zh_TW", "zh_MO zh_HK zh_TW", "zh_Hant_HK zh_Hant", "zh_Hant", "zh_Hant_HK zh_Hant"]),
            ("zh-Hans-HK", ["zh_CN", "zh_CN", "zh_CN", "zh_Hans", "zh_Hans", "zh_Hans"]),
            ("zh-CN", ["zh_CN", "zh_CN", "zh_CN", "zh_Hans", "zh_CN zh_Hans", "zh_CN zh_Hans"]),
            ("zh-SG", ["zh_CN", "zh_CN", "zh_CN", "zh_Hans", "zh_Hans", "zh_Hans"]),
            ("zh-TW", ["zh_TW", "zh_TW", "zh_TW", "zh_Hant", "zh_TW zh_Hant", "zh_TW zh_Hant"]),
            ("zh-HK", ["zh_TW", nil, "zh_HK zh_TW", "zh_Hant_HK zh_Hant", "zh_Hant", "zh_HK zh_Hant_HK zh_Hant"]),
            ("zh-MO", ["zh_TW", nil, "zh_MO zh_HK zh_TW", "zh_Hant_HK zh_Hant", "zh_Hant", "zh_Hant_HK zh_Hant"]),
        ]
        for (preference, lists) in rows {
            for (set, expected) in zip(sets, lists) {
                guard let expected else { continue }
                let available = set.split(separator: " ").map(String.init)
                XCTAssertEqual(LanguageMatcher.match(preferences: [preference], available: available).joined(separator: " "), expected,
                               "prefer \(preference) from \(set)")
            }
        }
    }

    func testApplesOwnMatching() {
        for (preferences, available, expected) in appleCases {
            XCTAssertEqual(LanguageMatcher.match(preferences: preferences, available: available), expected,
                           "prefer \(preferences) from \(available)")
        }
    }

    func testMatchingTable() {
        XCTAssertGreaterThanOrEqual(cases.count, 40)
        for (preferences, available, development, expected) in cases {
            XCTAssertEqual(LanguageMatcher.match(preferences: preferences, available: available, development: development), expected,
                           "prefer \(preferences) from \(available) dev \(development ?? "-")")
        }
    }
}
