import CLinux
import Foundation
import LprojBundles
import LprojLanguages
import LprojProtocol
import LprojTables

extension LiveBundle {
    /// One consistent view of a bundle: one state of its tables and one
    /// fallback chain, frozen. A screen, a message or a request built from
    /// one view never mixes two states — a save or a language switch makes
    /// new views and leaves this one as it was. Immutable, `Sendable`,
    /// cheap to keep: `bundle.current` is the active language's, and
    /// `localization(acceptLanguage:)` / `localization(preferences:)` make
    /// one per request (cached per state of the bundle). Each thread is
    /// handed views of its own, whose lookups on that thread touch nothing
    /// another thread writes; a view passed to another thread answers the
    /// same there.
    ///
    /// ```swift
    /// let view = bundle.localization(acceptLanguage: "fr-CH, fr;q=0.9, en;q=0.8")
    /// view.language                                         // "fr"
    /// view.localizedString(forKey: "greeting", value: nil, table: nil)
    /// view.localizedString(format: "item_count", 3)
    /// view.url(forResource: "logo", withExtension: "png")
    /// ```
    public final class Localization: Sendable {
        /// The localization that answers first (`zh-Hant`), nil when the bundle has none.
        public let language: String?
        /// The localizations searched, best first (`Base` and the development localization last).
        public let searchList: [String]
        /// The bundle directory resources are found in.
        public let bundlePath: String
        let formatter: StringFormatter
        let developmentFallback: Bool
        /// The search list for resources: `Base` before the development localization even when it holds no table.
        private let resourceList: [String]
        /// Where misses are recorded (the bundle's, shared by all its views), nil when they are not.
        let misses: MissLog?
        /// For each table name, the table the search list finds (Apple's
        /// rule: the first localization that has the table answers).
        private let resolved: [String: Table]
        /// The development localization's tables, for the per-key fallback.
        private let fallback: [String: Table]
        /// `Localizable`, the table most lookups name, resolved in advance.
        private let localizable: Table?
        /// The thread this view is a copy for (its `ThreadHolds` word; 0: a
        /// snapshot's own view), and that thread's copies of the three above
        /// (`Table.materializedForOneThread()`): on its thread a lookup
        /// reads and returns what no other thread writes. Any other thread
        /// it is passed to reads the snapshot's tables.
        private let owner: UInt
        private let ownResolved: [String: Table]
        private let ownFallback: [String: Table]
        private let ownLocalizable: Table?

        /// A view of `tables` (materialized) through `searchList`.
        init(tables: [String: [String: Table]], searchList: [String], development: String?, developmentFallback: Bool, bundlePath: String,
             misses: MissLog? = nil) {
            self.searchList = searchList
            self.misses = misses
            self.bundlePath = bundlePath
            self.developmentFallback = developmentFallback
            language = searchList.first { $0 != "Base" } ?? searchList.first
            formatter = StringFormatter.forLocalization(language)
            let found = Resolver.answeringTables(searchList: searchList, tables: tables)
            resolved = found
            localizable = found["Localizable"]
            fallback = developmentFallback ? (development.flatMap { tables[$0] } ?? [:]) : [:]
            owner = 0
            ownResolved = [:]
            ownFallback = [:]
            ownLocalizable = nil
            var resources = searchList
            if !resources.contains("Base") {
                resources.insert("Base", at: development.flatMap { resources.firstIndex(of: $0) } ?? resources.endIndex)
            }
            resourceList = resources
        }

        /// A copy of `other` for the thread whose `ThreadHolds` word is
        /// `owner` (`HeldSnapshot`): the same chain in an object of its own,
        /// which on that thread looks up `own`'s copy of each table.
        init(copying other: Localization, owner: UInt, own: (Table) -> Table) {
            language = other.language
            searchList = other.searchList
            bundlePath = other.bundlePath
            formatter = other.formatter
            developmentFallback = other.developmentFallback
            resourceList = other.resourceList
            misses = other.misses
            resolved = other.resolved
            fallback = other.fallback
            localizable = other.localizable
            self.owner = owner
            ownResolved = other.resolved.mapValues(own)
            ownFallback = other.fallback.mapValues(own)
            ownLocalizable = other.localizable.map(own)
        }

        /// The text of `key` in `table` (nil: `Localizable`) as Apple's bundles
        /// resolve it; a missing key gives `value` when it is not empty, else
        /// the key — never an empty string. A rule (plural) gives its `other`
        /// form unformatted.
        @inline(__always)
        public func localizedString(forKey key: String, value: String?, table: String?) -> String {
            let tableName = Self.tableName(table)
            let entry = entry(forKey: key, table: tableName)
            if let entry, let text = entry.text { return text }
            return notPlain(entry, key, value: value, table: tableName)
        }

