import LprojLanguages
import LprojPaths
import LprojTables

/// Preferences turned into the localizations a lookup searches, best
/// first: the one rule every lookup follows — the daemon's `lookup`,
/// `lprojctl get` and `match`, and `LiveBundle`'s views. Matching
/// (`LanguageMatcher`: Apple's rule, a pseudolanguage only by its name)
/// chooses; the search list then takes `Base` (when the bundle has it) and
/// the development localization last. The localizations are compared in
/// byte order, so a tie between two of them goes the same way in every
/// process, whatever order a directory listed them in.
public struct SearchPlan: Sendable, Equatable {
    /// What matching chose, best first (development last).
    public let chain: [String]
    /// The chain, then `Base` when available, then the development localization.
    public let searchList: [String]

    /// The plan for `preferences` among `available`; `excluding` leaves
    /// localizations out of matching (an `Accept-Language` range with `q=0`).
    public init(preferences: [String], available: [String], development: String?, excluding: (String) -> Bool = { _ in false }) {
        let available = available.sorted { PathBytes.precedes($0, $1) }
        chain = LanguageMatcher.match(preferences: preferences, available: available, development: development, excluding: excluding)
        searchList = Resolver.searchList(chain: chain, development: development, hasBase: available.contains("Base"))
    }
}
