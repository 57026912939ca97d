import Foundation
import LprojPaths
import LprojProtocol
import LprojTables

/// The keys running apps looked up and did not find, as their processes
/// report them (`report-misses`): per reporting user, app, bundle, table,
/// language and key, with counts and when first and last met. The user is
/// the connection's (its credentials), so no one's reports land in
/// another user's records. At most `capacity` records are kept
/// (`[Limits] Misses=`), each user with a fair share: while the book is
/// full, a user holding fewer than `capacity / users` records takes a
/// place from the user holding the most (the least met of a sample of
/// theirs), and anyone else's new miss is only counted as dropped. So one
/// user's flood cannot crowd out another's real reports, and no client can
/// grow the daemon. A record leaves when its table gets the key. Names
/// compare by their bytes; every count saturates instead of wrapping.
final class MissBook {
    /// Records kept at most (0: none, and reports are ignored).
    private(set) var capacity: Int
    /// Misses not kept: reported while full, or dropped by processes at their own bound.
    private(set) var dropped: UInt64 = 0
    private var records: [Key: MissRecord] = [:]
    /// The keys of each table's records, for a table that gets keys.
    private var byTable: [TableKey: Set<Key>] = [:]
    /// The keys of each user's records, for the fair share.
    private var byUser: [UInt32: Set<Key>] = [:]

    /// The longest key kept (a catalog's key is its source text); longer ones are refused.
    static let maximumKeyBytes = 4096
    /// Localizations kept of a record's search list.
    static let maximumLanguages = 16
    /// How many of the heaviest user's records are looked at to choose the one that gives way.
    static let evictionSample = 64

    init(capacity: Int) {
        self.capacity = capacity
    }

    var count: Int { records.count }

    /// How many records `user` holds.
    func count(of user: UInt32) -> Int { byUser[user]?.count ?? 0 }

