import Foundation

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

    /// Parses String Catalog JSON. `path` names the file in diagnostics.
    public init(bytes: some ContiguousBytes, path: String) {
        let data = bytes.withUnsafeBytes { Data($0) }
        var parser = Parser(locator: KeyLocator(syntax: .json, file: path, bytes: Array(data)))
        catalog = parser.parse(data)
        diagnostics = parser.locator.diagnostics
    }

    private struct Parser {
        var locator: KeyLocator
        var tables: [String: [String: Entry]] = [:]
        var keys: [String] = []

        mutating func parse(_ data: Data) -> StringCatalog {
            let object: Any
            do {
                object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            } catch {
                let message = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
                let offset = Self.characterOffset(in: message) ?? data.count
                locator.report(.error, at: offset, "not valid JSON: \(message)")
                return StringCatalog(sourceLanguage: "", version: "", tables: [:])
            }
            guard let root = object as? [String: Any] else {
                locator.report(.error, at: 0, "a String Catalog must be a JSON object")
                return StringCatalog(sourceLanguage: "", version: "", tables: [:])
            }
            let sourceLanguage = root["sourceLanguage"] as? String ?? ""
            if sourceLanguage.isEmpty {
                locator.report(.error, at: locator.offset(ofKey: "sourceLanguage"), "the catalog has no \"sourceLanguage\"",
                               hint: "add \"sourceLanguage\" : \"en\"")
            }
            let version = root["version"] as? String ?? ""
            if version != "1.0" && version != "1.1" {
                locator.report(.warning, at: locator.offset(ofKey: "version"),
                               "catalog version \"\(version)\" is not one this reader knows (1.0, 1.1)")
            }
            guard let strings = root["strings"] as? [String: Any] else {
                locator.report(.error, at: locator.offset(ofKey: "strings"), "the catalog has no \"strings\" object")
                return StringCatalog(sourceLanguage: sourceLanguage, version: version, tables: [:])
            }
            let stringsOffset = locator.offset(ofKey: "strings")
            for key in strings.keys.sorted() {
                let keyOffset = locator.offset(ofKey: key, from: stringsOffset)
                guard let item = strings[key] as? [String: Any] else {
                    locator.report(.error, at: keyOffset, "the string \"\(key)\" must be an object")
                    continue
                }
                if item["shouldTranslate"] as? Bool != false { keys.append(key) }
                guard let localizations = item["localizations"] else { continue }
                guard let byLanguage = localizations as? [String: Any] else {
                    locator.report(.error, at: keyOffset, "\"localizations\" of \"\(key)\" must be an object")
                    continue
                }
                for language in byLanguage.keys.sorted() {
                    let at = locator.offset(ofKey: language, from: keyOffset)
                    guard StringCatalogFile.isLocalizationName(language) else {
                        // It becomes a directory name (LANGUAGE.lproj) when compiled: "../x" would leave the output.
                        locator.report(.error, at: at, "\"\(language)\" (a localization of \"\(key)\") is not a localization name",
                                       hint: "a language tag such as en, pt-BR or zh-Hans: letters, digits, '-' and '_', not starting with '.'")
                        continue
                    }
                    if let entry = entry(byLanguage[language]!, key: key, language: language, at: at) {
                        tables[language, default: [:]][key] = entry
                    }
                }
            }
            return StringCatalog(sourceLanguage: sourceLanguage, version: version, tables: tables.mapValues { Table($0) }, keys: keys)
        }

        /// One language's unit: `stringUnit` or `variations`, plus `substitutions`.
        private mutating func entry(_ object: Any, key: String, language: String, at offset: Int) -> Entry? {
            let place = "\"\(key)\" (\(language))"
            guard let unit = object as? [String: Any] else {
                locator.report(.error, at: offset, "the localization \(place) must be an object")
                return nil
            }
            guard let (variants, state) = self.variants(unit, place: place, at: offset) else { return nil }
            var substitutions: [String: Substitution] = [:]
            if let list = unit["substitutions"] {
                guard let byName = list as? [String: Any] else {
                    locator.report(.error, at: offset, "\"substitutions\" of \(place) must be an object")
                    return nil
                }
                for name in byName.keys.sorted() {
                    let nameOffset = locator.offset(ofKey: name, from: offset)
                    guard let substitution = byName[name] as? [String: Any],
                          let (subVariants, _) = self.variants(substitution, place: "substitution \"\(name)\" of \(place)", at: nameOffset)
                    else { return nil }
                    var argumentNumber: Int?
                    if let number = substitution["argNum"] {
                        guard let value = number as? Int, value >= 1 else {
                            locator.report(.error, at: locator.offset(ofKey: "argNum", from: nameOffset),
                                           "\"argNum\" of substitution \"\(name)\" in \(place) must be a whole number from 1")
                            return nil
                        }
                        argumentNumber = value
                    }
                    substitutions[name] = Substitution(argumentNumber: argumentNumber,
                                                       formatSpecifier: substitution["formatSpecifier"] as? String,
                                                       variants: subVariants)
                }
            }
            var referenced: [String] = []
            StringsDictFile.forEachText(variants) { referenced += FormatVariables.names(in: $0) }
            for name in Set(referenced).sorted() where substitutions[name] == nil {
                locator.report(.error, at: offset, "\(place) uses %#@\(name)@ but has no substitution \"\(name)\"")
                return nil
            }
            return Entry(value: variants, substitutions: substitutions, state: state)
        }

        /// A `stringUnit` or a `variations` tree.
        private mutating func variants(_ unit: [String: Any], place: String, at offset: Int) -> (Variants, TranslationState?)? {
            if let stringUnit = unit["stringUnit"] {
                guard let fields = stringUnit as? [String: Any], let value = fields["value"] as? String else {
                    locator.report(.error, at: locator.offset(ofKey: "stringUnit", from: offset),
                                   "the stringUnit of \(place) needs a string \"value\"")
                    return nil
                }
                var state: TranslationState?
                if let name = fields["state"] as? String {
                    state = TranslationState(rawValue: name)
                    if state == nil {
                        locator.report(.warning, at: locator.offset(ofKey: "state", from: offset),
                                       "unknown state \"\(name)\" in \(place)", hint: "use new, translated, needs_review or stale")
                    }
                }
                return (.text(value), state)
            }
            guard let variations = unit["variations"] as? [String: Any] else {
                locator.report(.error, at: offset, "\(place) has neither a \"stringUnit\" nor \"variations\"")
                return nil
            }
            for (kind, allowed) in [("plural", Variants.pluralCategories), ("device", Variants.devices)] {
                guard let forms = variations[kind] else { continue }
                let kindOffset = locator.offset(ofKey: kind, from: offset)
                guard let byCase = forms as? [String: Any] else {
                    locator.report(.error, at: kindOffset, "\"\(kind)\" variations of \(place) must be an object")
                    return nil
                }
                var result: [String: Variants] = [:]
                for name in byCase.keys.sorted() {
                    let caseOffset = locator.offset(ofKey: name, from: kindOffset)
                    guard allowed.contains(name) else {
                        locator.report(.warning, at: caseOffset, "\"\(name)\" is not a \(kind) case; it is never used",
                                       hint: "use one of \(allowed.joined(separator: ", "))")
                        continue
                    }
                    guard let nested = byCase[name] as? [String: Any],
                          let (variant, _) = variants(nested, place: "\(kind) \"\(name)\" of \(place)", at: caseOffset)
                    else { return nil }
                    result[name] = variant
                }
                if kind == "plural", result["other"] == nil {
                    locator.report(.warning, at: kindOffset,
                                   "plural variations of \(place) have no \"other\" case; numbers no other category covers have no text")
                }
                return (kind == "plural" ? .plural(result) : .device(result), nil)
            }
            locator.report(.error, at: offset, "variations of \(place) are neither \"plural\" nor \"device\"")
            return nil
        }

        private static func characterOffset(in message: String) -> Int? {
            guard let range = message.range(of: "character ") else { return nil }
            return Int(message[range.upperBound...].prefix { $0.isNumber })
        }
    }
}
