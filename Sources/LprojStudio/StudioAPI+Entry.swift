import Foundation
import LprojBundles
import LprojEditing
import LprojFormats
import LprojLanguages
import LprojPaths
import LprojTables

/// One key: what the editor pane shows of it, and its writes. A save
/// expects only the key's own entry and its source text as the page saw
/// them (`EditExpectation`), so another key's change meanwhile is no
/// conflict.
extension StudioAPI {
    /// `GET /api/entry?bundle=&table=&key=&language=`.
    func entryDetails(_ request: HTTPRequest) -> HTTPResponse {
        let query: TableQuery
        switch TableQuery.read(request, api: self) {
        case .success(let read): query = read
        case .failure(let refusal): return refusal.response
        }
        let (bundle, tableName, writer, loaded, development) = (query.bundle, query.table, query.writer, query.loaded, query.development)
        guard let key = request.query["key"] else { return Self.error(400, "key", "key is required") }
        guard let language = request.query["language"], !language.isEmpty, language.utf8.count <= 255, !language.contains("/") else {
            return Self.error(400, "language", "language is required (a localization's name)")
        }
        var values: [[String: Any]] = []
        for other in loaded.localizations where other != language {
            guard let entry = loaded.table(tableName, localization: other)?[key] else { continue }
            values.append(["language": other, "name": Self.name(of: other), "direction": Self.direction(other), "value": Self.entryObject(entry)])
        }
        let entry = Pseudolanguage(tag: language) == nil ? loaded.table(tableName, localization: language)?[key] : nil
        var diagnostics: [[String: Any]] = []
        if Pseudolanguage(tag: language) == nil {
            var files = FileLocations(bundlePath: bundle, localization: language, table: tableName)
            diagnostics = BundleCheck(bundle: loaded, development: development)
                .diagnostics(localization: language, table: tableName, key: key, files: &files).map(Self.diagnosticObject)
        }
        var history: [String: Any] = ["changes": [Any]()]
        if Pseudolanguage(tag: language) == nil, let file = try? writer.file(for: language) {
            var files = FileLocations(bundlePath: bundle, localization: language, table: tableName)
            let path = entry.map { files.location(of: key, entry: $0).file } ?? file
            switch KeyHistory.of(key: key, language: language, file: path) {
            case .changes(let changes):
                history["changes"] = changes.map { change -> [String: Any] in
                    ["commit": change.commit, "author": change.author, "date": change.date, "subject": change.subject,
                     "value": change.entry.map(Self.entryObject) ?? NSNull()]
                }
            case .unavailable(let reason):
                history["unavailable"] = reason
            }
        }
        let source = development.flatMap { loaded.table(tableName, localization: $0)?[key] }
        // A catalog key no source-language entry has is its own source text, as Xcode shows it.
        let isCatalog = FileManager.default.fileExists(atPath: TablePlace.catalog(tableName, in: bundle))
        return Self.json(200, [
            "bundle": bundle, "table": tableName, "key": key, "language": language,
            "comment": comments(bundle: bundle, table: tableName, development: development)[key] ?? NSNull(),
            "development": development ?? NSNull(), "source": source.map(Self.entryObject) ?? (isCatalog ? key as Any : NSNull()),
            "value": entry.map(Self.entryObject) ?? NSNull(), "entryVersion": TableVersion.of(entry, key: key),
            "others": values, "diagnostics": diagnostics, "history": history,
        ])
    }

