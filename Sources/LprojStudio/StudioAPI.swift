#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LprojBundles
import LprojClient
import LprojEditing
import LprojFormats
import LprojLanguages
import LprojPaths
import LprojProtocol
import LprojTables
import Synchronization

/// The studio's JSON API, decided without a socket of its own: requests
/// in, responses out (`HTTPServer` does the I/O). Bundles are the daemon's
/// (the browser never names a path it does not serve); every write goes
/// through `TableWriter` with the studio user's own permissions.
///
/// - `GET /api/bundles`: each bundle, language and table with its coverage,
///   diagnostics and runtime misses.
/// - `GET /api/table?bundle=&table=&languages=fr,de[&filter=&q=&offset=&limit=]`:
///   entries with the development text, each language's value, version,
///   diagnostics and misses.
/// - `GET /api/entry?bundle=&table=&key=&language=`: one key for the
///   editor pane: its comment, source, every localization's value, the
///   language's diagnostics and the key's history in git.
/// - `PUT /api/entry`: `{bundle, table, language, key, value | plural: {variable?, category, value} | forms: [{variable?, category, value}] + value? | state,
///   entryVersion?, sourceVersion?, version?}` → 200 `{version, entryVersion, before, entry}`,
///   409 `{current, entryVersion, source, sourceVersion}`, 422 `{diagnostics}`.
/// - `DELETE /api/entry`: `{bundle, table, language, key, entryVersion?}` (undoing the save that made a key).
/// - `GET /api/misses?bundle=&table=`: keys apps asked for that no localization of the table has.
/// - `GET /api/suggestions?bundle=&table=&key=&language=&q=`: the translation memory's offers for the source text `q`.
/// - `GET /api/events`: server-sent events (`EventHub`).
public final class StudioAPI: Sendable {
    /// The daemon's socket (nil: the default rule).
    let socket: String?
    /// The bundles the studio shows (nil: every bundle the daemon serves).
    let bundles: [String]?
    let hub: EventHub
    /// The translation memory suggestions come from.
    let memory: MemoryFeed
    /// The connection requests to lprojd go on (one at a time).
    private let link = Mutex<DaemonConnection?>(nil)
    /// What the daemon serves, asked again at most once a second (`served`).
    private let scope = Mutex<(served: Served, asked: ContinuousClock.Instant)?>(nil)
    /// Each table file's comments, with the stamp of the file they were read from.
    private let keptComments = Mutex<[String: (stamp: FileStamp, comments: [String: String])]>([:])
    /// When each line of the tables in git last changed (what makes a translation outdated).
    let lineAges = LineAges()
    /// Keys a page asks for at most at once.
    static let maximumLimit = 1000

    public init(socket: String?, bundles: [String]?, hub: EventHub, memory: MemoryFeed) {
        self.socket = socket
        self.bundles = bundles
        self.hub = hub
        self.memory = memory
    }

