import Foundation
import LprojFormats
import LprojLanguages
import LprojPaths
import LprojTables

/// Cross-language checks of one bundle: each localization's tables against
/// the development localization's, and what each table needs on its own —
/// the pitfalls that ship broken apps and that a parser cannot see. The one
/// home of these rules: `lprojctl check` runs them offline, the daemon on
/// every change (a table at a time: `diagnostics(localization:table:)`).
///
/// - **Keys**: a key of the development table missing from a localization
///   (the user sees the development text), and a key only a localization
///   has (unused, or misspelled) — warnings.
/// - **Format arguments** (`FormatArguments`): an argument read as another
///   kind than the development language reads it (`%@` for `%d`: a crash on
///   Apple platforms) or one it never passes — errors; another length
///   modifier (`%d` for `%ld`), or an argument left out — warnings; a
///   variable whose forms read it against its `NSStringFormatValueTypeKey` — an error.
/// - **Plurals**: a rule without `other` — an error (Apple requires it); a
///   category the language's CLDR rules need and the rule lacks, or one
///   they never select (`zero` aside: Apple uses it for 0 in every
///   language) — warnings. The categories come from ICU.
/// - **Values**: an empty value — a warning; a value identical to the
///   development language's, unless a comment marks it `lproj:same`
///   (`TranslationStatus.unchanged`) — a warning.
/// - **Names**: `zh-TW.lproj`, `zh-HK.lproj`, `zh_CN.lproj` (a region where
///   a script is meant: Apple matches `zh-Hant` / `zh-Hans`) — warnings.
/// - **InfoPlist**: `CFBundleDisplayName` (or `CFBundleName`) localized
///   while the bundle's `Info.plist` lacks it (Apple then ignores the
///   translation); an `NS…UsageDescription` some localizations translate and others do not — warnings.
///
/// Each diagnostic names the file and, where the key is written, its line
/// and column; a problem with no line (a missing key, a directory's name)
/// has line 0. `Base` is not compared (it holds interface files' strings).
public struct BundleCheck: Sendable {
    public let bundle: LocalizedBundle
    /// The localization the others are checked against (nil: none found, so only each table's own checks run).
    public let development: String?
    /// Keys whose value is meant to be the same as the source's.
    private let marks: SameMarks

    /// Checks `bundle` against `development` (by default the
    /// bundle's own: `DevelopmentLocalization`).
    public init(bundle: LocalizedBundle, development: String? = nil) {
        self.bundle = bundle
        self.development = development.flatMap { Self.localization(named: $0, in: bundle) } ?? DevelopmentLocalization.of(bundle)
        marks = SameMarks(bundle: bundle.path, development: self.development)
    }

