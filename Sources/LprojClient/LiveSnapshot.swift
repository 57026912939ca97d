import Foundation
import LprojBundles
import LprojLanguages
import LprojPaths
import LprojTables
import Synchronization

/// Everything the bundle serves at one moment, frozen: the tables, the
/// selected language, the active view, and the views made for other
/// preferences while this state lasts. `LiveBundle` swaps whole
/// snapshots, so a reader sees one consistent state, never half of a change.
final class LiveSnapshot: Sendable {
    /// Tables by localization, each read when a view first needs it (materialized: a hit allocates nothing).
    let tables: [String: LocalizationTables]
    /// The language selected for the app (nil: follow the system).
    let selection: String?
    /// The preferences the active view was made from (the selection, else the environment's).
    let preferences: [String]
    /// The development localization asked for; `development` is what it means among these tables.
    let developmentChoice: DevelopmentChoice
    let development: String?
    let developmentFallback: Bool
    let bundlePath: String
    /// Where every view of this bundle records misses (nil: not recorded).
    let misses: LiveBundle.MissLog?
    /// The view of the selected (or system) language.
    let active: LiveBundle.Localization
    /// The views made, by the header (or preference list) asked with: each
    /// made once per state, whichever thread asks first (each thread then
    /// keeps a copy of its own, `HeldSnapshot`).
    private let viewsByKey = Mutex<[ExactName: LiveBundle.Localization]>([:])
    /// The views made, by search list: headers that come to the same chain
    /// share one view (1,000 headers, 20 views: what a request touches stays in cache).
    private let viewsBySearchList = Mutex<[ExactName: LiveBundle.Localization]>([:])
    /// The plans views were made with, shared with the snapshots before and after this one while the localizations are the same.
    private let plans: SearchPlanCache
    /// At most this many cached views (a hostile header cannot grow memory; past it the cache starts over).
    static let viewLimit = 1024

    init(tables: [String: LocalizationTables], selection: String?, systemPreferences: [String], development developmentChoice: DevelopmentChoice,
         developmentFallback: Bool, bundlePath: String, misses: LiveBundle.MissLog? = nil, plans: SearchPlanCache? = nil) {
        self.tables = tables
        self.selection = selection
        self.developmentFallback = developmentFallback
        self.bundlePath = bundlePath
        self.misses = misses
        let preferences = selection.map { [$0] } ?? systemPreferences
        self.preferences = preferences
        let localizations = Set(tables.keys)
        self.developmentChoice = developmentChoice
        let development = developmentChoice.localization(among: localizations.sorted())
        self.development = development
        let plans = plans?.reused(for: localizations, development: development)
            ?? SearchPlanCache(localizations: localizations, development: development)
        self.plans = plans
        active = Self.view(of: tables, preferences: preferences, excluding: nil, plan: plans, key: RequestViews.key(preferences: preferences),
                           development: development, developmentFallback: developmentFallback, bundlePath: bundlePath, misses: misses)
    }

    var searchList: [String] { active.searchList }
    var language: String? { active.language }
    var formatter: StringFormatter { active.formatter }

    /// The same tables with another selection.
    func selecting(_ selection: String?, systemPreferences: [String]) -> LiveSnapshot {
        LiveSnapshot(tables: tables, selection: selection, systemPreferences: systemPreferences, development: developmentChoice,
                     developmentFallback: developmentFallback, bundlePath: bundlePath, misses: misses, plans: plans)
    }

    /// The same selection with other tables.
    func replacing(tables: [String: LocalizationTables], systemPreferences: [String]) -> LiveSnapshot {
        LiveSnapshot(tables: tables, selection: selection, systemPreferences: systemPreferences, development: developmentChoice,
                     developmentFallback: developmentFallback, bundlePath: bundlePath, misses: misses, plans: plans)
    }

    /// The entry for `key` in the active view (see `Localization.entry`).
    @inline(__always)
    func entry(forKey key: String, table: String?) -> Entry? {
        active.entry(forKey: key, table: table)
    }

    /// The view kept for `key` (a header, or `RequestViews.key(preferences:)`), else `make`'s, kept.
    func view(forKey key: String, make: (LiveSnapshot, String) -> LiveBundle.Localization) -> LiveBundle.Localization {
        let name = ExactName(key)
        if let kept = viewsByKey.withLock({ $0[name] }) { return kept }
        let made = make(self, key)
        return viewsByKey.withLock { kept in
            if let first = kept[name] { return first }
            if kept.count >= Self.viewLimit { kept.removeAll(keepingCapacity: true) }
            kept[name] = made
            return made
        }
    }

