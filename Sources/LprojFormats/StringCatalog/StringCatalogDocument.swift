import LprojTables
/// A String Catalog (`.xcstrings`) opened for editing: written back as
/// Xcode writes it, so reading and writing an unchanged catalog gives the
/// same bytes, and an edit's diff shows that value and its `state`.
public struct StringCatalogDocument: Sendable {
    private let path: String
    var root: CatalogJSON
    private let endsWithNewline: Bool

    /// Opens catalog JSON; a message with the line when it is not a catalog.
    public init(bytes: [UInt8], path: String) throws(TableEditError) {
        self.path = path
        do {
            root = try CatalogJSON.parse(bytes)
        } catch {
            let line = bytes[..<min(error.offset, bytes.count)].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            throw TableEditError(path: path, "cannot be edited: line \(line): \(error.message)")
        }
        guard case .object = root, root["strings"].map({ if case .object = $0 { true } else { false } }) ?? true else {
            throw TableEditError(path: path, "cannot be edited: a String Catalog is an object with a \"strings\" object")
        }
        endsWithNewline = bytes.last == 0x0A
    }

    /// A new, empty catalog whose keys are in `sourceLanguage`.
    public init(newCatalogAt path: String, sourceLanguage: String) {
        self.path = path
        root = .object([.init("sourceLanguage", .string(sourceLanguage)), .init("strings", .object([])), .init("version", .string("1.0"))])
        endsWithNewline = false
    }

    /// The catalog's bytes.
    public var bytes: [UInt8] { root.rendered() + (endsWithNewline ? [0x0A] : []) }

    /// The language the keys are written in.
    public var sourceLanguage: String? { root["sourceLanguage"]?.stringValue }

    /// Whether `key` is in the catalog (and, with `language`, has a localization in it).
    public func contains(_ key: String, language: String? = nil) -> Bool {
        guard let item = root["strings"]?[key] else { return false }
        guard let language else { return true }
        return item["localizations"]?[language] != nil
    }

    /// Sets `key`'s text in `language` (state `translated`). A key the
    /// catalog lacks is added as Xcode adds one by hand (`manual`).
    public mutating func set(_ key: String, language: String, to value: String) throws(TableEditError) {
        let path = self.path
        try updateLocalization(key, language) { (localization: inout CatalogJSON) throws(TableEditError) in
            // A localization with substitutions keeps its format in its stringUnit; one with variations has no single text.
            if localization["variations"] != nil {
                throw TableEditError(path: path, "\"\(key)\" varies by plural or device in \(language): set its forms with --plural")
            }
            try localization.update(["stringUnit"]) { (unit: inout CatalogJSON) throws(TableEditError) in
                unit.set("state", .string("translated"))
                unit.set("value", .string(value))
            }
        }
    }

    /// Sets the state of `key`'s text in `language` (its `stringUnit`), the
    /// text as it is: a translation marked reviewed, or as needing review.
    public mutating func setState(_ key: String, language: String, to state: TranslationState) throws(TableEditError) {
        guard root["strings"]?[key]?["localizations"]?[language]?["stringUnit"]?["value"] != nil else {
            throw TableEditError(path: path, "\"\(key)\" has no text of its own in \(language) to mark \(state.rawValue)")
        }
        try updateLocalization(key, language) { (localization: inout CatalogJSON) throws(TableEditError) in
            try localization.update(["stringUnit"]) { (unit: inout CatalogJSON) throws(TableEditError) in
                unit.set("state", .string(state.rawValue))
            }
        }
    }

    /// Sets one plural form of `key` in `language`: of the substitution
    /// `variable`, or of the localization's own plural variations when nil.
    public mutating func setPluralForm(_ key: String, language: String, variable: String?, category: String, to value: String) throws(TableEditError) {
        let path = self.path
        try updateLocalization(key, language) { (localization: inout CatalogJSON) throws(TableEditError) in
            var route: [String] = []
            if let variable {
                guard localization["substitutions"]?[variable] != nil else {
                    throw TableEditError(path: path,
                                         "\"\(key)\" in \(language) has no substitution \"\(variable)\" (its forms are set without a variable: --plural \(category))")
                }
                route = ["substitutions", variable]
            } else if localization["stringUnit"] != nil {
                // Varying a plain string by plural, as Xcode's "Vary by Plural" does.
                localization.remove("stringUnit")
            }
            try localization.update(ArraySlice(route + ["variations", "plural", category, "stringUnit"])) { (unit: inout CatalogJSON) throws(TableEditError) in
                unit.set("state", .string("translated"))
                unit.set("value", .string(value))
            }
        }
    }