    /// Takes in one report of a process of `user`; the records it created
    /// or counted again. `has` says whether the served table already has a
    /// key (a report made on an older state of it is not a miss).
    func report(user: UInt32, app: String?, bundle: String, misses: [MissReport], dropped droppedByClient: Int, at date: Date,
                has: (_ language: String, _ table: String, _ key: String) -> Bool) -> [MissRecord] {
        Self.add(UInt64(max(0, droppedByClient)), to: &dropped)
        guard capacity > 0 else {
            for miss in misses { Self.add(UInt64(max(1, miss.count)), to: &dropped) }
            return []
        }
        let seen = UTCTimestamp.string(secondsSince1970: date.timeIntervalSince1970)
        var changed: [Key: MissRecord] = [:]
        for miss in misses {
            if let language = miss.language, has(language, miss.table, miss.key) { continue }
            let key = Key(user: user, app: app.map(ExactName.init), bundle: ExactName(bundle), table: ExactName(miss.table),
                          language: miss.language.map(ExactName.init), key: ExactName(miss.key))
            let count = UInt64(max(1, miss.count))
            let languages = Array(miss.languages.prefix(Self.maximumLanguages))
            if var record = records[key] {
                Self.add(count, to: &record.count)
                record.lastSeen = seen
                record.answer = miss.answer
                record.languages = languages
                records[key] = record
                changed[key] = record
            } else if records.count < capacity || makeRoom(for: user) {
                let record = MissRecord(user: user, app: app, bundle: bundle, table: miss.table, language: miss.language, key: miss.key,
                                        languages: languages, answer: miss.answer, count: count, firstSeen: seen, lastSeen: seen)
                records[key] = record
                byTable[key.tableKey, default: []].insert(key)
                byUser[user, default: []].insert(key)
                changed[key] = record
            } else {
                Self.add(count, to: &dropped)
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
        for key in gone { forgetFromUser(key) }
        let resolved = gone.compactMap { records.removeValue(forKey: $0) }
        let remaining = held.subtracting(gone)
        byTable[tableKey] = remaining.isEmpty ? nil : remaining
        return resolved.sorted(by: Self.order)
    }

    /// The records `reader` may read (nil: every user's), most met first,
    /// filtered by bundle, language and app.
    func records(readBy reader: UInt32?, bundle: String?, language: String?, app: String?) -> [MissRecord] {
        let candidates: [MissRecord]
        if let reader {
            candidates = (byUser[reader] ?? []).compactMap { records[$0] }
        } else {
            candidates = Array(records.values)
        }
        var found = candidates.filter { record in
            (bundle.map { PathBytes.equal($0, record.bundle) } ?? true)
                && (language.map { wanted in record.language.map { PathBytes.equal($0, wanted) } ?? false } ?? true)
                && (app.map { wanted in record.app.map { PathBytes.equal($0, wanted) } ?? false } ?? true)
        }
        found.sort(by: Self.order)
        return found
    }

    /// A new capacity (a reload): past it, the least met records go (counted as dropped).
    func setCapacity(_ capacity: Int) {
        self.capacity = capacity
        guard records.count > capacity else { return }
        let kept = records.values.sorted(by: Self.order).prefix(capacity)
        let keep = Set(kept.map(Key.init))
        for key in Array(records.keys) where !keep.contains(key) { forget(key) }
    }

    // MARK: - Helpers

    /// Whether a place was freed for a new record of `user` in a full book:
    /// only when `user` holds less than its fair share and someone holds more.
    private func makeRoom(for user: UInt32) -> Bool {
        let users = byUser.count + (byUser[user] == nil ? 1 : 0)
        let share = max(1, capacity / max(1, users))
        guard count(of: user) < share,
              let (heaviest, held) = byUser.max(by: { $0.value.count < $1.value.count }), heaviest != user, held.count > share,
              let victim = held.prefix(Self.evictionSample).min(by: { a, b in Self.order(records[b]!, records[a]!) }) else { return false }
        forget(victim)
        return true
    }

    /// Removes a record, counting its misses as dropped.
    private func forget(_ key: Key) {
        guard let record = records.removeValue(forKey: key) else { return }
        Self.add(record.count, to: &dropped)
        byTable[key.tableKey]?.remove(key)
        if byTable[key.tableKey]?.isEmpty == true { byTable[key.tableKey] = nil }
        forgetFromUser(key)
    }

    private func forgetFromUser(_ key: Key) {
        byUser[key.user]?.remove(key)
        if byUser[key.user]?.isEmpty == true { byUser[key.user] = nil }
    }

    /// Adds without wrapping: a count that would pass 2^64 - 1 stays there.
    private static func add(_ value: UInt64, to total: inout UInt64) {
        let (sum, overflow) = total.addingReportingOverflow(value)
        total = overflow ? .max : sum
    }

    private struct Key: Hashable {
        var user: UInt32
        var app: ExactName?
        var bundle: ExactName
        var table: ExactName
        var language: ExactName?
        var key: ExactName

        var tableKey: TableKey { TableKey(bundle: bundle, language: language ?? ExactName(""), table: table) }

        init(user: UInt32, app: ExactName?, bundle: ExactName, table: ExactName, language: ExactName?, key: ExactName) {
            (self.user, self.app, self.bundle, self.table, self.language, self.key) = (user, app, bundle, table, language, key)
        }

        init(_ record: MissRecord) {
            self.init(user: record.user ?? 0, app: record.app.map(ExactName.init), bundle: ExactName(record.bundle), table: ExactName(record.table),
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
        if (a.bundle, a.table, a.language ?? "", a.key, a.app ?? "") != (b.bundle, b.table, b.language ?? "", b.key, b.app ?? "") {
            return (a.bundle, a.table, a.language ?? "", a.key, a.app ?? "") < (b.bundle, b.table, b.language ?? "", b.key, b.app ?? "")
        }
        return (a.user ?? 0) < (b.user ?? 0)
    }
}
