import Foundation
import LprojBundles
import LprojFormats
import LprojProtocol
import LprojTables
import Synchronization

/// Where a `LiveBundle`'s tables come from when a view first needs a
/// localization: the images lprojd shares (`images`: mapped read-only,
/// nothing parsed, the same memory in every process of a service) when a
/// daemon serves the bundle and sharing is on; else, or when an image is
/// refused, the files, parsed here.
struct TableSource: Sendable {
    /// The bundle's files as last listed.
    let listing: BundleListing
    let transport: DaemonTransport
    /// Whether to ask lprojd for images first.
    let sharesTables: Bool
    /// What the source's copies share of how sharing went: the clock of the
    /// first images mapped, and whether the daemon is given a rest.
    let sharing: SharingState
    /// The directory of the daemon's published images to read tables from
    /// before their files (`PublishedImages`); nil: none.
    let publishedImages: String?

    /// Lists the bundle at `path`.
    init(path: String, transport: DaemonTransport, sharesTables: Bool) throws(TableReadError) {
        self.init(listing: try BundleListing(path: path), transport: transport, sharesTables: sharesTables, sharing: SharingState(),
                  publishedImages: nil)
    }

    /// The same bundle read without asking the daemon: what a bundle's
    /// first views read, so that a first lookup never waits on it — the
    /// tables lprojd published when sharing is on (no round trip, nothing
    /// parsed), else the files. The connection's first subscription then
    /// reads again what they read, from the images (it has no clock of
    /// them: its reply is fresh).
    func withoutAsking() -> TableSource {
        TableSource(listing: listing, transport: transport, sharesTables: false, sharing: sharing,
                    publishedImages: sharesTables ? transport.publishedImages() : nil)
    }

    private init(listing: BundleListing, transport: DaemonTransport, sharesTables: Bool, sharing: SharingState, publishedImages: String?) {
        self.listing = listing
        self.transport = transport
        self.sharesTables = sharesTables
        self.sharing = sharing
        self.publishedImages = publishedImages
    }

    /// The same source with the bundle listed again (localizations added or removed since).
    func relisted() -> TableSource {
        (try? BundleListing(path: listing.path)).map {
            TableSource(listing: $0, transport: transport, sharesTables: sharesTables, sharing: sharing, publishedImages: publishedImages)
        } ?? self
    }

    /// `localization`'s tables: shared images through `connection` (or a
    /// connection of its own), else read from the files.
    func tables(of localization: String, on connection: DaemonConnection? = nil) -> [String: Table] {
        tables(of: [localization], on: connection)[localization] ?? [:]
    }

    /// The tables of each of `localizations`, with one request for the
    /// images of them all; a localization the daemon gives no accepted
    /// image of is read from its files.
    func tables(of localizations: [String], on connection: DaemonConnection? = nil) -> [String: [String: Table]] {
        var result = sharesTables ? shared(localizations, on: connection) : [:]
        let published = publishedImages.flatMap(PublishedImages.init(path:))
        for localization in localizations where result[localization] == nil {
            result[localization] = listing.tables(of: localization, published: published.map { [listing, sharing] images in
                { name in
                    let table = images.table(bundle: listing.path, localization: localization, table: name)
                    if table != nil { sharing.publishedTablesRead.add(1, ordering: .relaxed) }
                    return table
                }
            }).tables
        }
        return result
    }

    /// Whether the environment turns sharing off (`LPROJD_SHARED_TABLES=off`, `0`, `no`, `false`).
    static func sharingSwitchedOff(_ environment: [String: String]) -> Bool {
        guard let value = environment["LPROJD_SHARED_TABLES"]?.lowercased() else { return false }
        return ["off", "0", "no", "false"].contains(value)
    }