    /// Whether a String Catalog holds table `name` (then a key its source language has no text for is its own
    /// source text). Asked of the disk only on that rare path, not for each check: the daemon makes a check per bundle.
    private func isCatalogTable(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: TablePlace.catalog(name, in: bundle.path))
    }

    /// Every diagnostic of the bundle: its names and InfoPlist, then every table of every localization.
    public func diagnostics() -> [Diagnostic] {
        var all = bundleDiagnostics()
        for localization in bundle.localizations {
            for table in (bundle.tables[localization] ?? [:]).keys.sorted() {
                all += diagnostics(localization: localization, table: table)
            }
            // Tables the development localization has and this one lacks.
            if let development, localization != development, localization != "Base" {
                for table in (bundle.tables[development] ?? [:]).keys.sorted() where bundle.tables[localization]?[table] == nil {
                    all += diagnostics(localization: localization, table: table)
                }
            }
        }
        return all
    }

    /// The diagnostics about `localization`'s table `table`: its own checks
    /// and, for a localization other than the development one, the
    /// comparison with the development table of that name.
    public func diagnostics(localization: String, table name: String) -> [Diagnostic] {
        var files = FileLocations(bundlePath: bundle.path, localization: localization, table: name)
        var found = tableDiagnostics(localization: localization, table: name)
        let table = bundle.tables[localization]?[name]
        // In file order (a table of thousands of keys is checked on a save: nothing sorted).
        for (key, _) in table ?? Table() { found += diagnostics(localization: localization, table: name, key: key, files: &files) }
        if let reference = reference(localization: localization, table: name), table != nil {
            for (key, _) in reference where table![key] == nil {
                found += diagnostics(localization: localization, table: name, key: key, files: &files)
            }
        }
        return found
    }

    /// The diagnostics of `localization`'s table `table` as a whole (one it lacks that the development localization has).
    public func tableDiagnostics(localization: String, table name: String) -> [Diagnostic] {
        guard bundle.tables[localization]?[name] == nil, name != "InfoPlist", let development,
              let reference = reference(localization: localization, table: name), !reference.isEmpty else { return [] }
        return [Diagnostic(file: bundle.path + "/" + localization + ".lproj", line: 0, column: 0, severity: .warning,
                           message: "\(localization) has no \(name) table: its \(reference.count) key(s) show in \(development)",
                           hint: "add \(localization).lproj/\(name).strings with their translations")]
    }

    /// The diagnostics about one key of `localization`'s table `table`: its
    /// value on its own, and against the development localization's (a key
    /// only one of them has included). What the daemon checks again after a
    /// save changed that key (`files` keeps the files it located keys in).
    public func diagnostics(localization: String, table name: String, key: String, files: inout FileLocations) -> [Diagnostic] {
        let table = bundle.tables[localization]?[name]
        let reference = reference(localization: localization, table: name)
        // InfoPlist keys are Info.plist's: which ones a localization translates is `bundleDiagnostics`' business.
        let comparesKeys = name != "InfoPlist"
        guard let entry = table?[key] else {
            guard table != nil, comparesKeys, development != nil, reference?[key] != nil else { return [] }
            return [Diagnostic(file: files.tableFile, line: 0, column: 0, severity: .warning,
                               message: "\"\(key)\" is not translated into \(localization): \(shown(key, table: name, to: localization))",
                               hint: files.tableFile.hasSuffix(".xcstrings") ? "add its \(localization) translation to \(name).xcstrings"
                                   : "add it to \(localization).lproj/\(name)")]
        }
        var found: [Diagnostic] = []
        func report(_ severity: Diagnostic.Severity, _ message: String, hint: String? = nil, rule: Diagnostic.Rule? = nil) {
            let (file, line, column) = files.location(of: key, entry: entry)
            found.append(Diagnostic(file: file, line: line, column: column, severity: severity, message: message, hint: hint, rule: rule))
        }
        // The value on its own.
        if Self.hasEmptyText(entry.value) || entry.substitutions.values.contains(where: { Self.hasEmptyText($0.variants) }) {
            report(.warning, "\"\(key)\" has an empty value", hint: "an empty translation shows nothing; remove the entry to fall back")
        }
        let arguments = FormatArguments(entry)
        for problem in arguments.problems { report(.error, "\"\(key)\": \(problem)") }
        let rules = Self.pluralRules(of: entry)
        if !rules.isEmpty {
            let categories = PluralCategory.names(of: localization)
            for (variable, rule) in rules {
                let forms = Set(rule.keys)
                let named = variable.map { "variable \($0) of \"\(key)\"" } ?? "\"\(key)\""
                if !forms.contains("other") {
                    // A warning, as lint says it: an error would make the table unusable, and Foundation still serves it.
                    report(.warning, "the plural rule of \(named) has no \"other\" form", hint: "Apple requires one; every number without a form of its own gets it",
                           rule: .pluralWithoutOther)
                }
                guard let categories else { continue }
                let language = Self.languageInWords(localization)
                let needed = categories.filter { !forms.contains($0) && $0 != "other" }.sorted { Self.order($0) < Self.order($1) }
                if !needed.isEmpty {
                    report(.warning, "the plural rule of \(named) lacks \(Self.list(needed)), which \(language) needs "
                           + "(CLDR: \(Self.ordered(categories)))", hint: "numbers in those categories get \"other\" instead")
                }
                let unused = forms.filter { !categories.contains($0) && $0 != "zero" }.sorted { Self.order($0) < Self.order($1) }
                if !unused.isEmpty {
                    report(.warning, "the plural rule of \(named) has \(Self.list(unused)), which \(language) never selects "
                           + "(CLDR: \(Self.ordered(categories)))", hint: "remove the form: no number shows it")
                }
            }
        }
        // Against the development language.
        guard let reference, let development else { return found }
        guard let original = reference[key] ?? (isCatalogTable(name) ? Entry(text: key) : nil) else {
            if comparesKeys {
                report(.warning, "\"\(key)\" is in \(localization) but not in \(development), the development localization",
                       hint: "unused, or the key is misspelled")
            }
            return found
        }
        for problem in Self.compare(FormatArguments(original), arguments, development: development, localization: localization) {
            report(problem.severity, "\"\(key)\": \(problem.message)", hint: problem.hint)
        }
        if TranslationStatus.of(entry, source: original, isDevelopment: false, isMarkedSame: { marks.isMarked(key, table: name, localization: localization) })
            == .unchanged {
            report(.warning, "\"\(key)\" is the same as in \(development): unchanged",
                   hint: "translate it, or write \(TranslationStatus.sameMarker) in its comment if it is meant to be the same")
        }
        return found
    }

    /// The development localization's table `name`, for a localization compared with it (nil for the development one and `Base`).
    private func reference(localization: String, table name: String) -> Table? {
        guard localization != development, localization != "Base", let development else { return nil }
        // (A catalog whose source language has no text at all is still compared: each key is its own source text.)
        return bundle.tables[development]?[name] ?? (isCatalogTable(name) ? Table() : nil)
    }

    /// The diagnostics about the bundle as a whole: `.lproj` names, and
    /// `InfoPlist` across localizations and against `Info.plist`.
    public func bundleDiagnostics() -> [Diagnostic] {
        var found: [Diagnostic] = []
        for localization in bundle.localizations {
            guard let meant = Self.scriptMeant(by: localization) else { continue }
            found.append(Diagnostic(file: TablePlace.directory(of: localization, in: bundle.path), line: 0, column: 0, severity: .warning,
                                    message: "\(localization).lproj names a region where a script is meant: Apple matches "
                                        + "\(meant) for this text", hint: "rename it \(meant).lproj"))
        }
        found += infoPlistDiagnostics()
        return found
    }

    // MARK: - Rules

    /// What a user of `localization` sees for `key` of `table`, in words: the one lookup's answer.
    private func shown(_ key: String, table: String, to localization: String) -> String {
        let found = BundleLookup(key: key, table: table, in: bundle, preferences: [localization], development: development)
        switch found.resolution.source {
        case .table(let other), .developmentFallback(let other): return "\(other)'s text shows"
        case .defaultValue, .key: return "the key itself shows"
        }
    }

    /// A problem found comparing two values' arguments.
    package struct Problem {
        package var severity: Diagnostic.Severity
        package var message: String
        package var hint: String?
    }

    /// How `translated` reads its arguments against `original`.
    package static func compare(_ original: FormatArguments, _ translated: FormatArguments, development: String, localization: String) -> [Problem] {
        var problems: [Problem] = []
        for position in Set(original.uses.keys).union(translated.uses.keys).sorted() {
            let before = original.uses[position] ?? [], after = translated.uses[position] ?? []
            guard let first = before.first else {
                // A development text that reads no argument at all is most likely never formatted ("100% sure"): then a `%` is prose too.
                if original.isEmpty {
                    problems.append(Problem(severity: .warning, message: "reads argument \(position) (\(after[0].written)), which \(development) never "
                                                + "passes; \(development)'s text reads no argument, so the app most likely never formats it",
                                            hint: "if the % is meant as text, it shows as written only while the string is not formatted; %% is safe either way"))
                } else {
                    problems.append(Problem(severity: .error, message: "reads argument \(position) (\(after[0].written)), which \(development) never passes",
                                            hint: "the app passes only the arguments \(development)'s text reads"))
                }
                continue
            }
            guard let use = after.first(where: { $0.kind != first.kind }) ?? after.first else {
                problems.append(Problem(severity: .warning, message: "leaves out argument \(position) (\(first.written) in \(development))",
                                        hint: "write it as \(first.written), or %\(position)$… to place it"))
                continue
            }
            if use.kind != first.kind {
                problems.append(Problem(severity: .error, message: "reads argument \(position) as \(use.kind.description) (\(use.written)), but "
                                            + "\(development) reads it as \(first.kind.description) (\(first.written))",
                                        hint: "a mismatched specifier reads the wrong type: a crash on Apple platforms"))
            } else if use.length != first.length {
                problems.append(Problem(severity: .warning, message: "reads argument \(position) as \(use.written), \(development) as \(first.written)",
                                        hint: "use the same length modifier"))
            }
        }
        return problems
    }

    /// A localization's language in words with its code, for messages: `Belarusian (be)`.
    package static func languageInWords(_ localization: String) -> String {
        let code = LanguageTag(localization)?.identifier ?? localization
        guard let name = Locale(identifier: "en_US").localizedString(forIdentifier: code), name != code else { return code }
        return "\(name) (\(code))"
    }

    /// The plural rules of an entry: its value's (variable nil) and each variable's.
    static func pluralRules(of entry: Entry) -> [(variable: String?, forms: [String: Variants])] {
        if entry.substitutions.isEmpty, case .text = entry.value { return [] }
        func rules(_ variants: Variants) -> [[String: Variants]] {
            switch variants {
            case .text: []
            case .plural(let forms): [forms]
            case .device(let forms): forms.keys.sorted().flatMap { rules(forms[$0]!) }
            }
        }
        return rules(entry.value).map { (nil, $0) }
            + entry.substitutions.keys.sorted().flatMap { name in rules(entry.substitutions[name]!.variants).map { (name, $0) } }
    }

    static func hasEmptyText(_ variants: Variants) -> Bool {
        switch variants {
        case .text(let text): text.isEmpty
        case .plural(let forms), .device(let forms): forms.values.contains(where: hasEmptyText)
        }
    }

    /// `zh-Hant` for `zh-TW`, `zh-HK`, `zh-MO` (and `zh_TW`…), `zh-Hans` for `zh-CN`, `zh-SG` (and `zh_CN`): nil otherwise.
    static func scriptMeant(by localization: String) -> String? {
        let parts = localization.split(whereSeparator: { $0 == "-" || $0 == "_" }).map { $0.lowercased() }
        guard parts.count == 2, parts[0] == "zh" else { return nil }
        switch parts[1] {
        case "tw", "hk", "mo": return "zh-Hant"
        case "cn", "sg": return "zh-Hans"
        default: return nil
        }
    }

    private func infoPlistDiagnostics() -> [Diagnostic] {
        let localized = bundle.localizations.filter { $0 != "Base" }.compactMap { name in bundle.tables[name]?["InfoPlist"].map { (name, $0) } }
        guard !localized.isEmpty else { return [] }
        var found: [Diagnostic] = []
        let info = DevelopmentLocalization.infoPlist(ofBundleAt: bundle.path)
        var files: [String: FileLocations] = [:]
        func place(_ localization: String, _ key: String?) -> (String, Int, Int) {
            var locations = files[localization] ?? FileLocations(bundlePath: bundle.path, localization: localization, table: "InfoPlist")
            defer { files[localization] = locations }
            guard let key, let entry = bundle.tables[localization]?["InfoPlist"]?[key] else { return (locations.tableFile, 0, 0) }
            return locations.location(of: key, entry: entry)
        }
        if let info {
            for (localization, table) in localized {
                for key in ["CFBundleDisplayName", "CFBundleName"] where table[key] != nil && info[key] == nil {
                    let (file, line, column) = place(localization, key)
                    found.append(Diagnostic(file: file, line: line, column: column, severity: .warning,
                                            message: "\(key) is localized but the bundle's Info.plist has no \(key): the translation is ignored",
                                            hint: "add \(key) to Info.plist"))
                }
            }
        }
        // Usage descriptions: each one any localization (or Info.plist) has, in every localization.
        var usage = Set(localized.flatMap { $0.1.keys.filter(Self.isUsageDescription) })
        if let info { usage.formUnion(info.keys.filter(Self.isUsageDescription)) }
        for localization in bundle.localizations where localization != development && localization != "Base" {
            let table = bundle.tables[localization]?["InfoPlist"] ?? Table()
            for key in usage.sorted() where table[key] == nil {
                let (file, _, _) = place(localization, nil)
                found.append(Diagnostic(file: file, line: 0, column: 0, severity: .warning,
                                        message: "\(key) is not localized in \(localization): the permission prompt shows "
                                            + "\(development.map { "the \($0) text" } ?? "the Info.plist text")",
                                        hint: "add \"\(key)\" to \(localization).lproj/InfoPlist.strings"))
            }
        }
        return found
    }

    private static func isUsageDescription(_ key: String) -> Bool {
        key.hasPrefix("NS") && key.hasSuffix("UsageDescription")
    }

    /// The localization of `bundle` that `name` means (`en` for `en`, `English` for `en` when that is what the bundle has).
    static func localization(named name: String, in bundle: LocalizedBundle) -> String? {
        if bundle.tables[name] != nil { return name }
        guard let tag = LanguageTag(name) else { return nil }
        return bundle.localizations.first { LanguageTag($0)?.identifier == tag.identifier }
    }

    private static func list(_ categories: [String]) -> String {
        categories.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    /// Whether a parser's diagnostic says what a check says (worse): `check` reports it once.
    public static func supersedes(_ diagnostic: Diagnostic) -> Bool {
        diagnostic.rule == .pluralWithoutOther
    }

    /// Whether a diagnostic stops an edit that brings it in (`TableWriter`):
    /// every error, and a plural rule without `other` — a warning where a
    /// table is read (Foundation still serves it), never to be written.
    public static func refusesEdit(_ diagnostic: Diagnostic) -> Bool {
        diagnostic.severity == .error || supersedes(diagnostic)
    }

    package static func ordered(_ categories: [String]) -> String {
        categories.sorted { order($0) < order($1) }.joined(separator: ", ")
    }

    private static func order(_ category: String) -> Int {
        ["zero", "one", "two", "few", "many", "other"].firstIndex(of: category) ?? 6
    }
}

