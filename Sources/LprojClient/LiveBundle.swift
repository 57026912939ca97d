import Foundation
import LprojBundles
import LprojLanguages
import LprojPaths
import LprojProtocol
import LprojTables
import Synchronization

/// A bundle of localized tables whose language and contents change live.
///
/// It starts from the files on disk, synchronously — no daemon needed —
/// then connects to lprojd in the background, subscribes, and applies what
/// the daemon pushes: edited tables, and the language selected for its app
/// (by `setLanguage` in any process of the app, or `lprojctl select`).
/// Lookups from any thread read an immutable snapshot that is swapped
/// whole: they never block on I/O and never see half of a change. Each swap
/// is one `Change`, given to observers, to `changes`, and posted as
/// `LiveBundle.didChangeNotification`.
///
/// ```swift
/// let bundle = try LiveBundle(path: "/srv/app/Resources", app: "com.example.app")
/// bundle.localizedString(forKey: "home_title", value: nil, table: nil)
/// bundle.localizedString(format: "item_count", 5)
/// bundle.setLanguage("zh-Hant")          // "system" to follow the environment
/// ```
public final class LiveBundle: Sendable {
    /// One swap of the active state: the language before and after, and the keys that changed, by table.
    public struct Change: Sendable, Equatable {
        public var oldLanguage: String?
        public var newLanguage: String?
        /// Table name → keys whose entry changed in some localization (empty for a language switch alone).
        public var changedKeys: [String: Set<String>]

        /// Whether the active language changed.
        public var languageChanged: Bool { oldLanguage != newLanguage }
    }

    /// How a bundle behaves; the defaults suit an app.
    public struct Options: Sendable {
        /// The development localization, used as named (default: the bundle's own, as CFBundle decides it:
        /// its Info.plist's `CFBundleDevelopmentRegion`, else `en`, each as Apple's matching finds it; `DevelopmentLocalization`).
        public var development: String?
        /// Look a key missing from the chosen table up in the development localization too.
        public var developmentFallback = false
        /// Keep a record of missed keys (`misses`), for developer tools
        /// (on whenever misses are reported).
        public var recordsMisses = false
        /// Report missed keys to lprojd (`lprojctl misses`), at most once a
        /// second: keys, tables and languages, never values or arguments.
        /// On unless this is false or the environment has `LPROJD_MISSES=off`
        /// (or `0`, `no`, `false`).
        public var reportsMisses = true
        /// Connect to lprojd (default); false: the files on disk only.
        public var connects = true
        /// Map the tables lprojd shares (read-only images it parsed once,
        /// the same memory in every process that maps them) instead of
        /// parsing the files, when a daemon serves the bundle. On unless
        /// this is false, `connects` is false, or the environment has
        /// `LPROJD_SHARED_TABLES=off` (or `0`, `no`, `false`). An image the
        /// daemon cannot give, or that is damaged, is read from the file.
        public var sharesTables = true
        /// The daemon's socket (default: the rule in docs/PROTOCOL.md).
        public var socketPath: String?
        /// How lprojd is reached (default: its socket, `socketPath`); a test
        /// or an embedding process may serve a daemon core itself.
        public var transport: DaemonTransport?
        /// The environment system preferences and the local choice file come from (default: the process's).
        public var environment: [String: String]?

        public init() {}
    }


    /// Layout direction of a language.
    public enum LayoutDirection: Sendable {
        case leftToRight
        case rightToLeft
    }

    /// Why a bundle could not be made.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Posted (object: the bundle, userInfo["change"]: the `Change`) after every swap.
    public static let didChangeNotification = Notification.Name("LiveBundleDidChange")

    /// The bundle directory: absolute, as named (symbolic links kept; `..` resolved).
    public let path: String
    /// The app whose selected language the bundle follows.
    public let app: String?
    let core: LiveCore
    private let connection: LiveConnection?

    /// Lists the bundle at `path` and reads the localizations the active
    /// language needs (the others when a view first needs them) from the
    /// files, or from the images a running lprojd published. Then (unless
    /// `options.connects` is false) follows lprojd in the background: once
    /// connected, what was read is read again from lprojd's shared images
    /// when it serves the bundle, and so is what views need later.
    public convenience init(path: String, app: String? = nil, options: Options = Options()) throws(Failure) {
        try self.init(path: path, app: app, options: options, developmentRegion: nil)
    }