    /// The answer to an API request (`path` under `/api/`).
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        switch (request.method, request.path) {
        case ("GET", "/api/bundles"): return overviewResponse()
        case ("GET", "/api/table"): return tableResponse(request)
        case ("GET", "/api/entry"): return entryDetails(request)
        case ("PUT", "/api/entry"): return entryResponse(request)
        case ("DELETE", "/api/entry"): return removalResponse(request)
        case ("GET", "/api/misses"): return missesResponse(request)
        case ("GET", "/api/suggestions"): return suggestionsResponse(request)
        case ("GET", "/api/events"): return eventsResponse()
        case (_, "/api/bundles"), (_, "/api/table"), (_, "/api/entry"), (_, "/api/misses"), (_, "/api/suggestions"), (_, "/api/events"):
            return Self.error(405, "method", "\(request.method) is not allowed on \(request.path)")
        default:
            return Self.error(404, "path", "no such API: \(request.path)")
        }
    }

    // MARK: - A table

    private func tableResponse(_ request: HTTPRequest) -> HTTPResponse {
        let query: TableQuery
        switch TableQuery.read(request, api: self) {
        case .success(let read): query = read
        case .failure(let refusal): return refusal.response
        }
        let (bundle, tableName, writer, loaded, development) = (query.bundle, query.table, query.writer, query.loaded, query.development)
        let wanted = (request.query["languages"] ?? "").split(separator: ",").map(String.init).filter { !$0.isEmpty }
        let languages = wanted.isEmpty ? loaded.localizations.filter { $0 != "Base" && $0 != development } : wanted
        for language in languages where language.utf8.count > 255 || language.contains("/") {
            return Self.error(400, "languages", "'\(language)' is not a localization")
        }
        let offset = Int(request.query["offset"] ?? "0") ?? -1
        let limit = Int(request.query["limit"] ?? "200") ?? -1
        guard offset >= 0 else { return Self.error(400, "offset", "offset is a number from 0") }
        guard limit >= 1, limit <= Self.maximumLimit else { return Self.error(400, "limit", "limit is a number from 1 to \(Self.maximumLimit)") }
        let filter = request.query["filter"] ?? "all"
        guard ["all", "missing", "new", "needs_review", "diagnostics", "missed", "stale", "unchanged", "outdated"].contains(filter) else {
            return Self.error(400, "filter", "filter is all, missing, new, needs_review, stale, unchanged, outdated, diagnostics or missed")
        }
        let search = request.query["q"]?.lowercased()

        let reference = development.flatMap { loaded.table(tableName, localization: $0) }
        // A table that no longer parses on disk is shown as the daemon still serves it (its last good text), under its errors.
        var invalid: [String: [Diagnostic]] = [:], lastGood: [String: Table] = [:]
        for language in languages where Pseudolanguage(tag: language) == nil {
            let errors = Self.errors(of: tableName, language: language, in: loaded)
            guard !errors.isEmpty else { continue }
            invalid[language] = errors
            if let served = try? ask(Snapshot(bundle: bundle, languages: [language], tables: [tableName])).tables.first {
                lastGood[language] = Table(served.entries)
            }
        }
        // A pseudolanguage column is a preview, derived from the development table.
        func table(_ language: String) -> Table? {
            if let pseudo = Pseudolanguage(tag: language) { return reference.map(pseudo.table) }
            if invalid[language] != nil { return lastGood[language] }
            return loaded.table(tableName, localization: language)
        }
        var keys = Set(reference?.sortedKeys ?? [])
        for language in languages where Pseudolanguage(tag: language) == nil { keys.formUnion(table(language)?.sortedKeys ?? []) }
        let misses = missesByKey(bundle: bundle, table: tableName)
        let check = BundleCheck(bundle: loaded, development: development)
        // Each language's file locations, read once for the request (a 2 MB catalog is read once for every key and language).
        var locations: [String: FileLocations] = [:]
        var lastLocations: FileLocations?
        func diagnostics(_ key: String, _ language: String) -> [Diagnostic] {
            var files = locations.removeValue(forKey: language)
                ?? lastLocations.map { FileLocations(localization: language, known: $0) }
                ?? FileLocations(bundlePath: bundle, localization: language, table: tableName)
            defer { locations[language] = files; lastLocations = files }
            return check.diagnostics(localization: language, table: tableName, key: key, files: &files)
        }
        func shown(_ entry: Entry?) -> String { entry.map { Coverage.text(of: $0) } ?? "" }
        let isCatalog = FileManager.default.fileExists(atPath: TablePlace.catalog(tableName, in: bundle))
        // A catalog key no source-language entry has is its own source text, as Xcode shows it.
        func source(_ key: String) -> Entry? { reference?[key] ?? (isCatalog ? Entry(text: key) : nil) }
        // Each value's status by the rule coverage counts with, so that the overview's figures and the filters agree.
        let marks = SameMarks(bundle: bundle, development: development)
        var outdated = OutdatedTranslations(bundle: bundle, table: tableName, development: development, ages: lineAges)
        func status(_ key: String, _ language: String) -> String {
            if Pseudolanguage(tag: language) != nil { return TranslationStatus.translated.rawValue }
            let status = TranslationStatus.of(table(language)?[key], source: source(key), isDevelopment: language == development) {
                marks.isMarked(key, table: tableName, localization: language)
            }
            return status == .translated && outdated.isOutdated(key, language: language) ? "outdated" : status.rawValue
        }
        var selected: [String] = []
        for key in keys.sorted() {
            let entries = languages.map { table($0)?[key] }
            switch filter {
            case "missing": if !languages.contains(where: { ["missing", "new"].contains(status(key, $0)) }) { continue }
            case "stale": if !languages.contains(where: { ["stale", "needs_review"].contains(status(key, $0)) }) { continue }
            case "unchanged", "new", "needs_review", "outdated": if !languages.contains(where: { status(key, $0) == filter }) { continue }
            case "missed": if !languages.contains(where: { misses[$0]?[key] != nil }) { continue }
            case "diagnostics": if !languages.contains(where: { Pseudolanguage(tag: $0) == nil && !diagnostics(key, $0).isEmpty }) { continue }
            default: break
            }
            if let search, !search.isEmpty {
                // Any text a user sees, in any language: the way to the key behind a label.
                let texts = [key, shown(reference?[key])] + entries.map(shown)
                    + loaded.localizations.map { shown(loaded.table(tableName, localization: $0)?[key]) }
                if !texts.contains(where: { $0.lowercased().contains(search) }) { continue }
            }
            selected.append(key)
        }
        let page = selected.dropFirst(offset).prefix(limit)
        let comments = self.comments(bundle: bundle, table: tableName, development: development)
        var rows: [[String: Any]] = []
        for key in page {
            var values: [String: Any] = [:], problems: [String: Any] = [:], missed: [String: Any] = [:], versions: [String: Any] = [:]
            var statuses: [String: Any] = [:]
            for language in languages {
                let entry = table(language)?[key]
                statuses[language] = status(key, language)
                values[language] = entry.map(Self.entryObject) ?? NSNull()
                versions[language] = TableVersion.of(entry, key: key)
                let found = Pseudolanguage(tag: language) == nil ? diagnostics(key, language) : []
                if !found.isEmpty {
                    problems[language] = found.map(Self.diagnosticObject)
                }
                if let count = misses[language]?[key] { missed[language] = count }
            }
            rows.append(["key": key, "development": source(key).map(Self.entryObject) ?? NSNull(), "values": values, "versions": versions, "statuses": statuses,
                         "sourceVersion": TableVersion.of(reference?[key], key: key),
                         "diagnostics": problems, "missed": missed, "comment": comments[key] ?? NSNull()])
        }
        let columns: [[String: Any]] = languages.map { language in
            // (The version TableWriter checks: the same composed table, read once with the rest.)
            let version = TableVersion.of(Pseudolanguage(tag: language) == nil ? loaded.table(tableName, localization: language) : nil)
            let (writable, reason) = writability(writer, language)
            return ["language": language, "name": Self.name(of: language), "version": version, "direction": Self.direction(language),
                    "exists": Pseudolanguage(tag: language) != nil || loaded.localizations.contains(language),
                    "writable": writable, "invalid": (invalid[language] ?? []).map(Self.diagnosticObject),
                    "reason": reason ?? NSNull(), "pluralCategories": PluralCategory.categories(of: language) ?? ["other"]]
        }
        return Self.json(200, ["bundle": bundle, "table": tableName, "development": development ?? NSNull(),
                               "developmentName": development.map(Self.name(of:)) ?? NSNull(), "languages": columns,
                               "total": selected.count, "offset": offset, "limit": limit, "entries": rows])
    }

    private func eventsResponse() -> HTTPResponse {
        let stream = EventStream()
        stream.post("retry: 1000\n: connected\n\n")
        hub.add(stream)
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream; charset=utf-8"), ("X-Accel-Buffering", "no")] + StudioAccess.securityHeaders,
                            stream: stream)
    }

    // MARK: - Helpers

    /// The keys' comments: the table's catalog, else the development localization's `.strings`.
    func comments(bundle: String, table: String, development: String?) -> [String: String] {
        let catalog = TablePlace.catalog(table, in: bundle)
        if FileManager.default.fileExists(atPath: catalog) { return comments(of: catalog, format: .xcstrings) }
        guard let development else { return [:] }
        return comments(of: TablePlace.files(of: table, localization: development, in: bundle).strings, format: .strings)
    }

    /// A file's comments, read again only when the file changed (a 2 MB catalog is not parsed for each page).
    private func comments(of file: String, format: TableFormat) -> [String: String] {
        let stamp = FileStamp(file)
        if let kept = keptComments.withLock({ $0[file] }), kept.stamp == stamp { return kept.comments }
        let read = FileManager.default.contents(atPath: file).map { TableComments.of(Array($0), format: format) } ?? [:]
        keptComments.withLock { $0[file] = (stamp, read) }
        return read
    }

    /// Whether the studio's user may write `language`'s table, and why not.
    func writability(_ writer: TableWriter, _ language: String) -> (Bool, String?) {
        if Pseudolanguage(tag: language) != nil { return (false, "a preview, derived from the development language") }
        guard let file = try? writer.file(for: language) else { return (false, "not a localization name") }
        if language == "Base", access(writer.bundle + "/Base.lproj", F_OK) != 0 { return (false, "the bundle has no Base localization") }
        if access(file, F_OK) != 0, let unknown = Self.unknownNewLanguage(language, in: writer.bundle) { return (false, unknown) }
        do {
            _ = try writer.gate.place(of: file)
        } catch {
            return (false, error.message)
        }
        var path = file
        while access(path, F_OK) != 0, let slash = path.lastIndex(of: "/"), slash != path.startIndex { path = String(path[..<slash]) }
        if access(path, W_OK) == 0 { return (true, nil) }
        return (false, "\(path) is not writable by this user (\(String(cString: strerror(errno))))")
    }

    /// `request`'s reply from lprojd, on the studio's one connection for requests (made again when it broke).
    func ask<R: Request>(_ request: R) throws(DaemonConnection.Failure) -> R.Reply {
        let outcome: Result<R.Reply, DaemonConnection.Failure> = link.withLock { connection in
            var last = DaemonConnection.Failure.closed
            for _ in 0..<2 {
                if connection == nil {
                    switch Self.connect(socket) {
                    case .success(let made): connection = made
                    case .failure(let failure): return .failure(failure)
                    }
                }
                switch Self.send(request, on: connection!) {
                case .success(let reply): return .success(reply)
                case .failure(let failure):
                    if case .refused = failure { return .failure(failure) }
                    connection = nil
                    last = failure
                }
            }
            return .failure(last)
        }
        return try outcome.get()
    }

    private static func send<R: Request>(_ request: R, on connection: DaemonConnection) -> Result<R.Reply, DaemonConnection.Failure> {
        do {
            return .success(try connection.send(request))
        } catch {
            return .failure(error)
        }
    }

    private static func connect(_ socket: String?) -> Result<DaemonConnection, DaemonConnection.Failure> {
        do {
            let made = try DaemonConnection(path: socket)
            _ = try made.send(Hello(client: "lprojctl studio"))
            return .success(made)
        } catch {
            return .failure(error)
        }
    }

    /// The daemon's roots and the bundles it serves.
    struct Served: Sendable {
        var roots: [String]
        var bundles: Set<String>
    }

    /// What the daemon serves, asked again at most once a second (a reload or a new bundle may change it).
    private func served() throws(DaemonConnection.Failure) -> Served {
        if let known = scope.withLock({ $0 }), ContinuousClock.now - known.asked < .seconds(1) { return known.served }
        let asked = Served(roots: try ask(Status()).roots, bundles: Set(try ask(List()).bundles.map(\.path)))
        scope.withLock { $0 = (asked, .now) }
        return asked
    }

    /// A writer of `table` in `bundle` (a served bundle) that writes only inside the daemon's roots.
    func writer(bundle: String, table: String) throws(TableWriter.Failure) -> TableWriter {
        var writer = try TableWriter(bundle: bundle, table: table)
        if let roots = try? served().roots { writer.gate = WriteGate(roots: roots) }
        return writer
    }

    func daemonBundles() -> Result<[BundleSummary], Refusal> {
        do {
            let list = try ask(List()).bundles
            guard let bundles else { return .success(list) }
            return .success(list.filter { bundles.contains($0.path) })
        } catch {
            return .failure(Refusal(Self.error(502, "daemon", "lprojd does not answer: \(error)")))
        }
    }

    /// A bundle the studio shows: one the daemon serves (so reached inside
    /// its roots through no link out of them), among the bundles named
    /// when some were, named as the daemon names it; or the error naming the field.
    func servedBundle(_ path: String?) -> Result<String, Refusal> {
        guard let path, !path.isEmpty else { return .failure(Refusal(Self.error(400, "bundle", "bundle is required"))) }
        let served: Served
        do {
            served = try self.served()
        } catch {
            return .failure(Refusal(Self.error(502, "daemon", "lprojd does not answer: \(error)")))
        }
        var isDirectory: ObjCBool = false
        guard served.bundles.contains(path), served.roots.contains(where: { ExactName(path).isWithin($0) }), bundles?.contains(path) ?? true,
              FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return .failure(Refusal(Self.error(404, "bundle", "\(path) is not a bundle this studio shows (one lprojd serves)")))
        }
        return .success(path)
    }

    func runtimeMisses(of bundle: String) -> [String: Int] {
        guard let reply = try? ask(Misses(bundle: bundle)) else { return [:] }
        var counts: [String: Int] = [:]
        for record in reply.misses { counts[(record.language ?? "-") + "/" + record.table, default: 0] += 1 }
        return counts
    }

    func missesByKey(bundle: String, table: String) -> [String: [String: UInt64]] {
        guard let reply = try? ask(Misses(bundle: bundle)) else { return [:] }
        var result: [String: [String: UInt64]] = [:]
        for record in reply.misses where record.table == table { result[record.language ?? "-", default: [:]][record.key, default: 0] += record.count }
        return result
    }

    /// A read of one table's keys: a served bundle, the table named (`Localizable` unless said) with its writer, the bundle as on disk.
    struct TableQuery {
        var bundle: String
        var table: String
        var writer: TableWriter
        var loaded: LocalizedBundle
        var development: String?

        static func read(_ request: HTTPRequest, api: StudioAPI) -> Result<TableQuery, Refusal> {
            let bundle: String
            switch api.servedBundle(request.query["bundle"]) {
            case .success(let path): bundle = path
            case .failure(let refusal): return .failure(refusal)
            }
            let table = request.query["table"] ?? "Localizable"
            let writer: TableWriter
            do {
                writer = try api.writer(bundle: bundle, table: table)
            } catch {
                return .failure(Refusal(StudioAPI.error(400, "table", error.description)))
            }
            guard let loaded = try? LocalizedBundle.load(path: bundle) else { return .failure(Refusal(StudioAPI.error(404, "bundle", "\(bundle) cannot be read"))) }
            return .success(TableQuery(bundle: bundle, table: table, writer: writer, loaded: loaded, development: DevelopmentLocalization.of(loaded)))
        }
    }

    /// A request refused before it got anywhere: the answer that says why.
    struct Refusal: Error {
        let response: HTTPResponse
        init(_ response: HTTPResponse) { self.response = response }
    }

    /// Why a save may not make `language`'s localization in `bundle`: it has none yet, and no language is called so (a
    /// typo, "dee", would make dee.lproj). Nil when it may.
    static func unknownNewLanguage(_ language: String, in bundle: String) -> String? {
        guard !FileManager.default.fileExists(atPath: TablePlace.directory(of: language, in: bundle)),
              Locale(identifier: "en").localizedString(forLanguageCode: language) == nil else { return nil }
        return "no language is called \(language): a save would make \(language).lproj"
    }

    /// The errors of `language`'s files of `table` (its `.lproj` files, or the catalog holding it) as read with `bundle`.
    static func errors(of table: String, language: String, in bundle: LocalizedBundle) -> [Diagnostic] {
        let files = TablePlace.files(of: table, localization: language, in: bundle.path)
        let names = [files.strings, files.stringsdict, TablePlace.catalog(table, in: bundle.path)]
        return bundle.diagnostics.filter { $0.severity == .error && names.contains($0.file) }
    }

    /// `language`'s name in English ("French", "Chinese (Simplified)"; its code when ICU has no name), asked of ICU once per language.
    static func name(of language: String) -> String {
        if let known = names.withLock({ $0[language] }) { return known }
        var name = language
        if let pseudo = Pseudolanguage(tag: language) {
            name = "preview \(pseudo.rawValue)"
        } else if let found = Locale(identifier: "en").localizedString(forIdentifier: language), found != language {
            name = found
        }
        names.withLock { $0[language] = name }
        return name
    }

    private static let names = Mutex<[String: String]>([:])

    static func direction(_ language: String) -> String {
        LanguageTag(language)?.isRightToLeft == true ? "rtl" : "ltr"
    }

    /// An entry as JSON: a plain string, or its rule (`Entry`'s Codable form).
    static func entryObject(_ entry: Entry) -> Any {
        entry.jsonValue
    }

    static func diagnosticObject(_ diagnostic: Diagnostic) -> [String: Any] {
        ["severity": diagnostic.severity.rawValue, "message": diagnostic.message, "hint": diagnostic.hint ?? NSNull(),
         "file": diagnostic.file, "line": diagnostic.line, "column": diagnostic.column]
    }

    static func json(_ status: Int, _ object: Any) -> HTTPResponse {
        // (Keys unsorted: sorting compares them as NSStrings with a locale, and took a third of a large table's answer.)
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])) ?? Data("{}".utf8)
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")] + StudioAccess.securityHeaders, body: Array(data))
    }

    static func error(_ status: Int, _ field: String, _ message: String) -> HTTPResponse {
        json(status, ["error": status == 404 ? "not-found" : "invalid", "field": field, "message": message])
    }
}
