#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LprojBundles
import LprojLanguages
import LprojPaths
import LprojProtocol
import LprojTables

/// The handler of each op, in the order of docs/PROTOCOL.md.
extension DaemonCore {
    func hello(_ request: Hello, session: Session, id: RequestID) -> Answer<Hello.Reply> {
        guard request.protocol == Wire.version else {
            return .failure(ProtocolError(.unsupportedVersion, "this daemon speaks protocol \(Wire.version), not \(request.protocol)",
                                          field: "protocol"))
        }
        if let app = request.app, let problem = LanguageSelection.problem(withApp: app) {
            return .failure(ProtocolError(.invalidField, problem, field: "app"))
        }
        session.name = request.client
        session.app = request.app
        if let app = request.app { selections.use(app) }
        return .reply(Hello.Reply(instance: publisher.instance, clock: clock, server: Self.server,
                                  language: request.app.flatMap { selections.languages[$0] }, features: ["generations"]))
    }

    func subscribe(_ request: Subscribe, session: Session, id: RequestID) -> Answer<Subscribe.Reply> {
        guard !request.name.isEmpty, request.name.utf8.count <= FilterLimits.maximumNameBytes else {
            return .failure(ProtocolError(.invalidField, "a subscription needs a name of 1 to \(FilterLimits.maximumNameBytes) bytes", field: "name"))
        }
        guard session.subscriptions[request.name] == nil else {
            return .failure(ProtocolError(.invalidField, "this connection already has a subscription \"\(request.name)\"", field: "name"))
        }
        let bundle: String?
        switch filter(bundle: request.bundle, languages: request.languages, tables: request.tables) {
        case .success(let resolved): bundle = resolved
        case .failure(let error): return .failure(error)
        }
        if let bundle, tables.hasBundle(bundle), let refusal = refusal(reading: bundle, by: session) { return .failure(refusal) }
        let limits = FilterLimits(configuration)
        let subscription = Subscription(name: request.name, bundle: bundle, localizations: request.languages, tables: request.tables,
                                        diagnostics: request.diagnostics ?? false, misses: request.misses ?? false,
                                        images: request.images == true && configuration.limits.sharedImages > 0,
                                        acknowledges: request.acknowledges == true, generations: request.generations == true,
                                        shared: sharedFilters)
        if let problem = limits.problem(adding: subscription, to: session) { return .failure(problem) }
        session.subscriptions[request.name] = subscription
        let generation = bundle.flatMap { generations.generation(of: $0)?.number }
        guard let replay = publisher.missed(since: request.since) else {
            guard reply(Subscribe.Reply(clock: clock, fresh: true, tables: request.wantsSnapshot ? tableSnapshots(subscription, for: session) : nil,
                                        generation: generation),
                        to: id, on: session) else {
                // Refused (too large): no subscription was made.
                session.subscriptions[request.name] = nil
                return .later
            }
            sendCurrentDiagnostics(to: subscription, of: session)
            sendCurrentGeneration(to: subscription, of: session)
            return .later
        }
        // The reply first, then what was missed, in order.
        reply(Subscribe.Reply(clock: clock, fresh: false, generation: generation), to: id, on: session)
        publisher.replay(replay, to: session, subscription: subscription)
        sendCurrentDiagnostics(to: subscription, of: session)
        sendCurrentGeneration(to: subscription, of: session)
        return .later
    }

    /// A subscription that asked for diagnostics gets the current set of
    /// each bundle it covers that has any (worked out now if need be).
    private func sendCurrentDiagnostics(to subscription: Subscription, of session: Session) {
        guard subscription.wantsDiagnostics else { return }
        let bundles = subscription.bundle.map { [$0.string] } ?? tables.bundles
        for bundle in bundles where publisher.readAccess.allows(session, .checks(bundle: bundle)) {
            let diagnostics = checks.diagnostics(of: bundle, in: tables)
            guard !diagnostics.isEmpty, let body = try? Wire.eventBody(Diagnostics(clock: clock, bundle: bundle, diagnostics: diagnostics)) else { continue }
            session.enqueueEvent(body, for: subscription.name)
        }
    }