        /// A rule's `other` form, or a miss (recorded): what `localizedString(forKey:)` gives when no plain text is found.
        @inline(never)
        func notPlain(_ entry: Entry?, _ key: String, value: String?, table tableName: String?) -> String {
            if let entry { return formatter.string(for: entry, arguments: []) }
            let answer: MissAnswer = value.map { $0.isEmpty ? .key : .default } ?? .key
            misses?.record(key: key, table: tableName ?? "Localizable", language: language, languages: searchList, answer: answer)
            if let value, !value.isEmpty { return value }
            return key
        }

        /// The entry of `key` formatted with `arguments` in this view's
        /// language: plural rules chosen by the arguments, positional and
        /// `%#@var@` substitutions, numbers written for the language.
        public func localizedString(format key: String, table: String? = nil, _ arguments: any CVarArg...) -> String {
            localizedString(format: key, table: table, arguments: arguments)
        }

        func localizedString(format key: String, table: String?, arguments: [any CVarArg]) -> String {
            guard let entry = entry(forKey: key, table: Self.tableName(table)) else {
                misses?.record(key: key, table: Self.tableName(table) ?? "Localizable", language: language, languages: searchList, answer: .key)
                return formatter.string(format: key, arguments: arguments)
            }
            return formatter.string(for: entry, arguments: arguments)
        }

        /// The file `name.ext` (in `subdirectory`) for this view: each
        /// localization of the search list in turn (`<lang>.lproj/…`,
        /// `Base.lproj/…` among them), then the bundle directory itself. Looked
        /// for on disk at each call, so a resource added or removed is seen at once.
        public func url(forResource name: String, withExtension ext: String?, subdirectory: String? = nil) -> URL? {
            let file = ext.flatMap { $0.isEmpty ? nil : name + "." + $0 } ?? name
            let relative = subdirectory.flatMap { $0.isEmpty ? nil : $0 + "/" + file } ?? file
            // `Base.lproj` is looked in even when it holds only resources (no table lists it among the localizations).
            for directory in resourceList.map({ bundlePath + "/" + $0 + ".lproj/" }) + [bundlePath + "/"] {
                var info = stat()
                let path = directory + relative
                if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { return URL(fileURLWithPath: path) }
            }
            return nil
        }

        /// The locale of this view's language, for formatting dates and numbers.
        public var locale: Locale { formatter.locale }

        /// Right-to-left for Arabic, Hebrew, Persian, Urdu…; left-to-right otherwise.
        public var layoutDirection: LayoutDirection {
            guard let language, let tag = LanguageTag(language), tag.isRightToLeft else { return .leftToRight }
            return .rightToLeft
        }

        /// `date` written for this view's language.
        public func string(from date: Date, dateStyle: DateFormatter.Style = .medium, timeStyle: DateFormatter.Style = .none,
                           timeZone: TimeZone = .current) -> String {
            let formatter = DateFormatter()
            formatter.locale = locale
            formatter.dateStyle = dateStyle
            formatter.timeStyle = timeStyle
            formatter.timeZone = timeZone
            return formatter.string(from: date)
        }

        /// `number` written for this view's language (`1,234.5`, `1.234,5`, `١٬٢٣٤٫٥`).
        public func string(from number: Double, style: NumberFormatter.Style = .decimal) -> String {
            let formatter = NumberFormatter()
            formatter.locale = locale
            formatter.numberStyle = style
            return formatter.string(from: NSNumber(value: number)) ?? String(number)
        }

        /// The entry for `key` in `table` (nil: `Localizable`), or nil. Allocates nothing.
        @inline(__always)
        func entry(forKey key: String, table: String?) -> Entry? {
            if owner != 0, owner == UInt(bitPattern: lproj_thread_holds_get()) {
                return entry(forKey: key, table: table, localizable: ownLocalizable, resolved: ownResolved, fallback: ownFallback)
            }
            return entry(forKey: key, table: table, localizable: localizable, resolved: resolved, fallback: fallback)
        }

        @inline(__always)
        private func entry(forKey key: String, table: String?, localizable: Table?, resolved: [String: Table],
                           fallback: [String: Table]) -> Entry? {
            // `Localizable` straight from the stored property: no copy of the table.
            if table == nil {
                if let entry = localizable?[key] { return entry }
                guard developmentFallback, localizable != nil else { return nil }
                return fromDevelopment(key, table: "Localizable", in: fallback)
            }
            let entries = resolved[table!]
            if let entry = entries?[key] { return entry }
            guard developmentFallback, entries != nil else { return nil }
            return fromDevelopment(key, table: table!, in: fallback)
        }

        /// The development localization's entry for a key the chosen table lacks (a miss all the same, recorded).
        @inline(never)
        private func fromDevelopment(_ key: String, table: String, in fallback: [String: Table]) -> Entry? {
            guard let entry = fallback[table]?[key] else { return nil }
            misses?.record(key: key, table: table, language: language, languages: searchList, answer: .development)
            return entry
        }

        /// nil for `Localizable` (and an empty name), as `Bundle` treats them.
        @inline(__always)
        static func tableName(_ table: String?) -> String? {
            table.flatMap { $0.isEmpty || $0 == "Localizable" ? nil : $0 }
        }
    }
}
