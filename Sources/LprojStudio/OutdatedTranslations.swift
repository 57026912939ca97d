import LprojFormats
import LprojPaths

/// Which translations of one table were made for an earlier source text:
/// in git, the translation's line last changed before its source text's
/// line did. Plain `.strings` files only (a rule or a catalog entry spans
/// lines; a catalog keeps its own `needs_review` state); a file outside
/// git has no outdated translation.
struct OutdatedTranslations {
    private let bundle: String
    private let table: String
    private let ages: LineAges
    private let source: Located?
    private var languages: [String: Located?] = [:]

    /// A file's key lines and its lines' ages.
    private struct Located {
        var lines: KeyLocations
        var ages: [Int: Int]
    }

    init(bundle: String, table: String, development: String?, ages: LineAges) {
        self.bundle = bundle
        self.table = table
        self.ages = ages
        source = development.flatMap { Self.locate(TablePlace.files(of: table, localization: $0, in: bundle).strings, ages) }
    }

    /// Whether `language`'s translation of `key` is older than `key`'s source text.
    mutating func isOutdated(_ key: String, language: String) -> Bool {
        guard let source, let sourceLine = source.lines.location(of: key)?.line, let sourceAge = source.ages[sourceLine] else { return false }
        if languages[language] == nil {
            languages[language] = .some(Self.locate(TablePlace.files(of: table, localization: language, in: bundle).strings, ages))
        }
        guard let located = languages[language] ?? nil, let line = located.lines.location(of: key)?.line, let age = located.ages[line] else { return false }
        return age < sourceAge
    }

    private static func locate(_ file: String, _ ages: LineAges) -> Located? {
        guard let found = ages.ages(of: file), let lines = KeyLocations(path: file) else { return nil }
        return Located(lines: lines, ages: found)
    }
}