    func unsubscribe(_ request: Unsubscribe, session: Session, id: RequestID) -> Answer<EmptyReply> {
        guard session.subscriptions.removeValue(forKey: request.name) != nil else {
            return .failure(ProtocolError(.notFound, "no subscription \"\(request.name)\" on this connection", field: "name"))
        }
        return .reply(EmptyReply())
    }

    func snapshot(_ request: Snapshot, session: Session, id: RequestID) -> Answer<Snapshot.Reply> {
        let bundle: String?
        switch filter(bundle: request.bundle, languages: request.languages, tables: request.tables) {
        case .success(let resolved): bundle = resolved
        case .failure(let error): return .failure(error)
        }
        if let bundle, !tables.hasBundle(bundle) {
            return .failure(ProtocolError(.notFound, "no bundle at \(bundle) (no .lproj or .xcstrings with a valid table)", field: "bundle"))
        }
        if let bundle, let refusal = refusal(reading: bundle, by: session) { return .failure(refusal) }
        let filter = Subscription(name: "", bundle: bundle, localizations: request.languages, tables: request.tables)
        return .reply(Snapshot.Reply(clock: clock, tables: tableSnapshots(filter, for: session)))
    }

    /// The tables asked for, as images the shell attaches to the reply (one descriptor each, in the reply's order).
    func images(_ request: Images, session: Session, id: RequestID) -> Answer<Images.Reply> {
        guard configuration.limits.sharedImages > 0 else {
            return .failure(ProtocolError(.busy, "shared table images are off here ([Limits] SharedImages=0): read the files"))
        }
        let bundle: String
        switch filter(bundle: request.bundle, languages: request.languages, tables: request.tables) {
        case .success(let resolved): bundle = resolved ?? request.bundle
        case .failure(let error): return .failure(error)
        }
        guard let served = tables.localizedBundle(bundle) else {
            return .failure(ProtocolError(.notFound, "no bundle at \(bundle) (no .lproj or .xcstrings with a valid table)", field: "bundle"))
        }
        if let refusal = refusal(reading: bundle, by: session) { return .failure(refusal) }
        let languages = request.languages.map(Set.init), names = request.tables.map(Set.init)
        var attached: [AttachedImage] = []
        publisher.readAccess.reading {
            for (localization, tables) in served.tables where languages?.contains(localization) ?? true {
                for (name, table) in tables where names?.contains(name) ?? true {
                    let address = TableAddress(bundle: bundle, localization: localization, table: name)
                    guard publisher.readAccess.allows(session, table: address) else { continue }
                    attached.append(AttachedImage(address: address, table: table))
                }
            }
        }
        guard attached.count <= Images.maximumCount else {
            return .failure(ProtocolError(.limit, "\(attached.count) tables match; ask for at most \(Images.maximumCount) at once (filter by languages or tables)"))
        }
        attached.sort { $0.address < $1.address }
        let summaries = attached.map { ImageSummary(language: $0.address.localization, table: $0.address.table, entries: $0.table.count) }
        do {
            publisher.send(try Wire.reply(Images.Reply(clock: clock, images: summaries), to: id), to: session, attaching: attached) { reason in
                Wire.failure(ProtocolError(.busy, "images withheld: \(reason); or read the files"), to: id)
            }
        } catch {
            return .failure(ProtocolError(.internal, "cannot encode the reply: \(error)"))
        }
        counters["images-requests", default: 0] += 1
        return .later
    }

    func list(_ request: List, session: Session, id: RequestID) -> Answer<List.Reply> {
        publisher.readAccess.reading { listReadable(by: session) }
    }

