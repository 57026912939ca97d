import Foundation
import LprojProtocol
import LprojTables

/// The keys running apps looked up and did not find, as their processes
/// report them (`report-misses`): per app, bundle, table, language and key,
/// with counts and when first and last met. At most `capacity` records are
/// kept (`[Limits] Misses=`): past it, a miss of a record not kept is only
/// counted as dropped, so no client can grow the daemon; a record leaves
/// when its table gets the key. Names compare by their bytes.
final class MissBook {
    /// Records kept at most (0: none, and reports are ignored).
    private(set) var capacity: Int
    /// Misses not kept: reported while full, or dropped by processes at their own bound.
    private(set) var dropped: UInt64 = 0
    private var records: [Key: MissRecord] = [:]
    /// The keys of each table's records, for a table that gets keys.
    private var byTable: [TableKey: Set<Key>] = [:]

    /// The longest key kept (a catalog's key is its source text); longer ones are refused.
    static let maximumKeyBytes = 4096
    /// Localizations kept of a record's search list.
    static let maximumLanguages = 16

    init(capacity: Int) {
        self.capacity = capacity
    }

    var count: Int { records.count }

    /// Takes in one process's report; the records it created or counted again.
    /// `has` says whether the served table already has a key (a report made
    /// on an older state of it is not a miss).
    func report(app: String?, bundle: String, misses: [MissReport], dropped droppedByClient: Int, at date: Date,
                has: (_ language: String, _ table: String, _ key: String) -> Bool) -> [MissRecord] {
        dropped += UInt64(max(0, droppedByClient))
        guard capacity > 0 else {
            dropped += UInt64(misses.reduce(0) { $0 + max(1, $1.count) })
            return []
        }
        let seen = timestamps.string(from: date)
        var changed: [Key: MissRecord] = [:]
        for miss in misses {
            if let language = miss.language, has(language, miss.table, miss.key) { continue }
            let key = Key(app: app.map(ExactName.init), bundle: ExactName(bundle), table: ExactName(miss.table),
                          language: miss.language.map(ExactName.init), key: ExactName(miss.key))
            let count = UInt64(max(1, miss.count))
            let languages = Array(miss.languages.prefix(Self.maximumLanguages))
            if var record = records[key] {
                record.count += count
                record.lastSeen = seen
                record.answer = miss.answer
                record.languages = languages
                records[key] = record
                changed[key] = record
            } else if records.count < capacity {
                let record = MissRecord(app: app, bundle: bundle, table: miss.table, language: miss.language, key: miss.key,
                                        languages: languages, answer: miss.answer, count: count, firstSeen: seen, lastSeen: seen)
                records[key] = record
                byTable[key.tableKey, default: []].insert(key)
                changed[key] = record
            } else {
                dropped += count
            }
        }
        return changed.values.sorted(by: Self.order)
    }

    /// Forgets the records of keys that `language`'s `table` in `bundle` now
    /// has (or all of that table's, `keys` nil: a table that came whole); the records forgotten.
    func resolve(bundle: String, language: String, table: String, keys: Set<String>?) -> [MissRecord] {
        let tableKey = TableKey(bundle: ExactName(bundle), language: ExactName(language), table: ExactName(table))
        guard let held = byTable[tableKey] else { return [] }
        let gone = held.filter { keys?.contains($0.key.string) ?? true }
        guard !gone.isEmpty else { return [] }
        let resolved = gone.compactMap { records.removeValue(forKey: $0) }
        let remaining = held.subtracting(gone)
        byTable[tableKey] = remaining.isEmpty ? nil : remaining
        return resolved.sorted(by: Self.order)
    }

    /// The records kept, most met first, filtered by bundle, language and app.
    func records(bundle: String?, language: String?, app: String?, limit: Int?) -> [MissRecord] {
        var found = records.values.filter { record in
            (bundle.map { PathBytes.equal($0, record.bundle) } ?? true)
                && (language.map { wanted in record.language.map { PathBytes.equal($0, wanted) } ?? false } ?? true)
                && (app.map { wanted in record.app.map { PathBytes.equal($0, wanted) } ?? false } ?? true)
        }
        found.sort(by: Self.order)
        if let limit, limit >= 0, found.count > limit { found.removeLast(found.count - limit) }
        return found
    }

    /// A new capacity (a reload): past it, the least met records go (counted as dropped).
    func setCapacity(_ capacity: Int) {
        self.capacity = capacity
        guard records.count > capacity else { return }
        let kept = records.values.sorted(by: Self.order).prefix(capacity)
        let keep = Set(kept.map(Key.init))
        for (key, record) in records where !keep.contains(key) {
            dropped += record.count
            records[key] = nil
            byTable[key.tableKey]?.remove(key)
            if byTable[key.tableKey]?.isEmpty == true { byTable[key.tableKey] = nil }
        }
    }

    // MARK: - Helpers

    private struct Key: Hashable {
        var app: ExactName?
        var bundle: ExactName
        var table: ExactName
        var language: ExactName?
        var key: ExactName

        var tableKey: TableKey { TableKey(bundle: bundle, language: language ?? ExactName(""), table: table) }

        init(app: ExactName?, bundle: ExactName, table: ExactName, language: ExactName?, key: ExactName) {
            (self.app, self.bundle, self.table, self.language, self.key) = (app, bundle, table, language, key)
        }

        init(_ record: MissRecord) {
            self.init(app: record.app.map(ExactName.init), bundle: ExactName(record.bundle), table: ExactName(record.table),
                      language: record.language.map(ExactName.init), key: ExactName(record.key))
        }
    }

    private struct TableKey: Hashable {
        var bundle: ExactName
        var language: ExactName
        var table: ExactName
    }

    /// Most met first; then the latest; then by key, so the order is the same every time.
    private static func order(_ a: MissRecord, _ b: MissRecord) -> Bool {
        if a.count != b.count { return a.count > b.count }
        if a.lastSeen != b.lastSeen { return a.lastSeen > b.lastSeen }
        return (a.bundle, a.table, a.language ?? "", a.key, a.app ?? "") < (b.bundle, b.table, b.language ?? "", b.key, b.app ?? "")
    }

    private let timestamps: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter
    }()
}
