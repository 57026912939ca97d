/// The user's preferred languages on Linux, read from the environment the
/// way gettext reads it.
public enum SystemLanguages {
    /// `LANGUAGE` (a colon-separated list) first, then the locale of
    /// messages: the first set of `LC_ALL`, `LC_MESSAGES`, `LANG`.
    /// `zh_TW.UTF-8` → `zh-TW`. As in gettext, a `C` or `POSIX` (or unset)
    /// locale means no preference at all, and `LANGUAGE` is then ignored.
    public static func preferences(environment: [String: String]) -> [String] {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        guard let locale, !isPOSIX(locale) else { return [] }
        var result: [String] = []
        let listed = (environment["LANGUAGE"] ?? "").split(separator: ":").map(String.init)
        for name in listed + [locale] where !isPOSIX(name) {
            if let tag = LanguageTag(name), !tag.isBase, !result.contains(tag.identifier) { result.append(tag.identifier) }
        }
        return result
    }

    /// Where `preferences(environment:)` came from, for people: the
    /// variables read, and `LANGUAGE` ignored when the locale is `C`.
    public static func origin(environment: [String: String]) -> String {
        let variable = ["LC_ALL", "LC_MESSAGES", "LANG"].first { !(environment[$0] ?? "").isEmpty }
        let locale = variable.map { "\($0)=\(environment[$0]!)" } ?? "no LC_ALL, LC_MESSAGES or LANG"
        let language = environment["LANGUAGE"].flatMap { $0.isEmpty ? nil : $0 }
        if variable == nil || isPOSIX(environment[variable!]!) {
            return language.map { "none: LANGUAGE=\($0) is ignored with \(locale), as gettext does (set LANG)" } ?? "none (\(locale))"
        }
        return "from " + ([language.map { "LANGUAGE=\($0)" }, locale].compactMap { $0 }).joined(separator: ", ")
    }

    private static func isPOSIX(_ locale: String) -> Bool {
        let name = locale.split(whereSeparator: { $0 == "." || $0 == "@" }).first.map(String.init) ?? ""
        return name == "C" || name == "POSIX" || name.isEmpty
    }
}
