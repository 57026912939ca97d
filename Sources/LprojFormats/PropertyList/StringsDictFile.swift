import Foundation
import LprojTables

/// A parsed `.stringsdict` file: plural (and device) rules by key.
///
/// Each entry becomes an `Entry` whose value is the
/// `NSStringLocalizedFormatKey` and whose substitutions are the variables it
/// defines. Checked: the format key is there; every variable it names is
/// defined; each variable has a known spec type, a value type, an `other`
/// form, and only CLDR categories.
public struct StringsDictFile: Sendable {
    public var table: Table
    public var diagnostics: [Diagnostic]

    public static let formatKey = "NSStringLocalizedFormatKey"
    public static let specTypeKey = "NSStringFormatSpecTypeKey"
    public static let valueTypeKey = "NSStringFormatValueTypeKey"
    public static let pluralRuleType = "NSStringPluralRuleType"
    public static let deviceRuleType = "NSStringDeviceSpecificRuleType"

    /// Parses `.stringsdict` bytes (an XML or binary property list). `path`
    /// names the file in diagnostics; `limits` bound what a binary property
    /// list may decode into.
    public init(bytes: some ContiguousBytes, path: String, limits: TableLimits = TableLimits()) {
        let data = bytes.withUnsafeBytes { Data($0) }
        var locator = KeyLocator(file: path, bytes: Array(data))
        var entries: [String: Entry] = [:]
        let (object, failure) = PropertyListTable.decode(data, path: path, limits: limits)
        if let failure {
            locator.report(failure)
        } else if let root = object as? [String: Any] {
            for key in root.keys.sorted() {
                let at = locator.entryOffsets[key] ?? 0
                if let entry = Self.entry(key, root[key]!, at: at, locator: &locator) { entries[key] = entry }
            }
        } else {
            locator.report(.error, at: 0, "a .stringsdict must hold a dictionary of entries, found \(PropertyListTable.typeName(object))")
        }
        table = Table(entries)
        diagnostics = locator.diagnostics
    }

    private static func entry(_ key: String, _ object: Any, at offset: Int, locator: inout KeyLocator) -> Entry? {
        guard let dictionary = object as? [String: Any] else {
            locator.report(.error, at: offset, "entry \"\(key)\" must be a dictionary, found \(PropertyListTable.typeName(object))")
            return nil
        }
        if let devices = dictionary[deviceRuleType] {
            guard let variants = deviceVariants(devices, in: key, at: offset, locator: &locator) else { return nil }
            return Entry(value: variants)
        }
        guard let formatObject = dictionary[formatKey] else {
            locator.report(.error, at: offset, "entry \"\(key)\" has no \(formatKey)",
                           hint: "add <key>\(formatKey)</key><string>%#@variable@</string>")
            return nil
        }
        guard let format = formatObject as? String else {
            locator.report(.error, at: locator.offset(ofKey: formatKey, from: offset),
                           "\(formatKey) of \"\(key)\" must be a string, found \(PropertyListTable.typeName(formatObject))")
            return nil
        }
        var substitutions: [String: Substitution] = [:]
        var valid = true
        for name in dictionary.keys.sorted() where name != formatKey {
            let variableOffset = locator.offset(ofKey: name, from: offset)
            guard let variable = dictionary[name] as? [String: Any] else { continue }
            if let substitution = self.substitution(name, variable, in: key, at: variableOffset, locator: &locator) {
                substitutions[name] = substitution
            } else {
                valid = false
            }
        }
        var referenced = FormatVariables.names(in: format)
        for substitution in substitutions.values {
            forEachText(substitution.variants) { referenced += FormatVariables.names(in: $0) }
        }
        for name in Set(referenced).sorted() where dictionary[name] == nil {
            locator.report(.error, at: locator.offset(ofKey: formatKey, from: offset),
                           "entry \"\(key)\" uses %#@\(name)@ but defines no variable \"\(name)\"",
                           hint: "add <key>\(name)</key> with its plural forms")
            valid = false
        }
        return valid ? Entry(value: .text(format), substitutions: substitutions) : nil
    }

    private static func substitution(_ name: String, _ variable: [String: Any], in key: String, at offset: Int,
                                     locator: inout KeyLocator) -> Substitution? {
        let where_ = "variable \"\(name)\" of \"\(key)\""
        guard let specType = variable[specTypeKey] as? String else {
            locator.report(.error, at: offset, "\(where_) has no \(specTypeKey)",
                           hint: "add <key>\(specTypeKey)</key><string>\(pluralRuleType)</string>")
            return nil
        }
        guard specType == pluralRuleType else {
            locator.report(.error, at: locator.offset(ofKey: specTypeKey, from: offset),
                           "\(where_) has unknown spec type \"\(specType)\"", hint: "use \(pluralRuleType)")
            return nil
        }
        var valueType = variable[valueTypeKey] as? String
        if valueType == nil {
            locator.report(.warning, at: offset, "\(where_) has no \(valueTypeKey)", hint: "add the printf type of the number, e.g. d or ld")
        } else if valueType!.hasPrefix("%") {
            valueType!.removeFirst()
        }
        var forms: [String: Variants] = [:]
        for (category, form) in variable where category != specTypeKey && category != valueTypeKey {
            guard Variants.pluralCategories.contains(category) else {
                let suggestion = Variants.pluralCategories.first { $0 == category.lowercased() }
                locator.report(.warning, at: locator.offset(ofKey: category, from: offset),
                               "\"\(category)\" in \(where_) is not a CLDR plural category; it is never used",
                               hint: suggestion.map { "write \"\($0)\"" } ?? "use zero, one, two, few, many or other")
                continue
            }
            guard let text = form as? String else {
                locator.report(.error, at: locator.offset(ofKey: category, from: offset),
                               "the \"\(category)\" form of \(where_) must be a string, found \(PropertyListTable.typeName(form))")
                return nil
            }
            forms[category] = .text(text)
        }
        if forms["other"] == nil {
            locator.report(.warning, at: offset, "\(where_) has no \"other\" form; numbers no other category covers (such as 1.5) have no text",
                           hint: "Apple requires <key>other</key> in every plural rule", rule: .pluralWithoutOther)
        }
        return Substitution(formatSpecifier: valueType, variants: .plural(forms))
    }

    private static func deviceVariants(_ object: Any, in key: String, at offset: Int, locator: inout KeyLocator) -> Variants? {
        guard let devices = object as? [String: Any] else {
            locator.report(.error, at: offset, "\(deviceRuleType) of \"\(key)\" must be a dictionary")
            return nil
        }
        var forms: [String: Variants] = [:]
        for (device, form) in devices {
            guard Variants.devices.contains(device) else {
                locator.report(.warning, at: locator.offset(ofKey: device, from: offset),
                               "\"\(device)\" in \"\(key)\" is not a device Apple knows; it is never used")
                continue
            }
            guard let text = form as? String else {
                locator.report(.error, at: locator.offset(ofKey: device, from: offset), "the \"\(device)\" form of \"\(key)\" must be a string")
                return nil
            }
            forms[device] = .text(text)
        }
        return .device(forms)
    }

    static func forEachText(_ variants: Variants, _ body: (String) -> Void) {
        switch variants {
        case .text(let text): body(text)
        case .plural(let forms), .device(let forms): for form in forms.values { forEachText(form, body) }
        }
    }
}
