import Foundation
import LprojFormats
import LprojPaths
import LprojTables
import Synchronization

/// Where one key stands in one localization, as a translator counts it:
/// the one rule `coverage`, `check` and the studio's badges and filters
/// share, so that their figures agree.
public enum TranslationStatus: String, Sendable, CaseIterable, Codable {
    /// The localization has no entry for the key.
    case missing
    /// A catalog marks it `new`: not translated yet.
    case new
    /// A catalog marks it `needs_review` (its source text changed since).
    case needsReview = "needs_review"
    /// A catalog marks it `stale`: its key is no longer in the sources.
    case stale
    /// Its text is the source text, unmarked: most often a value copied
    /// and never translated. A comment holding `lproj:same` (the
    /// translation's or the source's) says it is meant to be the same.
    case unchanged
    case translated

    /// The comment marker of a value meant to be the same as its source ("OK", a brand).
    public static let sameMarker = "lproj:same"

    /// The status of `entry` in `localization` against `source` (the development
    /// localization's entry; nil when it has none). `isMarkedSame` is asked
    /// only for a value equal to its source.
    public static func of(_ entry: Entry?, source: Entry?, isDevelopment: Bool, isMarkedSame: () -> Bool) -> TranslationStatus {
        guard let entry else { return isDevelopment ? .translated : .missing }
        switch entry.state {
        case .new: return .new
        case .needsReview: return .needsReview
        case .stale: return .stale
        default: break
        }
        guard !isDevelopment, let text = entry.text, !text.isEmpty, text == source?.text else { return .translated }
        return isMarkedSame() ? .translated : .unchanged
    }
}

/// The `lproj:same` marks of a bundle's keys: a key's comment in the
/// localization's own file, or in the development localization's, read
/// once per file and only when a value equal to its source asks.
public final class SameMarks: Sendable {
    private let bundle: String
    private let development: String?
    private let comments = Mutex<[String: [String: String]]>([:])

    public init(bundle: String, development: String?) {
        self.bundle = bundle
        self.development = development
    }

    /// Whether `key` of `table` in `localization` is marked as meant to be the same as its source.
    public func isMarked(_ key: String, table: String, localization: String) -> Bool {
        let catalog = TablePlace.catalog(table, in: bundle)
        var files = [TablePlace.files(of: table, localization: localization, in: bundle).strings, catalog]
        if let development { files.insert(TablePlace.files(of: table, localization: development, in: bundle).strings, at: 1) }
        return files.contains { comments(of: $0)[key]?.contains(TranslationStatus.sameMarker) == true }
    }

    private func comments(of file: String) -> [String: String] {
        if let known = comments.withLock({ $0[file] }) { return known }
        let format: TableFormat = file.hasSuffix(".xcstrings") ? .xcstrings : .strings
        let read = FileManager.default.contents(atPath: file).map { TableComments.of(Array($0), format: format) } ?? [:]
        comments.withLock { $0[file] = read }
        return read
    }
}
