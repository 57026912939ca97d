/// Chooses localizations for a list of preferred languages the way Apple's
/// bundles do, with ICU's likely-subtags and parent-locale data:
///
/// 1. the same language, script and region (`zh-TW` finds `zh_TW` or `zh-Hant-TW`);
/// 2. up the CLDR parent chain, script-aware: `zh-HK` → `zh-Hant` (never
///    `zh-Hans`: Traditional Chinese does not fall back to Simplified),
///    `en-IN` → `en-001` → `en`, `es-MX` → `es-419` → `es`, `fr-CA` → `fr`;
///    where a macro-region parent (`en-001`) has no localization, one of its
///    children stands for it (`en-GB` for `en-IN` and `en-AU`);
/// 3. any localization of the same language and script (`en` finds `en-GB`);
///
/// trying each preference in order; the first that matches decides. The
/// result is that localization, then its more generic ancestors that exist
/// (`en-GB` → `en`), then the development localization — the fallback chain.
public enum LanguageMatcher {
    /// The chosen localizations, best first, as named in `available`
    /// (`Base` is never chosen: it is searched by table lookup, not matched).
    /// `excluding` leaves localizations out of matching (an `Accept-Language`
    /// range with `q=0`); the development localization still ends the chain.
    public static func match(preferences: [String], available: [String], development: String? = nil,
                             excluding excluded: (String) -> Bool = { _ in false }) -> [String] {
        // A pseudolanguage is matched by its exact name only (`Pseudolanguage`), never as a language's sibling.
        let candidates = available.compactMap { name in LanguageTag(name).map { (name, $0) } }
            .filter { !$0.1.isBase && !excluded($0.0) && Pseudolanguage(tag: $0.0) == nil }
        let forms = candidates.map { (name: $0.0, tag: $0.1, form: MatchForm($0.1)) }
        var chain: [String] = []
        for preference in preferences {
            guard let tag = LanguageTag(preference), !tag.isBase else { continue }
            if let pseudo = Pseudolanguage(tag: preference), let name = available.first(where: { Pseudolanguage(tag: $0) == pseudo }), !excluded(name) {
                chain.append(name)
                break
            }
            guard let chosen = bestMatch(for: MatchForm(tag), among: forms) else { continue }
            chain.append(chosen.name)
            // More generic localizations that exist, up the parent chain.
            for ancestor in chosen.form.ancestors() {
                for candidate in forms where candidate.form.key == ancestor.key && !chain.contains(candidate.name) {
                    chain.append(candidate.name)
                }
            }
            break
        }
        if let development, !chain.contains(development) {
            let developmentTag = LanguageTag(development)
            if let existing = forms.first(where: { $0.tag == developmentTag }) {
                if !chain.contains(existing.name) { chain.append(existing.name) }
            } else {
                chain.append(development)
            }
        }
        return chain
    }

    private typealias Candidate = (name: String, tag: LanguageTag, form: MatchForm)

    private static func bestMatch(for preference: MatchForm, among candidates: [Candidate]) -> Candidate? {
        if let exact = candidates.first(where: { $0.form.key == preference.key }) { return exact }
        for ancestor in preference.ancestors() {
            if let found = candidates.first(where: { $0.form.key == ancestor.key }) { return found }
            // A macro-region (en-001, es-419) stands for its children: take one.
            if ancestor.isMacroRegion {
                let children = candidates.filter { $0.form.parent()?.key == ancestor.key }
                let preferred = children.first { $0.form.key == ancestor.representative } ?? children.min { $0.name < $1.name }
                if let preferred { return preferred }
            }
        }
        // Siblings: the base language when present, then the language's own
        // likely region (fr-CH finds fr-FR before fr-CA; de-CH, de-DE before
        // de-AT), then the tag's, then the first by name.
        let sameScript = candidates.filter { $0.form.language == preference.language && $0.form.script == preference.script }
        return sameScript.first { $0.form.region == preference.region }
            ?? sameScript.first { $0.form.region == nil }
            ?? sameScript.first { $0.form.region == preference.languageLikelyRegion }
            ?? sameScript.first { $0.form.region == preference.likelyRegion }
            ?? sameScript.min { $0.name < $1.name }
    }
}

/// A tag in the form matching compares: language, the script only where it
/// is not the language's default (`zh-Hant`, `sr-Latn`; not `zh-Hans`,
/// `en-Latn`), and the region only where the tag has one.
struct MatchForm: Equatable {
    let language: String
    /// The full script (for same-script comparisons), always set when ICU knows it.
    let script: String?
    let region: String?
    /// The region likely subtags give (`zh-Hant` → TW, `fr-CH` → CH).
    let likelyRegion: String?
    /// The region likely subtags give the language and script alone (`fr` → FR, `zh-Hant` → TW).
    let languageLikelyRegion: String?
    /// The canonical comparison key, e.g. `zh-Hant-HK`, `en-GB`, `zh`.
    let key: String

    init(_ tag: LanguageTag) {
        let maximized = tag.maximized
        let defaultScript = LanguageTag(tag.language)?.maximized.script
        language = tag.language
        script = maximized.script ?? tag.script
        region = tag.region
        likelyRegion = maximized.region
        languageLikelyRegion = LanguageTag([tag.language, maximized.script].compactMap { $0 }.joined(separator: "-"))?.maximized.region
        let shownScript = script != nil && script != defaultScript ? script : nil
        key = ([language] + [shownScript, region].compactMap { $0 }).joined(separator: "-")
    }

    /// Macro-regions such as 001 (world) and 419 (Latin America).
    var isMacroRegion: Bool { region.map { $0.allSatisfy(\.isNumber) } ?? false }

    /// The child that stands for a macro-region when it has no localization of its own.
    var representative: String? {
        switch key {
        case "en-001", "en-150": return "en-GB"
        case "es-419": return "es-MX"
        default: return nil
        }
    }

    /// The CLDR parent, in match form; nil at the root.
    func parent() -> MatchForm? {
        guard let parent = ICU.parent(key).flatMap(LanguageTag.init) else { return nil }
        let form = MatchForm(parent)
        return form.key == key ? nil : form
    }

    /// Parents up to the root, nearest first.
    func ancestors() -> [MatchForm] {
        var result: [MatchForm] = []
        var current = self
        while let parent = current.parent(), result.count < 8, !result.contains(parent) {
            result.append(parent)
            current = parent
        }
        return result
    }
}