    /// How many views are kept by key (for tests).
    var cachedViewCount: Int { viewsByKey.withLock { $0.count } }

    /// The view an `Accept-Language` header asks for (made here; kept by `view(forKey:make:)`).
    func view(acceptLanguage header: String) -> LiveBundle.Localization {
        let accepted = AcceptLanguage(header)
        return shared(Self.view(of: tables, preferences: accepted.preferences, excluding: accepted, plan: plans,
                                key: header, development: development,
                                developmentFallback: developmentFallback, bundlePath: bundlePath, misses: misses))
    }

    /// The view a list of preferences asks for (made here; kept by `view(forKey:make:)`).
    func view(preferences: [String]) -> LiveBundle.Localization {
        shared(Self.view(of: tables, preferences: preferences, excluding: nil, plan: plans, key: RequestViews.key(preferences: preferences),
                         development: development, developmentFallback: developmentFallback, bundlePath: bundlePath, misses: misses))
    }

    /// The view already made for the same search list, else `made`.
    private func shared(_ made: LiveBundle.Localization) -> LiveBundle.Localization {
        let chain = ExactName(made.searchList.joined(separator: "\u{0}"))
        return viewsBySearchList.withLock { shared in
            if let existing = shared[chain] { return existing }
            if shared.count >= Self.viewLimit { shared.removeAll(keepingCapacity: true) }
            shared[chain] = made
            return made
        }
    }

    /// The view `preferences` ask for (its plan `plans`' for `key`, made if none is kept); the localizations it searches are
    /// read now if no view needed them before.
    private static func view(of tables: [String: LocalizationTables], preferences: [String], excluding: AcceptLanguage?, plan plans: SearchPlanCache,
                             key: String, development: String?, developmentFallback: Bool, bundlePath: String,
                             misses: LiveBundle.MissLog?) -> LiveBundle.Localization {
        // A pseudolanguage asked for by name is derived from the development tables of this snapshot: it follows every edit.
        var needed: [String: [String: Table]] = [:]
        func derivePseudolanguages() {
            if let development, let source = tables[development] {
                needed = Pseudolanguage.adding(for: preferences, to: [development: source.tables], development: development)
            }
        }
        let planned = plans.plan(for: key) {
            let asks = preferences.contains { Pseudolanguage(tag: $0) != nil && tables[$0] == nil }
            if asks { derivePseudolanguages() }
            let plan = SearchPlan(preferences: preferences, available: Array(Set(tables.keys).union(needed.keys)), development: development) {
                excluding?.excludes($0) ?? false
            }
            return SearchPlanCache.Planned(plan: plan, asksForPseudolanguages: asks)
        }
        if planned.asksForPseudolanguages, needed.isEmpty { derivePseudolanguages() }
        let plan = planned.plan
        let chain = plan.searchList + (developmentFallback ? development.map { [$0] } ?? [] : [])
        LocalizationTables.read(chain.compactMap { needed[$0] == nil ? tables[$0] : nil })
        for localization in chain where needed[localization] == nil { needed[localization] = tables[localization]?.tables }
        // The table each name resolves to (the first localization of the chain that has it) is looked up: it is materialized.
        var resolved: [String: String] = [:]
        for localization in plan.searchList.reversed() { for name in (needed[localization] ?? [:]).keys { resolved[name] = localization } }
        for (name, localization) in resolved {
            if let made = tables[localization]?.materialized(name) { needed[localization]?[name] = made }
        }
        if developmentFallback, let development, let fallback = tables[development] {
            for name in (needed[development] ?? [:]).keys { needed[development]?[name] = fallback.materialized(name) }
        }
        return LiveBundle.Localization(tables: needed, searchList: plan.searchList, development: development,
                                       developmentFallback: developmentFallback, bundlePath: bundlePath, misses: misses)
    }
}

/// The development localization a `LiveBundle` is given: one its caller
/// names, used as named, or the bundle's own (`DevelopmentLocalization`:
/// the region its Info.plist names, else `en_US`, each as Apple matches it
/// among the localizations the tables have now).
enum DevelopmentChoice: Sendable, Equatable {
    case named(String)
    case bundle(region: String?)

    func localization(among localizations: [String]) -> String? {
        switch self {
        case .named(let name): name
        case .bundle(let region): DevelopmentLocalization.choose(region: region, among: localizations)
        }
    }
}