/// Where a localization's table and its keys are written (read again only when a problem is reported).
public struct FileLocations {
    let bundlePath: String
    let localization: String
    let table: String
    private var located: [String: KeyLocations] = [:]

    public init(bundlePath: String, localization: String, table: String) {
        self.bundlePath = bundlePath
        self.localization = localization
        self.table = table
    }

    /// Another localization's locations of the same table, keeping the files `known` has read (a String Catalog,
    /// which holds every localization, is read once for all).
    public init(localization: String, known: FileLocations) {
        self.init(bundlePath: known.bundlePath, localization: localization, table: known.table)
        located = known.located
    }

    /// The table's main file: `.strings`, else `.stringsdict`, else the bundle's `.xcstrings`.
    public var tableFile: String {
        candidates(preferringRules: false).first { FileManager.default.fileExists(atPath: $0) }
            ?? TablePlace.files(of: table, localization: localization, in: bundlePath).strings
    }

    /// The file, line and column of `key` (a rule is looked for in the `.stringsdict` first).
    public mutating func location(of key: String, entry: Entry) -> (file: String, line: Int, column: Int) {
        let rules = if case .text = entry.value { !entry.substitutions.isEmpty } else { true }
        var existing: String?
        for path in candidates(preferringRules: rules) {
            if located[path] == nil, let locations = KeyLocations(path: path) { located[path] = locations }
            guard let locations = located[path] else { continue }
            existing = existing ?? path
            if let (line, column) = locations.location(of: key) { return (path, line, column) }
        }
        return (existing ?? tableFile, 0, 0)
    }

    private func candidates(preferringRules rules: Bool) -> [String] {
        let lproj = TablePlace.files(of: table, localization: localization, in: bundlePath)
        let files = rules ? [lproj.stringsdict, lproj.strings] : [lproj.strings, lproj.stringsdict]
        return files + [TablePlace.catalog(table, in: bundlePath)]
    }
}
