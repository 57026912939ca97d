import Foundation
import CoreFoundation   // subclassing Bundle needs the types its overridable members use
import LprojLanguages
@_spi(LprojInternals) import LprojPaths
import LprojTables
import Synchronization

/// The state behind a `LiveBundle`, shared with its connection thread: the
/// current snapshot (swapped whole, under a lock held only to swap or to
/// take a reference; read without it by threads holding it, `ThreadHolds`,
/// each through its own copies of the views, `HeldSnapshot`), the
/// observers, the misses.
final class LiveCore: Sendable {
    private let current: Mutex<LiveSnapshot>
    /// The address of `current`'s snapshot: written under the lock, read
    /// without it. A thread compares what it holds (`ThreadHolds`) with it —
    /// the held reference keeps that address from being reused.
    private let publishedSnapshot: Atomic<UInt>
    /// `ByteHash.seed`, kept here: a request reads it without the global's lazy-initialization check.
    private let hashSeed = ByteHash.seed
    private let observers = ObserverList<LiveBundle.Change>()
    let connected = Mutex(false)
    private let connectionObservers = ObserverList<Bool>()
    let notificationObject = Mutex<WeakBox?>(nil)
    private let foundation = Mutex<Bundle?>(nil)
    let choice: LanguageChoice
    let environment: [String: String]
    /// Serialises swaps (the connection thread and `setLanguage` callers), not reads.
    private let swapping = Mutex(())
    /// Where localizations not read yet come from (listed again on a resync).
    let source: Mutex<TableSource>

    init(snapshot: LiveSnapshot, source: TableSource, choice: LanguageChoice, environment: [String: String]) {
        current = Mutex(snapshot)
        publishedSnapshot = Atomic(Self.address(of: snapshot))
        self.source = Mutex(source)
        self.choice = choice
        self.environment = environment
        systemPreferences = SystemLanguages.preferences(environment: environment)
    }

    /// Each localization of `source`, to be read when a view first needs it.
    static func localizations(of source: TableSource) -> [String: LocalizationTables] {
        Dictionary(uniqueKeysWithValues: source.listing.localizations.map { localization in
            (localization, LocalizationTables(localization, source: source))
        })
    }

    /// Everything read again: the bundle listed anew; the localizations read
    /// before are read again now (through `connection` when given), the
    /// others when a view needs them. What a client does when it cannot know
    /// what it missed.
    func reload(on connection: DaemonConnection?) {
        let fresh = source.withLock { source in
            source = source.relisted()
            return source
        }
        replaceLocalizations { old in
            var tables = Self.localizations(of: fresh)
            // Those a view uses are read now, so the views made next see them as they are.
            let used = tables.keys.filter { old[$0]?.loaded != nil }
            for (localization, read) in fresh.tables(of: used, on: connection) { tables[localization] = LocalizationTables(localization, read) }
            return tables
        }
    }

    /// The snapshot to read: a reference taken under the lock, read without it.
    var snapshot: LiveSnapshot { current.withLock { $0 } }

    /// The active view: this thread's copy of `snapshot.active`, without the
    /// lock while this thread holds the current snapshot.
    var active: LiveBundle.Localization { withHeld { $0.active } }

    /// `body` on what this thread holds of the current snapshot: the hold
    /// kept while the snapshot is still the one published (no lock, no
    /// reference count), else a new one of the snapshot read under the lock,
    /// held from then on. `body` must not read this bundle again on this
    /// thread: that could replace the hold, the only reference it is given.
    @inline(__always)
    private func withHeld<Result>(_ body: (HeldSnapshot) -> Result) -> Result {
        let core = Unmanaged.passUnretained(self).toOpaque()
        if let held = ThreadHolds.held(for: core, published: publishedSnapshot.load(ordering: .acquiring)) {
            return held._withUnsafeGuaranteedRef(body)
        }
        let held = HeldSnapshot(snapshot, owner: ThreadHolds.token, replacing: ThreadHolds.anyHeld(for: core)?.takeUnretainedValue())
        ThreadHolds.hold(held, for: core)
        return body(held)
    }

