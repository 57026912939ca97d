import LprojLanguages
import LprojTables

/// How a key was looked up: each table tried, and where the text came from.
public struct Resolution: Hashable, Sendable {
    /// Where the result came from.
    public enum Source: Hashable, Sendable {
        /// The table of this localization held the key.
        case table(localization: String)
        /// Not in the chosen table; found in the development localization's (per-key fallback).
        case developmentFallback(localization: String)
        /// Not found: the caller's default value.
        case defaultValue
        /// Not found and no default: the key itself.
        case key
    }

    /// One table consulted: which localization, and whether it had the key.
    public struct Step: Hashable, Sendable {
        public var localization: String
        public var table: String
        public var found: Bool
    }

    public var key: String
    public var table: String
    /// The entry found; nil when the result is the default value or the key.
    public var entry: Entry?
    /// The text to show: a plain entry's, a rule's `other` form unformatted (`Resolver.shown`), or the fallback text.
    public var text: String
    public var source: Source
    public var steps: [Step]

    /// Whether the key was missing (the result is the default value or the key).
    public var isMiss: Bool {
        switch source {
        case .defaultValue, .key: return true
        case .table, .developmentFallback: return false
        }
    }
}

/// Looks keys up the way Apple's bundles do.
///
/// The table file is searched through the localization chain (the chosen
/// localizations, then `Base`, then the development localization): the
/// first localization that *has* the table answers, whether or not it has
/// the key. A missing key yields the caller's default value when it is not
/// empty, else the key itself — never an empty string. With
/// `developmentFallback`, a key missing from the chosen table is also looked
/// up in the development localization's table (an opt-in Apple does not offer).
public enum Resolver {
    /// The search list for lookups: the chain, with `Base` before the development localization.
    public static func searchList(chain: [String], development: String?, hasBase: Bool) -> [String] {
        var list = chain.filter { $0 != development }
        if hasBase { list.append("Base") }
        if let development { list.append(development) }
        var seen = Set<String>()
        return list.filter { seen.insert($0).inserted }
    }

    /// Apple's rule for which table answers a lookup: the first
    /// localization of `searchList` that has a table named `table`, whether
    /// or not it has the key; nil when none has it.
    public static func answeringLocalization(of table: String, searchList: [String], has: (_ localization: String) -> Bool) -> String? {
        searchList.first(where: has)
    }

    /// The table that answers for each table name `tables` has (the same
    /// rule, for every name at once: what a view resolves in advance).
    public static func answeringTables(searchList: [String], tables: [String: [String: Table]]) -> [String: Table] {
        var names = Set<String>()
        for localization in searchList { if let held = tables[localization] { names.formUnion(held.keys) } }
        var answering: [String: Table] = [:]
        for name in names {
            guard let localization = answeringLocalization(of: name, searchList: searchList, has: { tables[$0]?[name] != nil }) else { continue }
            answering[name] = tables[localization]![name]
        }
        return answering
    }

    public static func resolve(key: String, table: String?, defaultValue: String? = nil, searchList: [String],
                               development: String? = nil, developmentFallback: Bool = false,
                               tables: (_ table: String, _ localization: String) -> Table?) -> Resolution {
        let tableName = (table ?? "").isEmpty ? "Localizable" : table!
        var steps: [Resolution.Step] = []
        var answered = false
        if let localization = answeringLocalization(of: tableName, searchList: searchList, has: { tables(tableName, $0) != nil }),
           let found = tables(tableName, localization) {
            answered = true
            if let entry = found[key] {
                steps.append(.init(localization: localization, table: tableName, found: true))
                return Resolution(key: key, table: tableName, entry: entry, text: shown(entry, in: localization),
                                  source: .table(localization: localization), steps: steps)
            }
            steps.append(.init(localization: localization, table: tableName, found: false))
        }
        if developmentFallback, let development, answered, steps.last?.localization != development,
           let found = tables(tableName, development) {
            let entry = found[key]
            steps.append(.init(localization: development, table: tableName, found: entry != nil))
            if let entry {
                return Resolution(key: key, table: tableName, entry: entry, text: shown(entry, in: development),
                                  source: .developmentFallback(localization: development), steps: steps)
            }
        }
        if let defaultValue, !defaultValue.isEmpty {
            return Resolution(key: key, table: tableName, entry: nil, text: defaultValue, source: .defaultValue, steps: steps)
        }
        return Resolution(key: key, table: tableName, entry: nil, text: key, source: .key, steps: steps)
    }

    /// An entry's text shown without arguments: a plain string as it is, a rule (plural, device) as its `other`
    /// form, variables substituted and specifiers left in place — what a view's `localizedString(forKey:)` gives.
    package static func shown(_ entry: Entry, in localization: String) -> String {
        if let text = entry.text { return text }
        return StringFormatter.forLocalization(localization).string(for: entry, arguments: [])
    }
}