    /// The daemon's images of the localizations' tables, mapped, by
    /// localization: none when no daemon answers or it does not serve the
    /// bundle; not a localization it has no table of, or one of whose
    /// images was refused (its files are read instead).
    private func shared(_ localizations: [String], on connection: DaemonConnection?) -> [String: [String: Table]] {
        if let quietUntil = sharing.quietUntil.withLock({ $0 }), ContinuousClock.now < quietUntil { return [:] }
        guard let connection = connection ?? (try? transport.connect(nil)) else { return [:] }
        let reply: (clock: Clock, tables: [(image: ImageSummary, table: Result<Table, TableImage.Refusal>)])
        do {
            reply = try connection.images(Images(bundle: listing.path, languages: localizations), timeout: SharingState.timeout)
        } catch {
            // A daemon that does not answer in time is not asked again for a while: views read files meanwhile.
            if case .timedOut = error { sharing.quietUntil.withLock { $0 = .now + SharingState.rest } }
            return [:]
        }
        var tables: [String: [String: Table]] = [:]
        var refused = Set<String>()
        for (image, table) in reply.tables {
            switch table {
            case .success(let table): tables[image.language, default: [:]][image.table] = table
            case .failure: refused.insert(image.language)
            }
        }
        for localization in refused { tables[localization] = nil }
        if !tables.isEmpty { sharing.firstClock.withLock { if $0 == nil { $0 = reply.clock } } }
        return tables
    }

    /// One table's image as the daemon shares it now; nil when it cannot be had.
    func sharedTable(_ table: String, of localization: String, on connection: DaemonConnection) -> Table? {
        guard sharesTables, let reply = try? connection.images(Images(bundle: listing.path, languages: [localization], tables: [table])),
              reply.tables.count == 1, case .success(let shared) = reply.tables[0].table else { return nil }
        return shared
    }
}

/// How sharing went for a source (and its relisted copies).
final class SharingState: Sendable {
    /// The daemon's clock when images were first mapped: a subscription
    /// starts from it, so that what was mapped before it is not read again.
    let firstClock = Mutex<Clock?>(nil)
    /// Until when the daemon is not asked for images (it did not answer in time).
    let quietUntil = Mutex<ContinuousClock.Instant?>(nil)
    /// How many tables were read from the daemon's published images.
    let publishedTablesRead = Atomic<Int>(0)
    /// How long a view waits for images before it reads the files.
    static let timeout = Duration.seconds(2)
    /// How long the daemon is then left alone.
    static let rest = Duration.seconds(10)
}

/// One localization's tables: read when a view first needs them — by the
/// thread that needs them, others waiting for that read — then kept by
/// every snapshot that shares this object. A table is `materialized()`
/// (its strings made once, so a hit allocates nothing) the first time a
/// view resolves a name to it: a table the search list never answers from
/// (the development localization's, behind a complete translation) stays
/// as read.
final class LocalizationTables: Sendable {
    private struct State {
        var tables: [String: Table]?
        var materialized: [String: Table] = [:]
    }

    private let state: Mutex<State>
    /// Reads the tables of several localizations at once (the source's); nil for tables at hand.
    private let read: (@Sendable ([String]) -> [String: [String: Table]])?
    let localization: String

    /// Tables already at hand.
    init(_ localization: String, _ tables: [String: Table]) {
        state = Mutex(State(tables: tables))
        read = nil
        self.localization = localization
    }

    /// Tables `source` reads when first needed.
    init(_ localization: String, source: TableSource) {
        state = Mutex(State())
        read = { source.tables(of: $0) }
        self.localization = localization
    }

    /// The tables, read now if they were not yet.
    var tables: [String: Table] {
        if let loaded { return loaded }
        Self.read([self])
        return loaded ?? [:]
    }

    /// The tables when they have been read; nil while no view needed them.
    var loaded: [String: Table]? { state.withLock { $0.tables } }

    /// The table `name`, materialized (once).
    func materialized(_ name: String) -> Table? {
        state.withLock { state in
            if let made = state.materialized[name] { return made }
            guard let table = state.tables?[name] else { return nil }
            let made = table.materialized()
            state.materialized[name] = made
            state.tables?[name] = made
            return made
        }
    }

    /// Reads every localization of `list` not read yet, those of one source
    /// with one request (one round trip to lprojd for a view's whole chain).
    static func read(_ list: [LocalizationTables]) {
        let unread = list.filter { $0.read != nil && $0.loaded == nil }
        guard let read = unread.first?.read else { return }
        let found = read(unread.map(\.localization))
        for tables in unread {
            tables.state.withLock { state in
                if state.tables == nil { state.tables = found[tables.localization] ?? [:] }
            }
        }
    }
}