    /// `PUT /api/entry`.
    func entryResponse(_ request: HTTPRequest) -> HTTPResponse {
        let edit: KeyEdit
        switch KeyEdit.read(request, api: self) {
        case .success(let read): edit = read
        case .failure(let refusal): return refusal.response
        }
        do {
            let change: TableWriter.Change
            if let state = edit.object["state"] {
                // "Mark reviewed" (or any catalog state), the text as it is.
                guard let name = state as? String, let state = TranslationState(rawValue: name) else {
                    return Self.error(400, "state", "state is one of \(TranslationState.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                guard let last = try edit.writer.apply([.setState(key: edit.key, state: state)], language: edit.language, expecting: edit.expectation).last else {
                    return Self.error(400, "state", "nothing to save")
                }
                change = last
            } else if let forms = edit.object["forms"] {
                // A key's forms (and its format, `value`) saved at once: one write, one expectation.
                guard let forms = forms as? [[String: Any]], !forms.isEmpty, forms.count <= 64 else {
                    return Self.error(400, "forms", "forms is a list of {variable?, category, value} (1 to 64)")
                }
                var edits: [TableEdit] = []
                for form in forms {
                    guard let category = form["category"] as? String, let value = form["value"] as? String,
                          form["variable"] == nil || form["variable"] is String else {
                        return Self.error(400, "forms", "each form is {variable?, category, value}")
                    }
                    edits.append(.setPluralForm(key: edit.key, variable: form["variable"] as? String, category: category, value: value, valueType: nil, format: nil))
                }
                if let format = edit.object["value"] {
                    guard let format = format as? String else { return Self.error(400, "value", "value (the format) is a string") }
                    edits.append(.setText(key: edit.key, value: format, comment: nil))
                }
                guard let last = try edit.writer.apply(edits, language: edit.language, expecting: edit.expectation).last else {
                    return Self.error(400, "forms", "nothing to save")
                }
                change = last
            } else if let plural = edit.object["plural"] {
                guard let plural = plural as? [String: Any], let category = plural["category"] as? String, let value = plural["value"] as? String else {
                    return Self.error(400, "plural", "plural is {variable?, category, value}")
                }
                change = try edit.writer.setPluralForm(edit.key, variable: plural["variable"] as? String, category: category, to: value,
                                                       language: edit.language, expecting: edit.expectation)
            } else {
                guard let value = edit.object["value"] as? String else { return Self.error(400, "value", "value (a string) or plural is required") }
                change = try edit.writer.set(edit.key, to: value, language: edit.language, expecting: edit.expectation)
            }
            return Self.json(200, ["version": change.version, "entryVersion": TableVersion.of(change.after, key: edit.key),
                                   "before": change.before.map(Self.entryObject) ?? NSNull(), "entry": change.after.map(Self.entryObject) ?? NSNull(),
                                   "file": change.file])
        } catch {
            return failure(error, edit)
        }
    }

    /// `DELETE /api/entry`: removes the key from one language's table (the undo of the save that made it).
    func removalResponse(_ request: HTTPRequest) -> HTTPResponse {
        let edit: KeyEdit
        switch KeyEdit.read(request, api: self) {
        case .success(let read): edit = read
        case .failure(let refusal): return refusal.response
        }
        do {
            let change = try edit.writer.remove(edit.key, language: edit.language, expecting: edit.expectation)
            return Self.json(200, ["version": change.first?.version ?? NSNull(), "entryVersion": TableVersion.of(nil, key: edit.key),
                                   "before": change.first?.before.map(Self.entryObject) ?? NSNull(), "entry": NSNull()])
        } catch {
            return failure(error, edit)
        }
    }

    private func failure(_ error: TableWriter.Failure, _ edit: KeyEdit) -> HTTPResponse {
        switch error {
        case .stale(_, _, let current, let version):
            // The key (or its source) as it is now: the page shows both texts and the user chooses.
            var source: Entry?
            if let language = try? edit.writer.keysAndSourceLanguage().sourceLanguage {
                source = (try? edit.writer.current(language: language))?.table?[edit.key]
            }
            return Self.json(409, ["error": "stale", "message": error.description, "version": version,
                                   "current": current.map(Self.entryObject) ?? NSNull(), "entryVersion": TableVersion.of(current, key: edit.key),
                                   "source": source.map(Self.entryObject) ?? NSNull(), "sourceVersion": TableVersion.of(source, key: edit.key)])
        case .refused(let diagnostics):
            return Self.json(422, ["error": "refused", "message": "the checks refuse this edit (nothing was written)",
                                   "diagnostics": diagnostics.map(Self.diagnosticObject)])
        case .forbidden(let message):
            return Self.json(403, ["error": "forbidden", "message": message])
        case .invalid(let field, let message):
            return Self.json(400, ["error": "invalid", "field": field.rawValue, "message": message])
        }
    }
}

/// A write request's common fields, checked: a served bundle (its writer's), a language
/// the studio may write, a key, the writer, and what the page expects.
struct KeyEdit {
    var object: [String: Any]
    var language: String
    var key: String
    var writer: TableWriter
    var expectation: EditExpectation

