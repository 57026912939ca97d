import LprojFormats

/// For each key of a sync — the catalog's and the sources' — where the
/// sources use it, or why it is stale: `lprojctl catalog sync --explain`.
public struct SyncExplanation: Sendable {
    /// One key's account.
    public struct Key: Sendable, Equatable {
        public enum Verdict: String, Sendable {
            /// In the catalog and used.
            case used
            /// Used; the sync adds it.
            case new
            /// In the catalog, used by no source; the sync marks it stale (or it was).
            case stale
            /// Added by hand: left alone, used or not.
            case manual
            /// Migrated from a table and not used yet: left as it is until a source uses it.
            case migrated
        }

        public var key: String
        public var verdict: Verdict
        /// Where the sources use it, and why each place counts.
        public var uses: [SourceScanner.Use]
        /// For a key no source uses: where its text is a literal that is not a key (a plain `String`).
        public var plainLiterals: [SourceScanner.Literal]
    }

    public let keys: [Key]

    /// - Parameters:
    ///   - catalog: the catalog's keys before the sync, each with its `extractionState`.
    ///   - uses: the uses of the catalog's table.
    ///   - otherLiterals: every literal the scan did not read as a key.
    public init(catalog: [(key: String, state: String?)], uses: [SourceScanner.Use], otherLiterals: [SourceScanner.Literal]) {
        let byKey = Dictionary(grouping: uses, by: \.key)
        var states: [String: String?] = [:]
        for (key, state) in catalog { states[key] = state }
        var plain: [String: [SourceScanner.Literal]] = [:]
        for literal in otherLiterals where states[literal.text] != nil && byKey[literal.text] == nil {
            plain[literal.text, default: []].append(literal)
        }
        let all = Set(states.keys).union(byKey.keys).sorted(by: XcodeOrder.precedes)
        keys = all.map { key in
            let found = byKey[key] ?? []
            let verdict: Key.Verdict
            switch states[key] {
            case nil: verdict = .new
            case "manual"?: verdict = .manual
            case "migrated"? where found.isEmpty: verdict = .migrated
            default: verdict = found.isEmpty ? .stale : .used
            }
            return Key(key: key, verdict: verdict, uses: found, plainLiterals: plain[key] ?? [])
        }
    }

    /// One line per key: `"key": used at File.swift:12:9 (Button())`, or why it is stale.
    public func lines(relativeTo root: String) -> [String] {
        func place(_ file: String, _ line: Int, _ column: Int) -> String {
            (file.hasPrefix(root + "/") ? String(file.dropFirst(root.count + 1)) : file) + ":\(line):\(column)"
        }
        return keys.map { account in
            let name = CatalogSync.Change.quoted(account.key)
            let uses = account.uses.map { "\(place($0.file, $0.line, $0.column)) (\($0.reason))" }
            let plain = account.plainLiterals.map { place($0.file, $0.line, $0.column) }
            switch account.verdict {
            case .used, .new:
                return "\(name): \(account.verdict == .new ? "new, " : "")used at " + uses.joined(separator: ", ")
            case .manual:
                return "\(name): added by hand, left alone" + (uses.isEmpty ? "" : "; used at " + uses.joined(separator: ", "))
            case .migrated:
                return "\(name): migrated, not used yet (left as it is)"
            case .stale:
                let seen = plain.isEmpty ? "" : "; its text is a plain String at " + plain.joined(separator: ", ")
                    + " (not a localizable position: give it LocalizedStringKey, String(localized:), or name the position with --localizable)"
                return "\(name): stale, no source uses it as a key" + seen
            }
        }
    }
}
