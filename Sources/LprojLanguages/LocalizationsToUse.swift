/// Apple's choice of localizations for a list of preferred languages:
/// `ualoc_localizationsToUse` in Apple's ICU (`ualoc.cpp`), which CFBundle
/// calls, rule for rule.
///
/// Each name is read three ways: its *base* (the name as written, case
/// made canonical: `English`, `zh_TW`), its *normalized* form (legacy names
/// and aliases replaced: `en`, `zh_Hant_TW`) and its *parent chain*
/// (Apple's own parents first — `en_IN` → `en_GB`, `zh_HK` → `zh_Hant`,
/// `zh_Hant` → `zh_TW` —, then CLDR's `parentLocales`, then truncation).
/// For the first preference that matches anything, each localization of
/// the same language group scores: -1 for the same base, 0 for the same
/// normalized form, else the smallest sum of the two positions at which
/// their chains meet (one more across languages, and one more for a
/// localization whose region is not its language's default). The lowest
/// score wins, the first listed on a tie — except that a name written in
/// full (`zh_Hant_HK`) wins a tie with its region alias (`zh_HK`), as
/// `ualoc.h`'s examples choose it for `zh-Hant-MO`. Then a better-matching
/// preference of the same language may take over (`[fr-CH, fr-CA]` with
/// `fr-FR` and `fr-CA` gives `fr-CA`), and the result is followed by every
/// localization on its chain (`en-AU` → `en-GB` → `en`). Two rules of
/// `ualoc.h`'s examples shape that list: a region alias (`zh_HK`) does not
/// follow its full form (`zh_Hant_HK`), though the full form follows the
/// alias; and Taiwan's Traditional Chinese follows Hong Kong's only where
/// there is no `zh_Hant`.
struct LocalizationsToUse {
    /// The localizations to use, as named in `available`, best first (empty when nothing matches).
    static func choose(preferences: [String], available: [String]) -> [String] {
        let preferred = preferences.map(Locale.init)
        let offered = available.map(Locale.init)
        var result: Int?
        var score = 999
        var portuguese: Int?
        for index in preferred.indices where result == nil {
            for candidate in offered.indices {
                if score > -1, preferred[index].base == offered[candidate].base {
                    (result, score) = (candidate, -1)
                } else if score > 0, preferred[index].normalized == offered[candidate].normalized {
                    (result, score) = (candidate, 0)
                } else if score > 0, preferred[index].languageGroup == offered[candidate].languageGroup {
                    let mine = preferred[index].chain(penalizingRegion: false)
                    let theirs = offered[candidate].chain(penalizingRegion: true)
                    for (i, a) in mine.enumerated() {
                        for (j, b) in theirs.enumerated() where a == b {
                            if preferred[index].normalized == "pt_PT", offered[candidate].normalized == "pt_BR" {
                                // Brazilian Portuguese for European only when nothing else matches.
                                portuguese = candidate
                                continue
                            }
                            let total = i + j + (preferred[index].language == offered[candidate].language ? 0 : 1)
                            if total < score || (total == score && offered[candidate].outranks(offered, result)) {
                                (result, score) = (candidate, total)
                            }
                        }
                    }
                }
            }
        }
        // A near match with a region gives way to an exact one of the same language further down the preferences (not for Chinese).
        if let chosen = result, score > 0, offered[chosen].hasRegion, offered[chosen].language != "zh" {
            search: for preference in preferred where preference.language == offered[chosen].language {
                for candidate in offered.indices
                    where preference.base == offered[candidate].base || preference.normalized == offered[candidate].normalized {
                    result = candidate
                    break search
                }
            }
        }
        guard let chosen = result ?? portuguese else {
            return available.contains("zxx") ? ["zxx"] : []
        }
        var chosenList = [available[chosen]]
        var previous: String?
        // Taiwan's Traditional Chinese follows Hong Kong's only where the bundle has no generic Traditional Chinese.
        let taiwanFollowsHongKong = !offered.contains { $0.normalized == "zh_Hant" }
        for link in offered[chosen].chain(penalizingRegion: true) {
            defer { previous = link }
            if link == previous { continue }
            let followers = offered.indices.filter { link == offered[$0].normalized }
                + (taiwanFollowsHongKong && link == "zh_Hant_HK" ? offered.indices.filter { offered[$0].normalized == "zh_Hant_TW" } : [])
            for candidate in followers where candidate != chosen && !offered[candidate].isAlias(ofFullName: offered[chosen]) {
                chosenList.append(available[candidate])
            }
        }
        return chosenList
    }

    /// One name, read the three ways the rule compares.
    struct Locale {
        let base: String
        let normalized: String
        let language: String
        let languageGroup: String
        var hasRegion: Bool { region(of: normalized) != nil }

        /// Whether this name is a region alias (`zh_HK`) of `other`, a localization written in full (`zh_Hant_HK`):
        /// the same localization, which Apple's lists give only when asked for by the alias.
        func isAlias(ofFullName other: Locale) -> Bool {
            normalized == other.normalized && Self.appleAliases[base] != nil && other.base == other.normalized
        }

        /// On a tie, a name written in full (`zh_Hant_HK`) is chosen over the region alias of the same localization (`zh_HK`).
        func outranks(_ offered: [Locale], _ current: Int?) -> Bool {
            guard let current else { return false }
            return offered[current].isAlias(ofFullName: self)
        }

        init(_ name: String) {
            base = Self.baseName(name)
            normalized = Self.normalize(base, name)
            language = String(normalized.prefix { $0 != "_" })
            languageGroup = Self.languageGroups[language] ?? language
        }