    /// The view for an `Accept-Language` header, made once per header while the snapshot lasts.
    func view(acceptLanguage header: String) -> LiveBundle.Localization {
        // Nothing captured: a captured header is copied, a retain and a release a request.
        view(for: header) { snapshot, header in snapshot.view(acceptLanguage: header) }
    }

    /// The view for a list of preferences, made once per list while the snapshot lasts.
    func view(preferences: [String]) -> LiveBundle.Localization {
        view(for: RequestViews.key(preferences: preferences)) { snapshot, _ in snapshot.view(preferences: preferences) }
    }

    /// How many request views the current snapshot has made (for tests).
    var cachedViewCount: Int { snapshot.cachedViewCount }

    /// How many headers this thread keeps copies of for the current snapshot (for tests).
    var heldViewCount: Int { withHeld { $0.keptCount } }

    /// How many tables this thread has copies of for the current snapshot (for tests).
    var heldTableCount: Int { withHeld { $0.tableCount } }

    /// This thread's copy of the view for `key`: from its hold, else the
    /// snapshot's view (made by `make` if no thread asked for `key` before) copied.
    private func view(for key: String, make: (LiveSnapshot, String) -> LiveBundle.Localization) -> LiveBundle.Localization {
        let hash = RequestViews.hash(key, seed: hashSeed)
        return withHeld { held in
            if let copy = held.view(for: key, hash: hash) { return copy }
            return held.keep(held.snapshot.view(forKey: key, make: make), for: key, hash: hash)
        }
    }

    private static func address(of object: AnyObject) -> UInt {
        UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
    }

    /// Swaps `snapshot` in, with no views made from it yet.
    private func replace(with snapshot: LiveSnapshot) {
        current.withLock { current in
            current = snapshot
            publishedSnapshot.store(Self.address(of: snapshot), ordering: .releasing)
        }
    }

    /// The languages `environment` prefers (it never changes: read once, not on every save).
    let systemPreferences: [String]

    /// Makes a new snapshot from the current one and swaps it in; one change
    /// event when something a reader can see changed.
    func update(_ make: (LiveSnapshot) -> (LiveSnapshot, changedKeys: [String: Set<String>])?) {
        let change: LiveBundle.Change? = swapping.withLock { _ in
            let old = snapshot
            guard let (new, changedKeys) = make(old) else { return nil }
            guard changedKeys.contains(where: { !$0.value.isEmpty }) || new.language != old.language
                    || new.selection != old.selection || new.searchList != old.searchList else {
                replace(with: new)
                return nil
            }
            replace(with: new)
            return LiveBundle.Change(oldLanguage: old.language, newLanguage: new.language, changedKeys: changedKeys)
        }
        if let change { announce(change) }
    }

    /// Selects `language` for this process now (nil: the system's).
    func select(_ language: String?) {
        select(language, announced: false, unless: { false })
    }

    /// Selects and persists `language`, as the daemon announced it, unless
    /// `superseded` says this process has selected one since (asked under
    /// the lock every selection takes: a local selection queued before it is
    /// asked is never undone by an older announcement).
    func selectAnnounced(_ language: String?, unless superseded: () -> Bool) {
        select(language, announced: true, unless: superseded)
    }

    private func select(_ language: String?, announced: Bool, unless superseded: () -> Bool) {
        let preferences = systemPreferences
        update { old in
            if superseded() { return nil }
            if announced { try? choice.save(language) }
            return old.selection == language ? nil : (old.selecting(language, systemPreferences: preferences), [:])
        }
    }

    /// Replaces every table; the change lists the keys that differ.
    func replaceTables(_ tables: [String: [String: Table]]) {
        replaceLocalizations { _ in Dictionary(uniqueKeysWithValues: tables.map { ($0.key, LocalizationTables($0.key, $0.value)) }) }
    }

    /// Replaces every localization with what `make` gives for the current
    /// ones; the change lists the keys that differ in localizations read.
    func replaceLocalizations(_ make: ([String: LocalizationTables]) -> [String: LocalizationTables]) {
        let preferences = systemPreferences
        update { old in
            let tables = make(old.tables)
            let changed = Self.changedKeys(from: old.tables, to: tables)
            if changed.isEmpty && Set(old.tables.keys) == Set(tables.keys) && old.tables.allSatisfy({ tables[$0.key] === $0.value }) { return nil }
            return (old.replacing(tables: tables, systemPreferences: preferences), changed)
        }
    }