    /// What `list` answers `session`: the bundles and tables its user could read.
    private func listReadable(by session: Session) -> Answer<List.Reply> {
        let access = publisher.readAccess
        let now = ContinuousClock.now
        // Keyed by bytes: names that differ only in Unicode normalization are different directories.
        var summaries: [ExactName: [ExactName: [ExactName: TableSummary]]] = [:]
        for (address, table) in tables.served where access.allows(session, table: address) {
            summaries[ExactName(address.bundle), default: [:]][ExactName(address.localization), default: [:]][ExactName(address.table)] =
                TableSummary(name: address.table, entries: table.count, health: .ok)
        }
        for (file, record) in tables.files where !record.diagnostics.isEmpty {
            guard let place = ServedTables.classify(file.string) else { continue }
            let errors = record.diagnostics.filter { $0.severity == .error }.count
            let warnings = record.diagnostics.count - errors
            let localizations = place.localization.map { [$0] } ?? record.localizations(at: place)
            let (bundle, table) = (ExactName(place.bundle), ExactName(place.table))
            for localization in localizations.map(ExactName.init)
            where access.allows(session, table: TableAddress(bundle: place.bundle, localization: localization.string, table: place.table)) {
                var summary = summaries[bundle]?[localization]?[table] ?? TableSummary(name: place.table, entries: 0, health: .ok)
                summary.errors += errors
                summary.warnings += warnings
                if errors > 0 { summary.health = .invalid }
                summaries[bundle, default: [:]][localization, default: [:]][table] = summary
            }
        }
        let bundles = summaries.sorted { $0.key < $1.key }.map { bundle, localizations in
            let found = checks.diagnostics(of: bundle.string, in: tables)
            let errors = found.count { $0.severity == .error }
            return BundleSummary(path: bundle.string, localizations: localizations.sorted { $0.key < $1.key }.map { name, tables in
                LocalizationSummary(name: name.string, tables: tables.sorted { $0.key < $1.key }.map(\.value))
            }, checks: CheckCounts(errors: errors, warnings: found.count { $0.severity == .warning }),
               generation: generations.generation(of: bundle.string)?.number, hash: generations.generation(of: bundle.string)?.hash,
               followers: followers(of: bundle.string, at: now))
        }
        return .reply(List.Reply(bundles: bundles))
    }

