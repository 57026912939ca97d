/// Chooses localizations for a list of preferred languages the way Apple's
/// bundles do: `LocalizationsToUse` (Apple's `ualoc_localizationsToUse`)
/// picks the best localization for the first preference that matches any,
/// then its fallbacks on Apple's parent chain (`en-AU` → `en-GB` → `en`,
/// `es-MX` → `es-419` → `es`, `zh-HK` → `zh-Hant`; never a sibling region:
/// `es-CL` with `es` and `es-AR` gets `es`); the development localization
/// ends the chain. Two rules of lprojd's own come first: `Base` is never
/// chosen (it is searched by table lookup), and a pseudolanguage is chosen
/// only by its exact name.
public enum LanguageMatcher {
    /// The chosen localizations, best first, as named in `available`.
    /// `excluding` leaves localizations out of matching (an `Accept-Language`
    /// range with `q=0`); the development localization still ends the chain.
    public static func match(preferences: [String], available: [String], development: String? = nil,
                             excluding excluded: (String) -> Bool = { _ in false }) -> [String] {
        // A pseudolanguage is matched by its exact name only (`Pseudolanguage`), never as a language's sibling.
        let candidates = available.filter { name in
            guard let tag = LanguageTag(name) else { return false }
            return !tag.isBase && !excluded(name) && Pseudolanguage(tag: name) == nil
        }
        var considered: [String] = []
        var chain: [String] = []
        for preference in preferences {
            guard let tag = LanguageTag(preference), !tag.isBase else { continue }
            if let pseudo = Pseudolanguage(tag: preference), let name = available.first(where: { Pseudolanguage(tag: $0) == pseudo }), !excluded(name) {
                // An earlier preference that matches comes first; otherwise the pseudolanguage.
                chain = LocalizationsToUse.choose(preferences: considered, available: candidates)
                if chain.isEmpty { chain = [name] }
                considered = []
                break
            }
            considered.append(preference)
        }
        if !considered.isEmpty { chain = LocalizationsToUse.choose(preferences: considered, available: candidates) }
        if let development, !chain.contains(development) {
            let developmentTag = LanguageTag(development)
            if let existing = candidates.first(where: { LanguageTag($0) == developmentTag }) {
                if !chain.contains(existing) { chain.append(existing) }
            } else {
                chain.append(development)
            }
        }
        return chain
    }
}
