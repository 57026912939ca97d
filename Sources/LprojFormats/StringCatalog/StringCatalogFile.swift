import Foundation
import LprojTables

/// A String Catalog (`.xcstrings`): every language's table from one JSON file.
public struct StringCatalog: Hashable, Sendable {
    /// The language the keys are written in.
    public var sourceLanguage: String
    public var version: String
    /// One table per language that has at least one localization.
    public var tables: [String: Table]
    /// The keys to translate, sorted (not those marked `shouldTranslate: false`);
    /// a key without a source-language localization is its own source text.
    public var keys: [String]

    public init(sourceLanguage: String, version: String, tables: [String: Table], keys: [String] = []) {
        self.sourceLanguage = sourceLanguage
        self.version = version
        self.tables = tables
        self.keys = keys
    }

    /// The languages, sorted.
    public var languages: [String] { tables.keys.sorted() }
}

/// A parsed `.xcstrings` file.
public struct StringCatalogFile: Sendable {
    /// Whether `name` can name a localization, and so a `NAME.lproj`
    /// directory: 1 to 64 ASCII letters, digits, '-' and '_', starting with a
    /// letter (every language tag, `Base`, `zh_CN`; never a path).
    public static func isLocalizationName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count), let first = bytes.first, (0x41...0x5A).contains(first) || (0x61...0x7A).contains(first) else {
            return false
        }
        return bytes.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x5F
        }
    }

    public var catalog: StringCatalog
    public var diagnostics: [Diagnostic]

    /// Parses String Catalog JSON in one pass (`CatalogJSON`: every key's
    /// place is known as it is read). `path` names the file in diagnostics.
    public init(bytes: some ContiguousBytes, path: String) {
        let text = bytes.withUnsafeBytes { Array($0.bindMemory(to: UInt8.self)) }
        var parser = Parser(sink: DiagnosticSink(file: path, bytes: text))
        catalog = parser.parse(text)
        diagnostics = parser.sink.diagnostics.sorted { ($0.line, $0.column, $0.message) < ($1.line, $1.column, $1.message) }
    }

    private struct Parser {
        var sink: DiagnosticSink
        var tables: [String: [String: Entry]] = [:]
        var keys: [String] = []

        mutating func parse(_ text: [UInt8]) -> StringCatalog {
            let root: CatalogJSON
            do {
                let read = try CatalogJSON.read(text)
                root = read.value
                for duplicate in read.duplicates {
                    let (line, _) = sink.source.location(of: duplicate.first)
                    sink.report(.warning, at: duplicate.second,
                                   "\"\(duplicate.key)\" is written twice in one object (first at line \(line)); the last one counts",
                                   hint: "remove one of them")
                }
            } catch {
                sink.report(.error, at: error.offset, "not valid JSON: \(error.message)")
                return StringCatalog(sourceLanguage: "", version: "", tables: [:])
            }
            guard case .object = root else {
                sink.report(.error, at: 0, "a String Catalog must be a JSON object")
                return StringCatalog(sourceLanguage: "", version: "", tables: [:])
            }
            let sourceLanguage = root["sourceLanguage"]?.stringValue ?? ""
            if sourceLanguage.isEmpty {
                sink.report(.error, at: root.member("sourceLanguage")?.keyOffset ?? 0, "the catalog has no \"sourceLanguage\"",
                               hint: "add \"sourceLanguage\" : \"en\"")
            }
            let version = root["version"]?.stringValue ?? ""
            if version != "1.0" && version != "1.1" {
                sink.report(.warning, at: root.member("version")?.keyOffset ?? 0,
                               "catalog version \"\(version)\" is not one this reader knows (1.0, 1.1)")
            }
            guard let stringsMember = root.member("strings"), let strings = stringsMember.value.uniqueMembers else {
                sink.report(.error, at: root.member("strings")?.keyOffset ?? 0, "the catalog has no \"strings\" object")
                return StringCatalog(sourceLanguage: sourceLanguage, version: version, tables: [:])
            }
            for string in strings {
                let key = string.key, keyOffset = string.keyOffset
                guard case .object = string.value else {
                    sink.report(.error, at: keyOffset, "the string \"\(key)\" must be an object")
                    continue
                }
                if string.value["shouldTranslate"] != .bool(false) { keys.append(key) }
                guard let localizations = string.value.member("localizations") else { continue }
                guard let byLanguage = localizations.value.uniqueMembers else {
                    sink.report(.error, at: localizations.keyOffset, "\"localizations\" of \"\(key)\" must be an object")
                    continue
                }
                for localization in byLanguage {
                    let language = localization.key, at = localization.keyOffset
                    guard StringCatalogFile.isLocalizationName(language) else {
                        // It becomes a directory name (LANGUAGE.lproj) when compiled: "../x" would leave the output.
                        sink.report(.error, at: at, "\"\(language)\" (a localization of \"\(key)\") is not a localization name",
                                       hint: "a language tag such as en, pt-BR or zh-Hans: letters, digits, '-' and '_', not starting with '.'")
                        continue
                    }
                    if let entry = entry(localization.value, key: key, language: language, at: at) {
                        tables[language, default: [:]][key] = entry
                    }
                }
            }
            keys.sort()
            return StringCatalog(sourceLanguage: sourceLanguage, version: version, tables: tables.mapValues { Table($0) }, keys: keys)
        }

        /// One language's unit: `stringUnit` or `variations`, plus `substitutions`.
        private mutating func entry(_ unit: CatalogJSON, key: String, language: String, at offset: Int) -> Entry? {
            let place = "\"\(key)\" (\(language))"
            guard case .object = unit else {
                sink.report(.error, at: offset, "the localization \(place) must be an object")
                return nil
            }
            guard let (variants, state) = self.variants(unit, place: place, at: offset) else { return nil }
            var substitutions: [String: Substitution] = [:]
            if let list = unit.member("substitutions") {
                guard let byName = list.value.uniqueMembers else {
                    sink.report(.error, at: list.keyOffset, "\"substitutions\" of \(place) must be an object")
                    return nil
                }
                for member in byName {
                    let name = member.key, substitution = member.value
                    guard case .object = substitution else {
                        sink.report(.error, at: member.keyOffset, "the substitution \"\(name)\" of \(place) must be an object")
                        return nil
                    }
                    guard let (subVariants, _) = self.variants(substitution, place: "substitution \"\(name)\" of \(place)", at: member.keyOffset)
                    else { return nil }
                    var argumentNumber: Int?
                    if let number = substitution.member("argNum") {
                        guard case .number(let text) = number.value, let value = Int(text), value >= 1 else {
                            sink.report(.error, at: number.keyOffset,
                                           "\"argNum\" of substitution \"\(name)\" in \(place) must be a whole number from 1")
                            return nil
                        }
                        argumentNumber = value
                    }
                    substitutions[name] = Substitution(argumentNumber: argumentNumber,
                                                       formatSpecifier: substitution["formatSpecifier"]?.stringValue,
                                                       variants: subVariants)
                }
            }
            var referenced: [String] = []
            StringsDictFile.forEachText(variants) { referenced += FormatVariables.names(in: $0) }
            for name in Set(referenced).sorted() where substitutions[name] == nil {
                sink.report(.error, at: offset, "\(place) uses %#@\(name)@ but has no substitution \"\(name)\"")
                return nil
            }
            return Entry(value: variants, substitutions: substitutions, state: state)
        }

        /// A `stringUnit` or a `variations` tree.
        private mutating func variants(_ unit: CatalogJSON, place: String, at offset: Int) -> (Variants, TranslationState?)? {
            if let stringUnit = unit.member("stringUnit") {
                guard let value = stringUnit.value["value"]?.stringValue else {
                    sink.report(.error, at: stringUnit.keyOffset, "the stringUnit of \(place) needs a string \"value\"")
                    return nil
                }
                var state: TranslationState?
                if let field = stringUnit.value.member("state"), let name = field.value.stringValue {
                    state = TranslationState(rawValue: name)
                    if state == nil {
                        sink.report(.warning, at: field.keyOffset,
                                       "unknown state \"\(name)\" in \(place)", hint: "use new, translated, needs_review or stale")
                    }
                }
                return (.text(value), state)
            }
            guard let variations = unit["variations"], case .object = variations else {
                sink.report(.error, at: offset, "\(place) has neither a \"stringUnit\" nor \"variations\"")
                return nil
            }
            for (kind, allowed) in [("plural", Variants.pluralCategories), ("device", Variants.devices)] {
                guard let forms = variations.member(kind) else { continue }
                let kindOffset = forms.keyOffset
                guard let byCase = forms.value.uniqueMembers else {
                    sink.report(.error, at: kindOffset, "\"\(kind)\" variations of \(place) must be an object")
                    return nil
                }
                var result: [String: Variants] = [:]
                for member in byCase {
                    let name = member.key
                    guard allowed.contains(name) else {
                        sink.report(.warning, at: member.keyOffset, "\"\(name)\" is not a \(kind) case; it is never used",
                                       hint: "use one of \(allowed.joined(separator: ", "))")
                        continue
                    }
                    guard case .object = member.value,
                          let (variant, _) = variants(member.value, place: "\(kind) \"\(name)\" of \(place)", at: member.keyOffset)
                    else {
                        if case .object = member.value {} else {
                            sink.report(.error, at: member.keyOffset, "\(kind) \"\(name)\" of \(place) must be an object")
                        }
                        return nil
                    }
                    result[name] = variant
                }
                if kind == "plural", result["other"] == nil {
                    sink.report(.warning, at: kindOffset,
                                   "plural variations of \(place) have no \"other\" case; numbers no other category covers have no text",
                                   rule: .pluralWithoutOther)
                }
                return (kind == "plural" ? .plural(result) : .device(result), nil)
            }
            sink.report(.error, at: offset, "variations of \(place) are neither \"plural\" nor \"device\"")
            return nil
        }
    }
}