    func lookup(_ request: Lookup, session: Session, id: RequestID) -> Answer<Lookup.Reply> {
        let path: String
        switch resolveBundle(request.bundle, field: "bundle") {
        case .success(let resolved): path = resolved
        case .failure(let error): return .failure(error)
        }
        guard let bundle = tables.localizedBundle(path) else {
            return .failure(ProtocolError(.notFound, "no bundle at \(path) (no .lproj or .xcstrings with a valid table)", field: "bundle"))
        }
        if let refusal = refusal(reading: path, by: session) { return .failure(refusal) }
        if let problem = FilterLimits(configuration).problem(with: request.languages, field: "languages") { return .failure(problem) }
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

    func selectLanguage(_ request: SelectLanguage, session: Session, id: RequestID) -> Answer<SelectLanguage.Reply> {
        guard access.maySelect(session.peer) else {
            return .failure(ProtocolError(.forbidden, "user \(session.peer.uid) may not select languages (see [Access] SelectUsers/SelectGroups)"))
        }
        if let problem = LanguageSelection.problem(withApp: request.app) {
            return .failure(ProtocolError(.invalidField, problem, field: "app"))
        }
        let language: String?
        switch LanguageSelection.language(request.language) {
        case .success(let selected): language = selected
        case .failure(let problem): return .failure(ProtocolError(.invalidField, problem.message, field: "language"))
        }
        do throws(SelectionError) {
            try selections.select(language, for: request.app)
        } catch {
            log.error("cannot persist the language of \(request.app): \(error.message)")
            return .failure(ProtocolError(.internal, "cannot persist the selection: \(error.message)"))
        }
        log.info("\(request.app): language \(language ?? "system") (pid \(session.peer.pid))")
        // The reply first (with the clock of the event that follows it), then the event.
        let app = request.app
        reply(SelectLanguage.Reply(app: app, language: language, clock: Clock(instance: publisher.instance, sequence: publisher.sequence + 1)),
              to: id, on: session)
        publisher.publish(scope: .app(app)) { LanguageSelected(clock: $0, app: app, language: language) }
        return .later
    }

    func status(_ request: Status, session: Session, id: RequestID) -> Answer<Status.Reply> {
        var counters = self.counters.merging(publisher.counters) { $0 + $1 }
        counters["files-parsed"] = tables.filesParsed
        counters["parse-failures"] = tables.parseFailures
        counters["history-events"] = UInt64(publisher.history.count)
        counters["history-bytes"] = UInt64(publisher.history.bytes)
        counters["misses"] = UInt64(misses.count)
        counters["misses-dropped"] = misses.dropped
        let clients = publisher.sessions.map {
            Status.Client(name: $0.name, app: $0.app, pid: $0.peer.pid, subscriptions: $0.subscriptions.keys.sorted(), queuedBytes: $0.queuedBytes)
        }
        let uptime = ContinuousClock.now - started
        let tree = treeStatus()
        let polled = tree.polledRoots.map { root, lastScan in
            Status.PolledRoot(root: root, reason: polledRoots[ExactName(root)] ?? "Poll=on", lastScanSecondsAgo: lastScan.map { -$0.timeIntervalSinceNow })
        }
        return .reply(Status.Reply(server: Self.server, pid: getpid(), instance: publisher.instance, clock: clock,
                                   uptimeSeconds: Double(uptime.components.seconds) + Double(uptime.components.attoseconds) / 1e18,
                                   roots: roots, watches: tree.watches, bundles: tables.bundles.count, tables: tables.served.count,
                                   clients: clients, counters: counters, lastError: lastError,
                                   warnings: kernelLimits.warnings.isEmpty ? nil : kernelLimits.warnings.keys.sorted().map { kernelLimits.warnings[$0]! },
                                   polledRoots: polled.isEmpty ? nil : polled, metrics: metricsURL))
    }

    func sync(_ request: Sync, session: Session, id: RequestID) -> Answer<Sync.Reply> {
        requestSync(id, on: session)
        return .later
    }

    // MARK: - Helpers

    /// A request's filters checked (`FilterLimits`) and its bundle resolved (`resolveBundle`).
    func filter(bundle path: String?, languages: [String]?, tables: [String]?) -> Result<String?, ProtocolError> {
        let limits = FilterLimits(configuration)
        if let problem = limits.problem(with: languages, field: "languages") ?? limits.problem(with: tables, field: "tables") {
            return .failure(problem)
        }
        guard let path else { return .success(nil) }
        return resolveBundle(path, field: "bundle").map { $0 }
    }

    /// The served tables `filter` covers that `session` could read, sorted, as a snapshot.
    func tableSnapshots(_ filter: Subscription, for session: Session) -> [TableSnapshot] {
        publisher.readAccess.reading {
            tables.served.filter { filter.covers($0.key) && publisher.readAccess.allows(session, table: $0.key) }.sorted { $0.key < $1.key }
                .map { address, table in
                    TableSnapshot(bundle: address.bundle, language: address.localization, table: address.table, entries: table.entries)
                }
        }
    }

    /// Why `session` is not served the bundle at `path` (its user could not read it), nil when it is.
    func refusal(reading path: String, by session: Session) -> ProtocolError? {
        guard !publisher.readAccess.allows(session, bundle: path) else { return nil }
        counters["bundles-refused", default: 0] += 1
        return ProtocolError(.forbidden, "user \(session.peer.uid) cannot read \(path) (its directories' permissions on disk): it is not served to them",
                             field: "bundle")
    }

    /// A bundle path from a request, as `ServedTables` names it: under a root
    /// as configured (links kept: `/srv/app/current/Resources`), or resolved
    /// (links and `..`) and mapped onto the root whose target holds it.
    /// Where the path leads (links resolved) must lie under a root's target:
    /// a link inside a root never lets a request out of it.
    func resolveBundle(_ path: String, field: String) -> Result<String, ProtocolError> {
        guard path.hasPrefix("/") else { return .failure(ProtocolError(.invalidField, "a bundle is an absolute path", field: field)) }
        guard !path.utf8.contains(0), path.utf8.count <= 4096 else {
            return .failure(ProtocolError(.invalidField, "not a usable path", field: field))
        }
        let tidy = PathText.tidy(path)
        let lexical = tidy.split(separator: "/").contains("..") ? nil : tidy
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
        for root in roots {
            guard let real = realpath(root, nil) else { continue }
            let target = String(cString: real)
            free(real)
            // Where it leads must be under the root's target (a link inside a root never leads out of it).
            guard ExactName(canonical).isWithin(target) else { continue }
            if let lexical, ExactName(lexical).isWithin(root) { return .success(lexical) }
            return .success(root + String(canonical.utf8.dropFirst(target.utf8.count))!)
        }
        return .failure(ProtocolError(.outsideRoots, "\(path) is outside every watched root", field: field))
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
