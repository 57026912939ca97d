import Foundation
import LprojCatalog
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
    let socketPath: String?
    /// Whether to ask lprojd for images first.
    let sharesTables: Bool

    /// Lists the bundle at `path`.
    init(path: String, socketPath: String?, sharesTables: Bool) throws(TableReadError) {
        listing = try BundleListing(path: path)
        self.socketPath = socketPath
        self.sharesTables = sharesTables
    }

    /// The same source with the bundle listed again (localizations added or removed since).
    func relisted() -> TableSource {
        (try? TableSource(path: listing.path, socketPath: socketPath, sharesTables: sharesTables)) ?? self
    }

    /// `localization`'s tables: shared images through `connection` (or a
    /// connection of its own), else read from the files.
    func tables(of localization: String, on connection: DaemonConnection? = nil) -> [String: Table] {
        if sharesTables, let shared = shared(localization, on: connection) { return shared }
        return listing.tables(of: localization).tables
    }

    /// Whether the environment turns sharing off (`LPROJD_SHARED_TABLES=off`, `0`, `no`, `false`).
    static func sharingSwitchedOff(_ environment: [String: String]) -> Bool {
        guard let value = environment["LPROJD_SHARED_TABLES"]?.lowercased() else { return false }
        return ["off", "0", "no", "false"].contains(value)
    }

    /// The daemon's images of `localization`'s tables, mapped; nil when no
    /// daemon answers, it does not serve the bundle or shares nothing, or an
    /// image is refused (the files are read instead).
    private func shared(_ localization: String, on connection: DaemonConnection?) -> [String: Table]? {
        guard let connection = connection ?? (try? DaemonConnection(path: socketPath)),
              let reply = try? connection.images(Images(bundle: listing.path, languages: [localization]), timeout: .seconds(2)),
              !reply.tables.isEmpty else { return nil }
        var tables: [String: Table] = [:]
        for (image, table) in reply.tables {
            guard case .success(let table) = table else { return nil }
            tables[image.table] = table
        }
        return tables
    }

    /// One table's image as the daemon shares it now; nil when it cannot be had.
    func sharedTable(_ table: String, of localization: String, on connection: DaemonConnection) -> Table? {
        guard sharesTables, let reply = try? connection.images(Images(bundle: listing.path, languages: [localization], tables: [table])),
              reply.tables.count == 1, case .success(let shared) = reply.tables[0].table else { return nil }
        return shared
    }
}

/// One localization's tables: read when a view first needs them — by the
/// thread that needs them, others waiting for that read — then kept,
/// materialized, by every snapshot that shares this object.
final class LocalizationTables: Sendable {
    private let state: Mutex<[String: Table]?>
    private let load: (@Sendable () -> [String: Table])?

    /// Tables already at hand.
    init(_ tables: [String: Table]) {
        state = Mutex(tables.mapValues { $0.materialized() })
        load = nil
    }

    /// Tables `load` reads when first needed.
    init(loading load: @escaping @Sendable () -> [String: Table]) {
        state = Mutex(nil)
        self.load = load
    }

    /// The tables, read now if they were not yet.
    var tables: [String: Table] {
        state.withLock { state in
            if let state { return state }
            let loaded = (load?() ?? [:]).mapValues { $0.materialized() }
            state = loaded
            return loaded
        }
    }

    /// The tables when they have been read; nil while no view needed them.
    var loaded: [String: Table]? { state.withLock { $0 } }
}
