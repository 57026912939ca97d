#if canImport(Glibc)
import Glibc
#endif
import LprojCatalog
import LprojProtocol
import LprojTables

/// The handler of each op, in the order of docs/PROTOCOL.md.
extension Daemon {
    func hello(_ request: Hello, client: ClientConnection, id: RequestID) -> Answer<Hello.Reply> {
        guard request.protocol == Wire.version else {
            return .failure(ProtocolError(.unsupportedVersion, "this daemon speaks protocol \(Wire.version), not \(request.protocol)",
                                          field: "protocol"))
        }
        if let app = request.app, !Selections.isValidApp(app) {
            return .failure(ProtocolError(.invalidField, "an app id is letters, digits, '.', '-' and '_' (at most 200)", field: "app"))
        }
        client.name = request.client
        client.app = request.app
        return .reply(Hello.Reply(instance: instance, clock: clock, server: Self.server,
                                  language: request.app.flatMap { selections.languages[$0] }))
    }

    func subscribe(_ request: Subscribe, client: ClientConnection, id: RequestID) -> Answer<Subscribe.Reply> {
        guard !request.name.isEmpty else { return .failure(ProtocolError(.invalidField, "a subscription needs a name", field: "name")) }
        guard client.subscriptions[request.name] == nil else {
            return .failure(ProtocolError(.invalidField, "this connection already has a subscription \"\(request.name)\"", field: "name"))
        }
        guard client.subscriptions.count < 64 else { return .failure(ProtocolError(.busy, "at most 64 subscriptions per connection")) }
        var bundle: String?
        if let path = request.bundle {
            switch resolveBundle(path, field: "bundle") {
            case .success(let resolved): bundle = resolved
            case .failure(let error): return .failure(error)
            }
        }
        let subscription = Subscription(name: request.name, bundle: bundle, localizations: request.languages, tables: request.tables)
        client.subscriptions[request.name] = subscription
        var replay: [History.Published]?
        if let since = request.since, since.instance == instance {
            replay = history.events(after: since.sequence, current: sequence)
        }
        guard let replay else {
            let tables = request.wantsSnapshot
                ? tableSnapshots(bundle: bundle, localizations: request.languages, tables: request.tables) : nil
            return .reply(Subscribe.Reply(clock: clock, fresh: true, tables: tables))
        }
        // The reply first, then what was missed, in order.
        reply(Subscribe.Reply(clock: clock, fresh: false), to: id, on: client)
        for event in replay where subscription.matches(event.scope, app: client.app) {
            client.enqueueEvent(event.body, for: request.name)
        }
        return .later
    }

    func unsubscribe(_ request: Unsubscribe, client: ClientConnection, id: RequestID) -> Answer<EmptyReply> {
        guard client.subscriptions.removeValue(forKey: request.name) != nil else {
            return .failure(ProtocolError(.notFound, "no subscription \"\(request.name)\" on this connection", field: "name"))
        }
        return .reply(EmptyReply())
    }

    func snapshot(_ request: Snapshot, client: ClientConnection, id: RequestID) -> Answer<Snapshot.Reply> {
        var bundle: String?
        if let path = request.bundle {
            switch resolveBundle(path, field: "bundle") {
            case .success(let resolved): bundle = resolved
            case .failure(let error): return .failure(error)
            }
        }
        return .reply(Snapshot.Reply(clock: clock, tables: tableSnapshots(bundle: bundle, localizations: request.languages,
                                                                          tables: request.tables)))
    }

    func list(_ request: List, client: ClientConnection, id: RequestID) -> Answer<List.Reply> {
        // Keyed by bytes: names that differ only in Unicode normalization are different directories.
        var tables: [ExactString: [ExactString: [ExactString: TableSummary]]] = [:]
        for (address, table) in catalog.served {
            tables[ExactString(address.bundle), default: [:]][ExactString(address.localization), default: [:]][ExactString(address.table)] =
                TableSummary(name: address.table, entries: table.count, health: .ok)
        }
        for (file, record) in catalog.files where !record.diagnostics.isEmpty {
            guard let place = Catalog.classify(file.string) else { continue }
            let errors = record.diagnostics.filter { $0.severity == .error }.count
            let warnings = record.diagnostics.count - errors
            let localizations = place.localization.map { [$0] } ?? record.localizations(at: place)
            let (bundle, table) = (ExactString(place.bundle), ExactString(place.table))
            for localization in localizations.map(ExactString.init) {
                var summary = tables[bundle]?[localization]?[table] ?? TableSummary(name: place.table, entries: 0, health: .ok)
                summary.errors += errors
                summary.warnings += warnings
                if errors > 0 { summary.health = .invalid }
                tables[bundle, default: [:]][localization, default: [:]][table] = summary
            }
        }
        let bundles = tables.sorted { $0.key < $1.key }.map { bundle, localizations in
            BundleSummary(path: bundle.string, localizations: localizations.sorted { $0.key < $1.key }.map { name, tables in
                LocalizationSummary(name: name.string, tables: tables.sorted { $0.key < $1.key }.map(\.value))
            })
        }
        return .reply(List.Reply(bundles: bundles))
    }