    func addObserver(_ handler: @escaping @Sendable (LiveBundle.Change) -> Void) -> ObservationToken {
        observers.add(handler)
    }

    /// Records whether the daemon is followed; observers hear of every flip.
    func setConnected(_ value: Bool) {
        let flipped = connected.withLock { connected -> Bool in
            defer { connected = value }
            return connected != value
        }
        guard flipped else { return }
        connectionObservers.announce(value)
    }

    func addConnectionObserver(_ handler: @escaping @Sendable (Bool) -> Void) -> ObservationToken {
        connectionObservers.add(handler)
    }

    /// A lookup as `Bundle.localizedString(forKey:value:table:)` answers it.
    @inline(__always)
    func localizedString(forKey key: String, value: String?, table: String?) -> String {
        // The active view's rule (`Localization.localizedString`), its hit inlined here: the hot path of every app.
        // The entry is looked up once: what is not plain text goes on as it was found (a miss is recorded once).
        withHeld { held in
            let tableName = LiveBundle.Localization.tableName(table)
            let entry = held.active.entry(forKey: key, table: tableName)
            if let entry, let text = entry.text { return text }
            return held.active.notPlain(entry, key, value: value, table: tableName)
        }
    }

    func foundationBundle(path: String) -> Bundle {
        foundation.withLock { bundle in
            if let bundle { return bundle }
            let made: Bundle = LiveFoundationBundle(core: self, path: path) ?? Bundle.main
            bundle = made
            return made
        }
    }

    private func announce(_ change: LiveBundle.Change) {
        observers.announce(change)
        let object = notificationObject.withLock { $0?.value }
        NotificationCenter.default.post(name: LiveBundle.didChangeNotification, object: object, userInfo: ["change": change])
    }

    /// Keys whose entries differ between two sets of localizations, by
    /// table name: in those read on both sides, and in all of one that
    /// came or went read (one never read was never seen).
    static func changedKeys(from old: [String: LocalizationTables], to new: [String: LocalizationTables]) -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for localization in Set(old.keys).union(new.keys) where old[localization] !== new[localization] {
            let oldSide = old[localization], newSide = new[localization]
            guard let before = oldSide == nil ? [:] : oldSide?.loaded, let after = newSide == nil ? [:] : newSide?.loaded else { continue }
            for name in Set(before.keys).union(after.keys) {
                let diff = TableDiff(from: before[name] ?? Table(), to: after[name] ?? Table())
                let keys = diff.keys
                if !keys.isEmpty { result[name, default: []].formUnion(keys) }
            }
        }
        return result
    }
}

/// `LiveBundle.foundationBundle`: a `Bundle` whose lookups are the live bundle's.
final class LiveFoundationBundle: Bundle, @unchecked Sendable {
    private let core: LiveCore

    init?(core: LiveCore, path: String) {
        self.core = core
        super.init(path: path)
    }

    override func localizedString(forKey key: String, value: String?, table tableName: String?) -> String {
        core.localizedString(forKey: key, value: value, table: tableName)
    }

    // Resources follow the active language too.

    override func url(forResource name: String?, withExtension ext: String?) -> URL? {
        url(forResource: name, withExtension: ext, subdirectory: nil)
    }

    override func url(forResource name: String?, withExtension ext: String?, subdirectory subpath: String?) -> URL? {
        guard let name else { return nil }
        return core.snapshot.active.url(forResource: name, withExtension: ext, subdirectory: subpath)
    }

    override func path(forResource name: String?, ofType ext: String?) -> String? {
        url(forResource: name, withExtension: ext, subdirectory: nil)?.path
    }

    override func path(forResource name: String?, ofType ext: String?, inDirectory subpath: String?) -> String? {
        url(forResource: name, withExtension: ext, subdirectory: subpath)?.path
    }

    override var preferredLocalizations: [String] {
        core.snapshot.active.searchList.filter { $0 != "Base" }
    }

    override var localizations: [String] {
        core.snapshot.tables.keys.sorted()
    }
}
