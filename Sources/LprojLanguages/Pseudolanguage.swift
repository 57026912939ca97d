import LprojTables

/// Xcode's four pseudolanguages, as virtual localizations derived from the
/// development localization's tables — made when a view asks for one, so
/// they follow every edit of the development table:
///
/// - `en-XA` accented: the same letters with diacritics (`Home` → `Ĥöɱé`),
///   for text a font or a layout cannot show;
/// - `en-XD` double length: each run of text written twice (and `~` for
///   what specifiers leave short), for layouts that break when German is
///   40% longer: at least twice as long as the development text;
/// - `en-XE` bounded: `[# Home #]`, for text cut off at either end;
/// - `ar-XB` right to left: the text marked right-to-left (U+202E … U+202C)
///   and a right-to-left layout direction, for layouts never tried so.
///
/// Format specifiers (`%@`, `%1$d`, `%%`), variables (`%#@files@`, `%arg`)
/// and every other character stay as they are: only letters change, and
/// only text between specifiers is doubled or wrapped. A pseudolanguage is
/// chosen only when asked for by its exact name (`LanguageMatcher`: an
/// Arabic speaker is never given `ar-XB`); a bundle that has a real
/// localization of that name keeps it.
public enum Pseudolanguage: String, CaseIterable, Sendable {
    case accented = "en-XA"
    case doubleLength = "en-XD"
    case bounded = "en-XE"
    case rightToLeft = "ar-XB"

    /// The pseudolanguage a tag names (any case, `-` or `_`), nil for a real language.
    public init?(tag: String) {
        guard let parsed = LanguageTag(tag), parsed.script == nil else { return nil }
        guard let match = Self.allCases.first(where: { $0.rawValue == parsed.identifier }) else { return nil }
        self = match
    }

    /// `tables` with the pseudolanguages `preferences` name added (those
    /// the bundle does not have for real), derived from `development`'s tables.
    public static func adding(for preferences: [String], to tables: [String: [String: Table]], development: String?)
        -> [String: [String: Table]] {
        let wanted = preferences.compactMap(Pseudolanguage.init(tag:)).filter { tables[$0.rawValue] == nil }
        guard !wanted.isEmpty, let development, let source = tables[development] else { return tables }
        var result = tables
        for language in wanted { result[language.rawValue] = source.mapValues(language.table) }
        return result
    }

    /// `table` in this pseudolanguage.
    public func table(_ table: Table) -> Table {
        var entries: [String: Entry] = [:]
        entries.reserveCapacity(table.count)
        for (key, entry) in table { entries[key] = self.entry(entry) }
        return Table(entries)
    }

    /// `entry` in this pseudolanguage: every form of its value and of its variables.
    public func entry(_ entry: Entry) -> Entry {
        // Bounds and direction marks go round the whole text once, not round each variable's form inside it.
        let wrapsWhole = self == .bounded || self == .rightToLeft
        return Entry(value: variants(entry.value), substitutions: wrapsWhole ? entry.substitutions : entry.substitutions.mapValues { substitution in
            var changed = substitution
            changed.variants = variants(substitution.variants)
            return changed
        }, state: entry.state)
    }

    /// `text` in this pseudolanguage (specifiers kept).
    public func text(_ text: String) -> String {
        // Runs of text between specifiers; the specifiers as written.
        var pieces: [(text: String, isSpecifier: Bool)] = []
        var scalars = text.unicodeScalars[...]
        var run = ""
        while let percent = scalars.firstIndex(of: "%") {
            run.unicodeScalars.append(contentsOf: scalars[..<percent])
            var after = scalars[scalars.index(after: percent)...]
            let start = after.startIndex
            if after.starts(with: "arg".unicodeScalars) {
                after = after.dropFirst(3)
            } else if Specifier.parse(&after) == nil {
                // A lone `%`: text.
                run.unicodeScalars.append("%")
                scalars = scalars[scalars.index(after: percent)...]
                continue
            }
            if !run.isEmpty { pieces.append((run, false)) }
            run = ""
            pieces.append(("%" + String(String.UnicodeScalarView(scalars[start..<after.startIndex])), true))
            scalars = after
        }
        run.unicodeScalars.append(contentsOf: scalars)
        if !run.isEmpty { pieces.append((run, false)) }
        switch self {
        case .accented:
            return pieces.map { $0.isSpecifier ? $0.text : String(String.UnicodeScalarView($0.text.unicodeScalars.map { Self.accents[$0] ?? $0 })) }
                .joined()
        case .doubleLength:
            let doubled = pieces.map { $0.isSpecifier || $0.text.allSatisfy(\.isWhitespace) ? $0.text : $0.text + $0.text }.joined()
            // Specifiers are not doubled (each reads an argument): what they leave short is made up with `~`.
            let short = 2 * text.count - doubled.count
            return short > 0 ? doubled + String(repeating: "~", count: short) : doubled
        case .bounded:
            return "[# " + text + " #]"
        case .rightToLeft:
            return "\u{202E}" + text + "\u{202C}"
        }
    }

    private func variants(_ variants: Variants) -> Variants {
        switch variants {
        case .text(let text): .text(self.text(text))
        case .plural(let forms): .plural(forms.mapValues(self.variants))
        case .device(let forms): .device(forms.mapValues(self.variants))
        }
    }

    /// ASCII letters and a lookalike with diacritics (Xcode's accented pseudolanguage does the same).
    private static let accents: [Unicode.Scalar: Unicode.Scalar] = {
        let plain = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".unicodeScalars)
        let accented = Array("ÅƁÇÐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽáƀçðéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýž".unicodeScalars)
        return Dictionary(uniqueKeysWithValues: zip(plain, accented))
    }()
}
