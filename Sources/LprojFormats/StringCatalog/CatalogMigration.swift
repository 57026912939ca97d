import LprojTables
/// Tables of every localization made into one String Catalog, as Xcode's
/// "Migrate to String Catalog" does: each language's entries become its
/// units — a plain string a `stringUnit`, a `.stringsdict` rule its format
/// with `substitutions` (or plural and device `variations`) — with the
/// source language's comments, every key marked `migrated`. Written as
/// Xcode writes catalogs (`CatalogJSON`).
public enum CatalogMigration {
    /// The catalog text of `tables` (by localization), whose keys are in `sourceLanguage`.
    public static func catalog(tables: [String: Table], sourceLanguage: String, comments: [String: String] = [:]) -> [UInt8] {
        var items: [String: [CatalogJSON.Member]] = [:]
        for (language, table) in tables {
            for (key, entry) in table {
                items[key, default: []].append(CatalogJSON.Member(language, unit(entry)))
            }
        }
        let strings = items.keys.sorted(by: XcodeOrder.precedes).map { key -> CatalogJSON.Member in
            var members: [CatalogJSON.Member] = []
            if let comment = comments[key] { members.append(.init("comment", .string(comment))) }
            members.append(.init("extractionState", .string("migrated")))
            members.append(.init("localizations", .object(items[key]!.sorted { XcodeOrder.precedes($0.key, $1.key) })))
            return .init(key, .object(members))
        }
        return CatalogJSON.object([.init("sourceLanguage", .string(sourceLanguage)), .init("strings", .object(strings)),
                                   .init("version", .string("1.0"))]).rendered()
    }

    /// `tables` with `Base`'s keys carried into the development language
    /// where it lacks them, as Xcode's migration does (a catalog has no
    /// `Base`: its keys would be lost); `Base` itself is left out. Returns
    /// the keys carried, sorted.
    public static func carryingBase(_ tables: [String: Table], development: String) -> (tables: [String: Table], carried: [String]) {
        var result = tables
        guard let base = result.removeValue(forKey: "Base") else { return (result, []) }
        let target = result[development] ?? Table()
        var carried: [String: Entry] = [:]
        for (key, entry) in base where target[key] == nil { carried[key] = entry }
        if !carried.isEmpty { result[development] = target.updating(carried, removing: []) }
        return (result, carried.keys.sorted(by: XcodeOrder.precedes))
    }

    /// One language's unit for `entry`.
    private static func unit(_ entry: Entry) -> CatalogJSON {
        let state = entry.state ?? .translated
        var members = variants(entry.value, state: state)
        if !entry.substitutions.isEmpty {
            let substitutions = entry.substitutions.keys.sorted(by: XcodeOrder.precedes).map { name -> CatalogJSON.Member in
                let substitution = entry.substitutions[name]!
                var fields: [CatalogJSON.Member] = []
                if let number = substitution.argumentNumber { fields.append(.init("argNum", .number(String(number)))) }
                if let specifier = substitution.formatSpecifier { fields.append(.init("formatSpecifier", .string(specifier))) }
                // A substitution's variations: its `variations` member as a unit holds it.
                fields += variants(substitution.variants, state: state)
                return .init(name, .object(fields))
            }
            members.append(.init("substitutions", .object(substitutions)))
        }
        return .object(members)
    }

    /// `stringUnit`, or `variations` by plural category or device, each a unit again.
    private static func variants(_ variants: Variants, state: TranslationState) -> [CatalogJSON.Member] {
        switch variants {
        case .text(let text):
            return [.init("stringUnit", .object([.init("state", .string(state.rawValue)), .init("value", .string(text))]))]
        case .plural(let forms), .device(let forms):
            let kind: String
            if case .plural = variants { kind = "plural" } else { kind = "device" }
            let cases = forms.keys.sorted(by: XcodeOrder.precedes).map { CatalogJSON.Member($0, .object(Self.variants(forms[$0]!, state: state))) }
            return [.init("variations", .object([.init(kind, .object(cases))]))]
        }
    }
}