    /// As `init(path:app:options:)`; `developmentRegion` stands for the
    /// Info.plist's region when the bundle has none on disk (a Foundation
    /// bundle's own, SwiftPM's `defaultLocalization`).
    init(path: String, app: String?, options: Options, developmentRegion: String?) throws(Failure) {
        let absolute = PathText.absolute(path)
        // Links kept (a deploy's `current/Resources` is followed through its swaps), `..` resolved.
        var canonical = PathText.tidy(absolute)
        if canonical.split(separator: "/").contains(".."), let resolved = realpath(absolute, nil) {
            canonical = String(cString: resolved)
            free(resolved)
        }
        let environment = options.environment ?? ProcessInfo.processInfo.environment
        let source: TableSource
        do {
            source = try TableSource(path: canonical, transport: options.transport ?? .socket(options.socketPath),
                                     sharesTables: options.connects && options.sharesTables && !TableSource.sharingSwitchedOff(environment))
        } catch {
            throw Failure(description: "cannot read bundle \(error)")
        }
        // The connection's thread starts here, once nothing can fail, well before the first answer (`LiveConnection.Runner`).
        let runner = options.connects ? LiveConnection.Runner() : nil
        self.path = canonical
        self.app = app
        let choice = LanguageChoice(app: app, environment: environment)
        let reports = options.connects && options.reportsMisses && !Self.missesSwitchedOff(environment)
        let misses = options.recordsMisses || reports ? MissLog() : nil
        // The first views never ask lprojd: parsing what a view needs costs less than a round trip to a daemon that may be
        // busy with every other process starting at once, and mapping what it published costs less than parsing. Connected,
        // the bundle reads what they read again, from the images (`LiveConnection`: its first subscription is fresh).
        core = LiveCore(snapshot: LiveSnapshot(tables: LiveCore.localizations(of: source.withoutAsking()), selection: choice.load(),
                                               systemPreferences: SystemLanguages.preferences(environment: environment),
                                               development: options.development.map(DevelopmentChoice.named)
                                                   ?? .bundle(region: DevelopmentLocalization.region(ofBundleAt: canonical) ?? developmentRegion),
                                               developmentFallback: options.developmentFallback,
                                               bundlePath: canonical, misses: misses),
                        source: source, choice: choice, environment: environment)
        if options.connects {
            connection = LiveConnection(core: core, bundle: canonical, app: app, transport: options.transport ?? .socket(options.socketPath),
                                        misses: reports ? misses : nil)
            if let connection, let runner { connection.start(on: runner) }
        } else {
            connection = nil
        }
        core.notificationObject.withLock { $0 = WeakBox(self) }
    }

    /// A `Foundation.Bundle` on disk — an app's, or a SwiftPM package's
    /// resource bundle (`Bundle.module`, `<Package>_<Target>.resources`) —
    /// followed live. Its development localization is the bundle's
    /// (`CFBundleDevelopmentRegion`, SwiftPM's `defaultLocalization`) unless
    /// `options.development` names one.
    public convenience init(bundle: Bundle, app: String? = nil, options: Options = Options()) throws(Failure) {
        try self.init(path: bundle.bundlePath, app: app, options: options, developmentRegion: Self.developmentRegion(of: bundle))
    }

    deinit {
        connection?.stop()
    }

    /// The active view: the tables as they are now, through the active
    /// language's chain. Build a screen or a message from one view.
    public var current: Localization { core.active }

    /// A view for one request: its `Accept-Language` header (RFC 9110:
    /// weights, `q=0` refusals, `*`, any case, ties in header order, junk
    /// ignored; an empty or useless header gives the development
    /// localization), matched as Apple's bundles match. Resolving a header
    /// is cached while the bundle's state lasts (at most 1,024 headers); a
    /// cached header costs a lookup without a lock and allocates nothing.
    /// The view is this thread's own (`current` too): another thread gets
    /// an equal one, so that threads do not write each other's cache lines;
    /// passed to another thread it answers the same. Each thread keeps a
    /// reference to the state it read last and its views: after a save,
    /// they are released at its next read of the bundle, or when it ends.
    public func localization(acceptLanguage header: String) -> Localization {
        core.view(acceptLanguage: header)
    }

    /// A view for these preferred languages, most preferred first (cached like a header).
    public func localization(preferences: [String]) -> Localization {
        core.view(preferences: preferences)
    }

    /// The file `name.ext` for the active language: see `Localization.url(forResource:withExtension:subdirectory:)`.
    public func url(forResource name: String, withExtension ext: String?, subdirectory: String? = nil) -> URL? {
        current.url(forResource: name, withExtension: ext, subdirectory: subdirectory)
    }

    /// The active localization (`zh-Hant`), nil when the bundle has none.
    public var language: String? { core.snapshot.language }

    /// The language selected for the app; nil when it follows the system.
    public var selectedLanguage: String? { core.snapshot.selection }

    /// The localizations searched, best first.
    public var searchList: [String] { core.snapshot.searchList }

    /// The localizations the bundle has (those with a table file, read or not).
    public var localizations: [String] { core.snapshot.tables.keys.sorted() }

    /// Whether the bundle is following a daemon right now.
    public var isConnected: Bool { core.connected.withLock { $0 } }

    /// The text of `key` in `table` (nil: `Localizable`) as Apple's bundles
    /// resolve it; a missing key gives `value` when it is not empty, else
    /// the key — never an empty string. A rule (plural) gives its `other` form unformatted.
    public func localizedString(forKey key: String, value: String?, table: String?) -> String {
        core.localizedString(forKey: key, value: value, table: table)
    }

