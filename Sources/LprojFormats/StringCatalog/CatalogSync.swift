import LprojTables
/// What Xcode's extraction does to a String Catalog on every build, done on
/// request: the keys the sources use are the catalog's keys.
///
/// - A key used and absent is added — with the source's comment, and, when
///   the source gives a text besides the key (`defaultValue:`, `value:`),
///   that text as the source language's `new` unit and the state
///   `extracted_with_value`; a key extracted without one carries no state,
///   as Xcode writes automatically extracted keys.
/// - A key no longer used is marked `stale`, never deleted; its
///   translations stay. A stale key used again is extracted again.
/// - Keys added by hand (`manual`) are never touched; `migrated` keys are
///   not marked stale (their sources may not be scanned yet) and become
///   extracted keys once a source uses them.
/// - A comment the source gives replaces the catalog's; a source without
///   one leaves the catalog's comment.
public struct CatalogSync: Sendable {
    /// One key as the sources use it.
    public struct Use: Equatable, Sendable {
        public var key: String
        public var comment: String?
        public var defaultValue: String?

        public init(key: String, comment: String? = nil, defaultValue: String? = nil) {
            self.key = key
            self.comment = comment
            self.defaultValue = defaultValue
        }
    }

    /// One change, for a report.
    public enum Change: Equatable, Sendable, CustomStringConvertible {
        case added(String)
        case markedStale(String)
        /// A stale or migrated key a source uses again.
        case extracted(String)
        case comment(String, String?)
        case defaultValue(String, String?)

        public var key: String {
            switch self {
            case .added(let key), .markedStale(let key), .extracted(let key), .comment(let key, _), .defaultValue(let key, _): key
            }
        }

        public var description: String {
            switch self {
            case .added(let key): "+ \(Self.quoted(key))"
            case .markedStale(let key): "- \(Self.quoted(key)) is stale: no source uses it"
            case .extracted(let key): "* \(Self.quoted(key)) is used again"
            case .comment(let key, let comment): "# \(Self.quoted(key)) comment: \(comment.map(Self.quoted) ?? "none")"
            case .defaultValue(let key, let value): "= \(Self.quoted(key)) source text: \(value.map(Self.quoted) ?? "the key")"
            }
        }

        public static func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\n", with: "\\n") + "\""
        }
    }

    /// The uses, one per key: the first use's text; distinct comments joined by a line break, as Xcode joins them.
    public let uses: [Use]

    public init(uses: [Use]) {
        var merged: [String: Use] = [:]
        var order: [String] = []
        for use in uses {
            guard var known = merged[use.key] else {
                merged[use.key] = use
                order.append(use.key)
                continue
            }
            if let comment = use.comment, !comment.isEmpty {
                let existing = known.comment.map { $0.components(separatedBy: "\n") } ?? []
                if !existing.contains(comment) { known.comment = (existing + [comment]).joined(separator: "\n") }
            }
            if known.defaultValue == nil { known.defaultValue = use.defaultValue }
            merged[use.key] = known
        }
        self.uses = order.map { merged[$0]! }
    }

    /// Brings `document` in line with the uses; the changes made, in key order.
    public func apply(to document: inout StringCatalogDocument) -> [Change] {
        var changes: [Change] = []
        let used = Dictionary(uniqueKeysWithValues: uses.map { ($0.key, $0) })
        let source = document.sourceLanguage ?? "en"
        for use in uses.sorted(by: { XcodeOrder.precedes($0.key, $1.key) }) {
            changes += document.extract(use, sourceLanguage: source)
        }
        for key in document.keys where used[key] == nil {
            let state = document.extractionState(of: key)
            if state == nil || state == "extracted_with_value" {
                document.setExtractionState(key, "stale")
                changes.append(.markedStale(key))
            }
        }
        return changes.sorted { XcodeOrder.precedes($0.key, $1.key) }
    }
}

extension StringCatalogDocument {
    /// The keys, in the file's order.
    public var keys: [String] {
        guard case .object(let members, _)? = root["strings"] else { return [] }
        return members.map(\.key)
    }

    /// `key`'s `extractionState` (nil: extracted automatically, or no such key).
    public func extractionState(of key: String) -> String? { root["strings"]?[key]?["extractionState"]?.stringValue }

    /// `key`'s comment for translators.
    public func comment(of key: String) -> String? { root["strings"]?[key]?["comment"]?.stringValue }

    fileprivate mutating func setExtractionState(_ key: String, _ state: String?) {
        try? root.update(["strings", key]) { item in
            if let state { item.set("extractionState", .string(state)) } else { item.remove("extractionState") }
        }
    }

    /// Makes `use` an extracted key of this catalog.
    fileprivate mutating func extract(_ use: CatalogSync.Use, sourceLanguage: String) -> [CatalogSync.Change] {
        guard root["strings"]?[use.key] != nil else {
            var members: [CatalogJSON.Member] = []
            if let comment = use.comment { members.append(.init("comment", .string(comment))) }
            if let value = use.defaultValue {
                members.append(.init("extractionState", .string("extracted_with_value")))
                members.append(.init("localizations", .object([.init(sourceLanguage, Self.newUnit(value))])))
            }
            try? root.update(["strings"]) { strings in strings.set(use.key, .object(members)) }
            return [.added(use.key)]
        }
        let state = extractionState(of: use.key)
        guard state != "manual" else { return [] }
        var changes: [CatalogSync.Change] = []
        let wanted = use.defaultValue == nil ? nil : "extracted_with_value"
        if state != wanted {
            setExtractionState(use.key, wanted)
            if state == "stale" || state == "migrated" {
                changes.append(.extracted(use.key))
            } else if use.defaultValue == nil {
                changes.append(.defaultValue(use.key, nil))
            }
        }
        if let comment = use.comment, comment != self.comment(of: use.key) {
            try? root.update(["strings", use.key]) { item in item.set("comment", .string(comment)) }
            changes.append(.comment(use.key, comment))
        }
        // The source's own text follows the source while nobody has translated it into the source language.
        if let value = use.defaultValue {
            let unit = root["strings"]?[use.key]?["localizations"]?[sourceLanguage]
            let current = unit?["stringUnit"]?["value"]?.stringValue
            if unit == nil || (current != value && unit?["stringUnit"]?["state"]?.stringValue == "new") {
                try? root.update(["strings", use.key, "localizations"]) { localizations in
                    localizations.set(sourceLanguage, Self.newUnit(value))
                }
                changes.append(.defaultValue(use.key, value))
            }
        }
        return changes
    }

    private static func newUnit(_ value: String) -> CatalogJSON {
        .object([.init("stringUnit", .object([.init("state", .string("new")), .init("value", .string(value))]))])
    }
}