    func lookup(_ request: Lookup, client: ClientConnection, id: RequestID) -> Answer<Lookup.Reply> {
        let path: String
        switch resolveBundle(request.bundle, field: "bundle") {
        case .success(let resolved): path = resolved
        case .failure(let error): return .failure(error)
        }
        guard let bundle = catalog.localizedBundle(path) else {
            return .failure(ProtocolError(.notFound, "no bundle at \(path) (no .lproj or .xcstrings with a valid table)", field: "bundle"))
        }
        let preferences = request.languages ?? []
        for (index, tag) in preferences.enumerated() where LanguageTag(tag) == nil {
            return .failure(ProtocolError(.invalidField, "'\(tag)' is not a language tag", field: "languages[\(index)]"))
        }
        let found = BundleLookup(key: request.key, table: request.table, in: bundle, preferences: preferences,
                                 defaultValue: request.default)
        let resolution = found.resolution
        return .reply(Lookup.Reply(text: resolution.text, source: found.sourceName, localization: found.localization,
                                   entry: resolution.entry.flatMap { $0.text == nil ? $0 : nil }, chain: found.searchList,
                                   steps: resolution.steps.map { .init(localization: $0.localization, table: $0.table, found: $0.found) }))
    }

    func selectLanguage(_ request: SelectLanguage, client: ClientConnection, id: RequestID) -> Answer<SelectLanguage.Reply> {
        guard access.maySelect(client.peer) else {
            return .failure(ProtocolError(.forbidden, "user \(client.peer.uid) may not select languages (see [Access] SelectUsers/SelectGroups)"))
        }
        guard Selections.isValidApp(request.app) else {
            return .failure(ProtocolError(.invalidField, "an app id is letters, digits, '.', '-' and '_' (at most 200)", field: "app"))
        }
        var language: String?
        if request.language != "system" {
            guard let tag = LanguageTag(request.language), !tag.isBase else {
                return .failure(ProtocolError(.invalidField, "'\(request.language)' is not a language tag (or \"system\")", field: "language"))
            }
            language = request.language
        }
        do throws(SelectionError) {
            try selections.select(language, for: request.app)
        } catch {
            log.error("cannot persist the language of \(request.app): \(error.message)")
            return .failure(ProtocolError(.internal, "cannot persist the selection: \(error.message)"))
        }
        log.info("\(request.app): language \(language ?? "system") (pid \(client.peer.pid))")
        // The reply first (with the clock of the event that follows it), then the event.
        let app = request.app
        reply(SelectLanguage.Reply(app: app, language: language, clock: Clock(instance: instance, sequence: sequence + 1)), to: id, on: client)
        publish(scope: .app(app)) { LanguageSelected(clock: $0, app: app, language: language) }
        return .later
    }

    func status(_ request: Status, client: ClientConnection, id: RequestID) -> Answer<Status.Reply> {
        var counters = self.counters
        counters["files-parsed"] = catalog.filesParsed
        counters["parse-failures"] = catalog.parseFailures
        let clients = self.clients.values.sorted { $0.connected < $1.connected }.map {
            Status.Client(name: $0.name, app: $0.app, pid: $0.peer.pid, subscriptions: $0.subscriptions.keys.sorted(),
                          queuedBytes: $0.queuedBytes)
        }
        let uptime = ContinuousClock.now - started
        return .reply(Status.Reply(server: Self.server, pid: getpid(), instance: instance, clock: clock,
                                   uptimeSeconds: Double(uptime.components.seconds) + Double(uptime.components.attoseconds) / 1e18,
                                   roots: roots, watches: watchCount, bundles: catalog.bundles.count, tables: catalog.served.count,
                                   clients: clients, counters: counters))
    }

    func sync(_ request: Sync, client: ClientConnection, id: RequestID) -> Answer<Sync.Reply> {
        sync(id, on: client)
        return .later
    }

    // MARK: - Helpers

    /// The matching served tables, sorted, as a snapshot.
    func tableSnapshots(bundle: String?, localizations: [String]?, tables: [String]?) -> [TableSnapshot] {
        let localizations = localizations.map(Set.init), tables = tables.map(Set.init)
        return catalog.served.keys.sorted().compactMap { address in
            guard bundle == nil || bundle == address.bundle, localizations?.contains(address.localization) ?? true,
                  tables?.contains(address.table) ?? true else { return nil }
            return TableSnapshot(bundle: address.bundle, language: address.localization, table: address.table,
                                 entries: catalog.served[address]!.entries)
        }
    }

    /// A bundle path from a request, made canonical (symlinks and `..`
    /// resolved) and checked to be under a root.
    func resolveBundle(_ path: String, field: String) -> Result<String, ProtocolError> {
        guard path.hasPrefix("/") else { return .failure(ProtocolError(.invalidField, "a bundle is an absolute path", field: field)) }
        guard !path.utf8.contains(0), path.utf8.count <= 4096 else {
            return .failure(ProtocolError(.invalidField, "not a usable path", field: field))
        }
        // Resolve the longest part that exists; what follows may not exist yet, but may not climb.
        var components = path.split(separator: "/").map(String.init)
        var rest: [String] = []
        var resolved: String?
        while resolved == nil {
            let prefix = "/" + components.joined(separator: "/")
            if let real = realpath(prefix, nil) {
                resolved = String(cString: real)
                free(real)
            } else if components.isEmpty {
                resolved = "/"
            } else {
                rest.insert(components.removeLast(), at: 0)
            }
        }
        if rest.contains("..") {
            return .failure(ProtocolError(.outsideRoots, "\(path) climbs out of a directory that does not exist", field: field))
        }
        let canonical = ([resolved!] + rest.filter { $0 != "." }).joined(separator: "/").replacingSlashes()
        guard roots.contains(where: { canonical == $0 || canonical.hasPrefix($0 + "/") }) else {
            return .failure(ProtocolError(.outsideRoots, "\(path) is outside every watched root", field: field))
        }
        return .success(canonical)
    }
}

private extension String {
    /// Collapses `//` (from joining onto `/`).
    func replacingSlashes() -> String {
        var result = ""
        var previousSlash = false
        for character in self {
            if character == "/" && previousSlash { continue }
            previousSlash = character == "/"
            result.append(character)
        }
        return result
    }
}
