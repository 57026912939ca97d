import LprojBundles
import LprojPaths
import LprojTables
import Synchronization

/// The search plans a bundle's views were made with, by the preferences (or
/// the `Accept-Language` header) they were made from, for one set of
/// localizations and one development language. Snapshots pass it on while
/// both stay the same — a save changes a table, not which languages match —
/// so a snapshot made for a save does not match every language again.
final class SearchPlanCache: Sendable {
    /// The localizations and development language every plan here was made for.
    let localizations: Set<String>
    let development: String?
    private let plans = Mutex<[ExactName: Planned]>([:])

    /// A plan, and whether its preferences name a pseudolanguage the bundle
    /// does not have (derived from the development tables for every view).
    struct Planned: Sendable {
        var plan: SearchPlan
        var asksForPseudolanguages: Bool
    }

    init(localizations: Set<String>, development: String?) {
        self.localizations = localizations
        self.development = development
    }

    /// This cache when its plans hold for `localizations` and `development`, else an empty one for them.
    func reused(for localizations: Set<String>, development: String?) -> SearchPlanCache {
        localizations == self.localizations && development == self.development
            ? self : SearchPlanCache(localizations: localizations, development: development)
    }

    /// The plan made for the view keyed `key` (`RequestViews`' keys) before,
    /// else `make`'s (kept; past `LiveSnapshot.viewLimit` plans the cache starts over).
    func plan(for key: String, make: () -> Planned) -> Planned {
        let key = ExactName(key)
        if let plan = plans.withLock({ $0[key] }) { return plan }
        let made = make()
        plans.withLock { plans in
            if plans.count >= LiveSnapshot.viewLimit { plans.removeAll(keepingCapacity: true) }
            plans[key] = made
        }
        return made
    }
}