    /// The entry of `key` formatted with `arguments` in the active language:
    /// plural rules chosen by the arguments, positional and `%#@var@`
    /// substitutions, numbers written for the language.
    public func localizedString(format key: String, table: String? = nil, _ arguments: any CVarArg...) -> String {
        current.localizedString(format: key, table: table, arguments: arguments)
    }

    /// Selects `language` (a tag) for the app, or `"system"` to follow the
    /// environment again. Through lprojd when it runs, so every process of
    /// the app follows; persisted locally as well, so it also holds with
    /// no daemon. Takes effect in this process before it returns.
    public func setLanguage(_ language: String) throws(Failure) {
        let selection: String?
        switch LanguageSelection.language(language) {
        case .success(let selected): selection = selected
        case .failure(let problem): throw Failure(description: problem.message)
        }
        do {
            try core.choice.save(selection)
        } catch {
            throw Failure(description: "cannot persist the language: \(error)")
        }
        // Queued before it is made here: an announcement of an older selection that comes meanwhile is then not applied.
        if let app, let connection {
            connection.publishSelection(app: app, language: language)
        }
        core.select(selection)
    }

    /// Calls `handler` (on the thread that made the change) after every swap,
    /// until the token is cancelled or released.
    public func observe(_ handler: @escaping @Sendable (Change) -> Void) -> ObservationToken {
        core.addObserver(handler)
    }

    /// Calls `handler` at once with whether the bundle follows lprojd now,
    /// then with true when it starts following it and false when it loses
    /// it (it keeps serving the last state meanwhile) — so a bundle that
    /// connected before the call is not missed. The last value given is
    /// always the state.
    public func observeConnection(_ handler: @escaping @Sendable (Bool) -> Void) -> ObservationToken {
        // Registered first: a flip meanwhile is heard too, and the value read after it is the newer one.
        let token = core.addConnectionObserver(handler)
        handler(isConnected)
        return token
    }

    /// Every change from now on, as an async sequence.
    public var changes: AsyncStream<Change> {
        AsyncStream { continuation in
            let token = core.addObserver { continuation.yield($0) }
            continuation.onTermination = { _ in token.cancel() }
        }
    }

    /// A `Foundation.Bundle` whose `localizedString(forKey:value:table:)` is
    /// this bundle's, for existing `NSLocalizedString(_:bundle:comment:)` call sites.
    public var foundationBundle: Bundle {
        core.foundationBundle(path: path)
    }

    /// The locale of the active language, for formatting dates and numbers.
    public var locale: Locale { core.snapshot.formatter.locale }

    /// Right-to-left for Arabic, Hebrew, Persian, Urdu…; left-to-right otherwise.
    public var layoutDirection: LayoutDirection { current.layoutDirection }

    /// `date` written for the active language.
    public func string(from date: Date, dateStyle: DateFormatter.Style = .medium, timeStyle: DateFormatter.Style = .none,
                       timeZone: TimeZone = .current) -> String {
        current.string(from: date, dateStyle: dateStyle, timeStyle: timeStyle, timeZone: timeZone)
    }

    /// `number` written for the active language (`1,234.5`, `1.234,5`, `١٬٢٣٤٫٥`).
    public func string(from number: Double, style: NumberFormatter.Style = .decimal) -> String {
        current.string(from: number, style: style)
    }

    /// Keys looked up and missed, with how often (when misses are recorded or reported).
    public var misses: [Miss: Int] { core.snapshot.misses?.all ?? [:] }

    /// Whether the environment turns miss reports off (`LPROJD_MISSES=off`, `0`, `no`, `false`).
    static func missesSwitchedOff(_ environment: [String: String]) -> Bool {
        guard let value = environment["LPROJD_MISSES"]?.lowercased() else { return false }
        return ["off", "0", "no", "false"].contains(value)
    }

    /// Stops following the daemon (the last state stays served). Also done when the bundle is released.
    public func close() {
        connection?.stop()
    }
}

extension LiveBundle {
    /// A Foundation bundle's development region, from its Info.plist (`CFBundleDevelopmentRegion`), when it names one.
    static func developmentRegion(of bundle: Bundle) -> String? {
        if let region = bundle.infoDictionary?["CFBundleDevelopmentRegion"] as? String, !region.isEmpty { return region }
        return bundle.developmentLocalization
    }
}

/// Keeps an observation alive; `cancel()` (or releasing it) ends it.
public final class ObservationToken: Sendable {
    private let cancellation: Mutex<(@Sendable () -> Void)?>

    init(_ cancel: @escaping @Sendable () -> Void) {
        cancellation = Mutex(cancel)
    }

    deinit { cancel() }

    public func cancel() {
        let cancel = cancellation.withLock { value -> (@Sendable () -> Void)? in
            defer { value = nil }
            return value
        }
        cancel?()
    }
}

struct WeakBox: @unchecked Sendable {
    weak var value: LiveBundle?
    init(_ value: LiveBundle) { self.value = value }
}