    static func read(_ request: HTTPRequest, api: StudioAPI) -> Result<KeyEdit, StudioAPI.Refusal> {
        func refuse(_ response: HTTPResponse) -> Result<KeyEdit, StudioAPI.Refusal> { .failure(StudioAPI.Refusal(response)) }
        func forbid(_ message: String) -> Result<KeyEdit, StudioAPI.Refusal> {
            refuse(StudioAPI.json(403, ["error": "forbidden", "field": "language", "message": message]))
        }
        if request.bodyTooLarge { return refuse(StudioAPI.error(413, "body", "the body is larger than the studio takes")) }
        guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else {
            return refuse(StudioAPI.error(400, "body", "the body must be a JSON object"))
        }
        func field(_ name: String) -> String? { object[name] as? String }
        let bundle: String
        switch api.servedBundle(field("bundle")) {
        case .success(let path): bundle = path
        case .failure(let refusal): return .failure(refusal)
        }
        guard let language = field("language"), !language.isEmpty else { return refuse(StudioAPI.error(400, "language", "language is required")) }
        // A preview column is read-only, and a Base localization is never made from here.
        if Pseudolanguage(tag: language) != nil {
            return forbid("\(language) is a preview, derived from the development language: it is not written")
        }
        if language == "Base", !FileManager.default.fileExists(atPath: TablePlace.directory(of: "Base", in: bundle)) {
            return forbid("\(bundle) has no Base localization: the studio does not make one")
        }
        if let unknown = StudioAPI.unknownNewLanguage(language, in: bundle) { return forbid(unknown) }
        guard let key = field("key") else { return refuse(StudioAPI.error(400, "key", "key is required (a string)")) }
        for name in ["version", "entryVersion", "sourceVersion"] where object[name] != nil && !(object[name] is String) {
            return refuse(StudioAPI.error(400, name, "\(name) is a string, as the table's answer gave it"))
        }
        do {
            let writer = try api.writer(bundle: bundle, table: field("table") ?? "Localizable")
            return .success(KeyEdit(object: object, language: language, key: key, writer: writer,
                                    expectation: EditExpectation(table: field("version"), entry: field("entryVersion"), source: field("sourceVersion"))))
        } catch {
            return refuse(StudioAPI.error(400, "table", error.description))
        }
    }
}

extension StudioAPI {
    /// `GET /api/suggestions?bundle=&table=&key=&language=&q=`: what the
    /// translation memory offers for the source text `q` in `language`,
    /// the key edited left out. Answered from memory alone (no file is read):
    /// the editor shows it as it opens.
    func suggestionsResponse(_ request: HTTPRequest) -> HTTPResponse {
        let bundle: String
        switch servedBundle(request.query["bundle"]) {
        case .success(let path): bundle = path
        case .failure(let refusal): return refusal.response
        }
        guard let key = request.query["key"] else { return Self.error(400, "key", "key is required") }
        guard let language = request.query["language"], !language.isEmpty, language.utf8.count <= 255 else {
            return Self.error(400, "language", "language is required (a localization's name)")
        }
        guard let source = request.query["q"], source.utf8.count <= 4096 else { return Self.error(400, "q", "q is the source text (at most 4 KiB)") }
        let unit = TranslationMemory.Unit(bundle: bundle, table: request.query["table"] ?? "Localizable", key: key)
        let offers = memory.suggestions(for: source, language: language, excluding: unit)
        return Self.json(200, ["ready": memory.isReady, "suggestions": offers.map { offer -> [String: Any] in
            ["text": offer.text, "source": offer.source, "similarity": offer.similarity, "uses": offer.uses,
             "bundle": offer.unit.bundle, "table": offer.unit.table, "key": offer.unit.key,
             "differences": offer.differences.map { ["kind": $0.kind.rawValue, "text": $0.text] }]
        }])
    }
}