        /// The normalized form, then (for an offered localization whose
        /// region is not its language's default) the same again, then its
        /// parents up to the root: at most 10 entries.
        func chain(penalizingRegion: Bool) -> [String] {
            var chain = [normalized]
            if penalizingRegion, hasRegion, normalized != "es_MX", normalized != "zh_Hant_TW",
               let minimized = ICU.minimize(normalized.replacingUnderscores), region(of: minimized.replacingDashes) != nil {
                chain.append(normalized)
            }
            while chain.count < 10, let parent = Self.parent(of: chain.last!) {
                chain.append(parent)
            }
            return chain
        }

        /// Apple's parent, else CLDR's (`parentLocales`), else the name shortened by one part; nil at the root.
        static func parent(of locale: String) -> String? {
            let parent = appleParents[locale] ?? newerParents[locale] ?? ICU.parentLocales[locale] ?? truncated(locale)
            return parent == "root" || parent.isEmpty ? nil : parent
        }

        /// `uloc_getParent`: the last part dropped (`zh_Hant_TW` → `zh_Hant`, `en` → the root).
        static func truncated(_ locale: String) -> String {
            guard let underscore = locale.lastIndex(of: "_") else { return "" }
            return String(locale[..<underscore])
        }

        /// Parents CLDR gave after the version Debian's ICU carries (CLDR 42), which Apple's ICU has:
        /// Canadian English under en-001, and English of more of Europe under en-150.
        static let newerParents: [String: String] = {
            var parents = ["en_CA": "en_001"]
            for region in "CZ ES FR HU IT NO PL PT RO SK".split(separator: " ") { parents["en_\(region)"] = "en_150" }
            return parents
        }()

        /// `uloc_getBaseName`'s canonical case, without any other change: `English`, `zh_TW`, `zh_Hant`.
        static func baseName(_ name: String) -> String {
            var text = Substring(name)
            if text.hasSuffix(".lproj") { text = text.dropLast(6) }
            if let cut = text.firstIndex(where: { $0 == "." || $0 == "@" }) { text = text[..<cut] }
            let parts = text.split(whereSeparator: { $0 == "-" || $0 == "_" })
            return parts.enumerated().map { index, part in
                if index == 0 { return part.lowercased() }
                if part.count == 4, part.allSatisfy(\.isLetter) { return part.prefix(1).uppercased() + part.dropFirst().lowercased() }
                if part.count == 2 || (part.count == 3 && part.allSatisfy(\.isNumber)) { return part.uppercased() }
                return part.lowercased()
            }.joined(separator: "_")
        }

        /// Legacy names and aliases replaced: Apple's Chinese and Cantonese regions, the tag's own rules, ICU's language aliases.
        static func normalize(_ base: String, _ name: String) -> String {
            if let alias = appleAliases[base] { return alias }
            guard let tag = LanguageTag(name), !tag.isBase else { return base }
            let id = tag.identifier.replacingDashes
            if let alias = appleAliases[id] { return alias }
            return ICU.languageAlias(id) ?? id
        }

        /// Languages compared as one (`hi` because `hi_Latn` falls back to `en_IN`).
        static let languageGroups = ["ars": "ar", "hi": "en", "nb": "no", "nn": "no", "wuu": "zh", "yue": "zh"]

        /// Names whose region says the script (`zh_TW` is Traditional), and Norwegian's old name.
        static let appleAliases = [
            "zh_CN": "zh_Hans_CN", "zh_SG": "zh_Hans_SG", "zh_HK": "zh_Hant_HK", "zh_MO": "zh_Hant_MO", "zh_TW": "zh_Hant_TW",
            "yue_CN": "yue_Hans_CN", "yue_HK": "yue_Hant_HK", "no_NO": "nb_NO",
        ]

        /// Where Apple's localizations fall back differently from ICU's resources.
        static let appleParents: [String: String] = {
            var parents: [String: String] = [
                "ars": "ar", "en_150": "en_GB", "en_CY": "en_150", "en_GB": "en_001", "es_MX": "es_419",
                "wuu": "wuu_Hans", "wuu_Hans": "zh_Hans", "wuu_Hant": "zh_Hant",
                "yue": "yue_Hant", "yue_HK": "zh_Hant_HK", "yue_Hans": "zh_Hans", "yue_Hant": "yue_HK",
                "zh_HK": "zh_Hant", "zh_Hant": "zh_TW", "zh_Hant_HK": "zh_HK", "zh_TW": "root",
            ]
            // English of the Commonwealth falls back to British English, and of Oceania to Australian.
            let british = "AG AI AU BB BD BM BN BS BW BZ DG DM FJ FK GD GG GH GI GM GY HK IE IM IN IO JE JM KE KI KN KY LC LK LS MO MS MT MU "
                + "MV MW MY NA NG PK PN SB SC SD SG SH SL SS SZ TC TO TT TV TZ UG VC VG VU ZA ZM ZW"
            for region in british.split(separator: " ") { parents["en_\(region)"] = "en_GB" }
            for region in "CC CK CX NF NR NU NZ PG WS".split(separator: " ") { parents["en_\(region)"] = "en_AU" }
            return parents
        }()
    }
}

/// The region of an ICU locale ID (`zh_Hant_TW` → `TW`, `en_001` → `001`), if it has one.
private func region(of id: String) -> String? {
    let parts = id.split(separator: "_")
    for part in parts.dropFirst() where part.count == 2 || (part.count == 3 && part.allSatisfy(\.isNumber)) {
        return String(part)
    }
    return nil
}

private extension String {
    var replacingUnderscores: String { String(map { $0 == "_" ? "-" : $0 }) }
    var replacingDashes: String { String(map { $0 == "-" ? "_" : $0 }) }
}
