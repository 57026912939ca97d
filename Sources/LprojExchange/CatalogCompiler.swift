import Foundation
import LprojFormats
import LprojTables

/// A String Catalog turned into what Xcode's build makes of it: per
/// language, a `.strings` table of the plain strings and a `.stringsdict`
/// of the plural, device and substitution variations — files Foundation's
/// `Bundle` and every older tool read, holding the values a reader of the
/// catalog itself finds.
public enum CatalogCompiler {
    /// One language's compiled table.
    public struct Language: Sendable {
        /// `.strings` text (UTF-8, keys sorted), nil when no plain string is left.
        public var strings: [UInt8]?
        /// `.stringsdict` (an XML property list), nil when no variation is left.
        public var stringsDict: [UInt8]?
    }

    /// Why a catalog cannot be compiled: one entry's problem.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var key: String
        public var language: String
        public var message: String
        public var description: String { "\"\(key)\" (\(language)): \(message)" }
    }

    /// Compiles every language of `catalog`; with `states`, only units in
    /// those states (a plain translated string's state is `translated`).
    /// A key the source language has no text for is its own text there.
    public static func compile(_ catalog: StringCatalog, states: Set<TranslationState>? = nil) throws(Problem) -> [String: Language] {
        var languages = Set(catalog.tables.keys)
        if !catalog.sourceLanguage.isEmpty { languages.insert(catalog.sourceLanguage) }
        var result: [String: Language] = [:]
        for language in languages.sorted() {
            var plain: [String: Entry] = [:]
            var rules: [String: Any] = [:]
            for (key, entry) in catalog.tables[language] ?? Table() {
                if let states, !states.contains(entry.state ?? .translated) { continue }
                if let text = entry.text {
                    plain[key] = Entry(text: text)
                } else {
                    rules[key] = try rule(entry, key: key, language: language)
                }
            }
            if language == catalog.sourceLanguage, states?.contains(.translated) ?? true {
                for key in catalog.keys where plain[key] == nil && rules[key] == nil && catalog.tables[language]?[key] == nil {
                    plain[key] = Entry(text: key)
                }
            }
            var compiled = Language()
            if !plain.isEmpty { compiled.strings = Array(((try? StringsWriter.text(for: Table(plain))) ?? "").utf8) }
            if !rules.isEmpty {
                guard let data = try? PropertyListSerialization.data(fromPropertyList: rules, format: .xml, options: 0) else {
                    throw Problem(key: "", language: language, message: "the variations cannot be written as a property list")
                }
                compiled.stringsDict = Array(data)
            }
            if compiled.strings != nil || compiled.stringsDict != nil { result[language] = compiled }
        }
        return result
    }

    /// An entry's `.stringsdict` dictionary.
    private static func rule(_ entry: Entry, key: String, language: String) throws(Problem) -> [String: Any] {
        func problem(_ message: String) -> Problem { Problem(key: key, language: language, message: message) }
        func forms(_ variants: Variants, of what: String) throws(Problem) -> [String: String] {
            guard case .plural(let cases) = variants else { throw problem("\(what) must vary by plural to be written to a .stringsdict") }
            var forms: [String: String] = [:]
            for (category, form) in cases {
                guard case .text(let text) = form else { throw problem("\(what) nests variations a .stringsdict cannot hold") }
                forms[category] = text
            }
            return forms
        }
        func variable(_ forms: [String: String], valueType: String?) -> [String: Any] {
            var dictionary: [String: Any] = [StringsDictFile.specTypeKey: StringsDictFile.pluralRuleType,
                                             StringsDictFile.valueTypeKey: valueType ?? Self.valueType(in: forms.values.sorted()) ?? "d"]
            for (category, text) in forms { dictionary[category] = text }
            return dictionary
        }
        switch entry.value {
        case .text(var format):
            var dictionary: [String: Any] = [:]
            for (name, substitution) in entry.substitutions {
                let written = try forms(substitution.variants, of: "substitution \"\(name)\"").mapValues { Self.concrete($0, for: substitution) }
                dictionary[name] = variable(written, valueType: substitution.formatSpecifier)
                // A substitution bound to an argument reads it by position.
                if let number = substitution.argumentNumber {
                    format = format.replacingOccurrences(of: "%#@\(name)@", with: "%\(number)$#@\(name)@")
                }
            }
            dictionary[StringsDictFile.formatKey] = format
            return dictionary
        case .plural:
            guard entry.substitutions.isEmpty else { throw problem("plural variations with substitutions cannot be written to a .stringsdict") }
            let name = "value"
            return [StringsDictFile.formatKey: "%#@\(name)@", name: variable(try forms(entry.value, of: "the text"), valueType: nil)]
        case .device(let devices):
            guard entry.substitutions.isEmpty else { throw problem("device variations with substitutions cannot be written to a .stringsdict") }
            var forms: [String: String] = [:]
            for (device, form) in devices {
                guard case .text(let text) = form else { throw problem("device variations that vary again cannot be written to a .stringsdict") }
                forms[device] = text
            }
            return [StringsDictFile.deviceRuleType: forms]
        }
    }

    /// A substitution's form as Foundation formats it, as Xcode compiles it:
    /// `%arg` (the catalog's word for the substitution's own argument)
    /// becomes `%<argNum>$<formatSpecifier>` (`%2$lld`), or without a
    /// position when the substitution has no `argNum` — Foundation would
    /// read a literal `%arg` as `%a` and the text `rg`.
    static func concrete(_ form: String, for substitution: Substitution) -> String {
        form.contains("%arg") ? form.replacingOccurrences(of: "%arg", with: substitution.argumentSpecifier) : form
    }

    /// The printf conversion of the first specifier in `texts` (`lld`,
    /// `d`, `@`), the length modifier with it: a plural variable's value type.
    static func valueType(in texts: [String]) -> String? {
        for text in texts {
            var scalars = Substring(text)
            while let percent = scalars.firstIndex(of: "%") {
                var rest = scalars[scalars.index(after: percent)...]
                if rest.first == "%" { scalars = rest.dropFirst(); continue }
                // Position, flags, width, precision.
                let digits = rest.prefix { $0.isASCII && $0.isNumber }
                if !digits.isEmpty, rest[digits.endIndex...].first == "$" { rest = rest[digits.endIndex...].dropFirst() }
                rest = rest.drop { "-+ #0123456789.".contains($0) }
                let length = rest.prefix { "hlqLzjt".contains($0) }
                rest = rest[length.endIndex...]
                if let conversion = rest.first, "diouxXeEfgGcsaA@".contains(conversion) { return String(length) + String(conversion) }
                scalars = rest
            }
        }
        return nil
    }
}
