import LprojProtocol

/// A connection's standing request for events: a name (events carry it as
/// `sub`) and optional filters on bundle, localizations and tables.
/// Localizations are matched as named on disk (`zh-Hant`), not as preferences.
struct Subscription {
    let name: String
    let bundle: String?
    let localizations: Set<String>?
    let tables: Set<String>?
    /// `{"sub":"name",`: the start of every event line it gets.
    let prefix: [UInt8]
    /// Events were dropped because the connection's queue was full: it is
    /// owed a `resync` once the queue drains.
    var lagging = false

    init(name: String, bundle: String?, localizations: [String]?, tables: [String]?) {
        self.name = name
        self.bundle = bundle
        self.localizations = localizations.map(Set.init)
        self.tables = tables.map(Set.init)
        prefix = Wire.eventPrefix(subscription: name)
    }

    /// Whether an event about `scope` goes to this subscription of a connection of `app`.
    func matches(_ scope: Scope, app: String?) -> Bool {
        switch scope {
        case .everyone:
            return true
        case .app(let selected):
            // An app hears its own selections; a tool (no app in its hello) hears every app's.
            return app == nil || selected == app
        case .bundle(let path):
            return bundle == nil || bundle == path
        case .localization(let path, let localization):
            return (bundle == nil || bundle == path) && (localizations?.contains(localization) ?? true)
        case .table(let path, let localization, let table):
            guard bundle == nil || bundle == path, tables?.contains(table) ?? true else { return false }
            guard let localizations else { return true }
            return localization.map(localizations.contains) ?? true
        }
    }
}
