import LprojLanguages
import LprojTables

/// A key looked up in a bundle for a list of preferred languages, the way an
/// app does it: the preferences matched against the bundle's localizations,
/// the search list built (chosen, `Base`, development), then the table
/// resolved through it. `lprojctl get` and the daemon's `lookup` share it.
public struct BundleLookup: Sendable {
    /// The localizations the preferences chose, best first, as searched (with `Base` and development).
    public let searchList: [String]
    /// The development localization used.
    public let development: String?
    /// How the key resolved.
    public let resolution: Resolution

    /// Looks `key` up in `bundle`. `development` defaults to the bundle's own (`DevelopmentLocalization`).
    public init(key: String, table: String?, in bundle: LocalizedBundle, preferences: [String], development: String? = nil,
                defaultValue: String? = nil, developmentFallback: Bool = false) {
        let development = development ?? DevelopmentLocalization.of(bundle)
        // A pseudolanguage asked for by name is derived from the development table, the one table the lookup reads.
        let pseudolanguages = development.map { bundle.tables[$0] != nil } == true
            ? preferences.compactMap(Pseudolanguage.init(tag:)).filter { bundle.tables[$0.rawValue] == nil } : []
        searchList = SearchPlan(preferences: preferences, available: bundle.localizations + pseudolanguages.map(\.rawValue),
                                development: development).searchList
        self.development = development
        resolution = Resolver.resolve(key: key, table: table, defaultValue: defaultValue, searchList: searchList,
                                      development: development, developmentFallback: developmentFallback) { name, localization in
            if let pseudo = pseudolanguages.first(where: { $0.rawValue == localization }) {
                return development.flatMap { bundle.table(name, localization: $0) }.map(pseudo.table)
            }
            return bundle.table(name, localization: localization)
        }
    }

    /// The localization the text came from, nil for a miss.
    public var localization: String? {
        switch resolution.source {
        case .table(let localization), .developmentFallback(let localization): return localization
        case .defaultValue, .key: return nil
        }
    }

    /// The language to format the text in: where it came from, else the first choice.
    public var formattingLanguage: String {
        let language = localization ?? searchList.first ?? development ?? "en"
        return LanguageTag(language)?.identifier ?? "en"
    }

    /// `table`, `development-fallback`, `default` or `key`, as on the wire and in `lprojctl get --json`.
    public var sourceName: String {
        switch resolution.source {
        case .table: return "table"
        case .developmentFallback: return "development-fallback"
        case .defaultValue: return "default"
        case .key: return "key"
        }
    }
}
