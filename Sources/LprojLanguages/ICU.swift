import CICUShim

/// Swift face of the C shim over the system ICU.
enum ICU {
    /// "zh-TW" → "zh-Hant-TW".
    static func maximize(_ tag: String) -> String? { call(tag, lproj_icu_maximize) }

    /// "zh-Hant-TW" → "zh-TW".
    static func minimize(_ tag: String) -> String? { call(tag, lproj_icu_minimize) }

    /// ICU's language alias of an ICU locale ID ("iw" → "he", "sh_BA" → "sr_Latn_BA"); nil when it has none.
    static func languageAlias(_ id: String) -> String? { call(id, lproj_icu_language_alias) }

    /// CLDR's parentLocales as ICU ships them, child → parent, in ICU locale IDs (`en_IN` → `en_001`).
    static let parentLocales: [String: String] = {
        var buffer = [CChar](repeating: 0, count: 1 << 16)
        let length = buffer.withUnsafeMutableBufferPointer { lproj_icu_parent_locales($0.baseAddress!, Int32($0.count)) }
        guard length > 0 else { return [:] }
        var parents: [String: String] = [:]
        let text = String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        for group in text.split(separator: ";") {
            let parts = group.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            for child in parts[1].split(separator: " ") { parents[String(child)] = String(parts[0]) }
        }
        return parents
    }()

    /// The plural category name of `number` in `tag`'s language.
    static func pluralCategory(_ tag: String, _ number: Double, fractionDigits: Int?) -> String? {
        call(tag) { tag, out, capacity in
            lproj_icu_plural_category(tag, number, Int32(fractionDigits ?? -1), out, capacity)
        }
    }

    /// The plural categories CLDR gives `tag`'s language ("one few many other" for ru).
    static func pluralCategories(_ tag: String) -> [String]? {
        call(tag, lproj_icu_plural_keywords)?.split(separator: " ").map(String.init)
    }

    static func isRightToLeft(_ tag: String) -> Bool {
        lproj_icu_is_right_to_left(tag) == 1
    }

    private static func call(_ tag: String, _ function: (UnsafePointer<CChar>, UnsafeMutablePointer<CChar>, Int32) -> Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 160)
        let length = buffer.withUnsafeMutableBufferPointer { out in
            tag.withCString { function($0, out.baseAddress!, Int32(out.count)) }
        }
        guard length >= 0 else { return nil }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