    /// Sets one text of `key`'s variations in `language`, at `path` (pairs
    /// of kind and name: `device mac`, `device iphone plural one`,
    /// `substitutions count plural few`), as Xcode's "Vary by Device" makes
    /// them: a plain string varied at its first level loses its single text.
    public mutating func setVariation(_ key: String, language: String, path: [String], to value: String) throws(TableEditError) {
        let file = self.path
        guard path.count >= 2, path.count % 2 == 0 else { throw TableEditError(path: file, "\"\(key)\": variation path \(path) is not kind-name pairs") }
        try updateLocalization(key, language) { (localization: inout CatalogJSON) throws(TableEditError) in
            var route: [String] = []
            var pairs = stride(from: 0, to: path.count, by: 2).map { (path[$0], path[$0 + 1]) }[...]
            if let (kind, name) = pairs.first, kind == "substitutions" {
                guard localization["substitutions"]?[name] != nil else {
                    throw TableEditError(path: file, "\"\(key)\" in \(language) has no substitution \"\(name)\"")
                }
                route = ["substitutions", name]
                pairs = pairs.dropFirst()
            } else if localization["stringUnit"] != nil, localization["substitutions"] == nil {
                localization.remove("stringUnit")
            }
            for (kind, name) in pairs {
                guard kind == "plural" || kind == "device" else { throw TableEditError(path: file, "\"\(key)\": '\(kind)' is not a kind of variation") }
                route += ["variations", kind, name]
            }
            try localization.update(ArraySlice(route + ["stringUnit"])) { (unit: inout CatalogJSON) throws(TableEditError) in
                unit.set("state", .string("translated"))
                unit.set("value", .string(value))
            }
        }
    }

    /// Sets `key`'s comment (for every language).
    public mutating func setComment(_ key: String, _ comment: String) throws(TableEditError) {
        try updateItem(key) { item in item.set("comment", .string(comment)) }
    }

    /// Removes `key`'s localization in `language`, or (nil) the key itself;
    /// false when there was none.
    @discardableResult
    public mutating func remove(_ key: String, language: String?) throws(TableEditError) -> Bool {
        guard contains(key, language: language) else { return false }
        try root.update(["strings"]) { (strings: inout CatalogJSON) throws(TableEditError) in
            guard let language else { strings.remove(key); return }
            try strings.update([key, "localizations"]) { localizations in localizations.remove(language) }
        }
        return true
    }

    /// Renames `key` to `newKey` (which must be free), every language with it.
    public mutating func rename(_ key: String, to newKey: String) throws(TableEditError) {
        guard let item = root["strings"]?[key] else { return }
        guard root["strings"]?[newKey] == nil else { throw TableEditError(path: path, "\"\(newKey)\" is already a key of this catalog") }
        try root.update(["strings"]) { strings in
            strings.remove(key)
            strings.set(newKey, item)
        }
    }

    // MARK: - Helpers

    private mutating func updateItem(_ key: String, _ body: (inout CatalogJSON) throws(TableEditError) -> Void) throws(TableEditError) {
        let isNew = root["strings"]?[key] == nil
        try root.update(["strings", key]) { (item: inout CatalogJSON) throws(TableEditError) in
            if isNew { item.set("extractionState", .string("manual")) }
            try body(&item)
        }
    }

    private mutating func updateLocalization(_ key: String, _ language: String,
                                             _ body: (inout CatalogJSON) throws(TableEditError) -> Void) throws(TableEditError) {
        try updateItem(key) { (item: inout CatalogJSON) throws(TableEditError) in
            try item.update(["localizations", language], body)
        }
    }
}
