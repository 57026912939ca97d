import Foundation
import LprojPaths
import LprojTables

/// One change to a table, in the terms of its entries.
public enum TableEdit: Hashable, Sendable {
    /// `key`'s text (in a `.stringsdict`, its `NSStringLocalizedFormatKey`),
    /// and its comment when given.
    case setText(key: String, value: String, comment: String?)
    /// One plural form: of `variable` (a `.stringsdict` or catalog
    /// substitution), or of a catalog entry's own plural variations when nil.
    /// `valueType` is the `NSStringFormatValueTypeKey` of a variable written
    /// anew, `format` the `NSStringLocalizedFormatKey` of an entry written
    /// anew (default `%#@variable@`).
    case setPluralForm(key: String, variable: String?, category: String, value: String, valueType: String?, format: String? = nil)
    /// One text of a String Catalog entry's variations, at `path`: pairs of
    /// kind and name — `["device", "mac"]`, `["device", "iphone", "plural",
    /// "one"]`, `["substitutions", "count", "plural", "few"]` — as Xcode's
    /// XLIFF ids name them. Catalogs only.
    case setVariation(key: String, path: [String], value: String)
    /// The state of `key`'s text (its own, not a variation's), the text as
    /// it is. Catalogs only: `.strings` and `.stringsdict` keep no state.
    case setState(key: String, state: TranslationState)
    /// The key and its comment.
    case remove(key: String)
    /// The key keeps its value (and comment) under a new name.
    case rename(key: String, to: String)

    /// The key the edit is about.
    public var key: String {
        switch self {
        case .setText(let key, _, _), .setPluralForm(let key, _, _, _, _, _), .setVariation(let key, _, _), .setState(let key, _), .remove(let key),
             .rename(let key, _):
            return key
        }
    }

    /// Applies the edit to the bytes of one table file — `nil` for a file to
    /// be made — keeping every other byte as the format allows: `.strings`
    /// text (any encoding) and XML property lists in place, binary property
    /// lists re-encoded as binary, catalogs as Xcode writes them. `language`
    /// is the catalog language edited (nil: every language, for `remove`).
    ///
    /// The result is read back with the same parser every reader uses and
    /// must hold exactly the change; anything else is refused, so a file is
    /// never written with another entry changed.
    public func apply(to bytes: [UInt8]?, format: TableFormat, path: String, language: String?, sourceLanguage: String = "en") throws(TableEditError) -> [UInt8] {
        try applied(to: bytes, format: format, path: path, language: language, sourceLanguage: sourceLanguage).bytes
    }

    /// `apply`, with the new file as every reader parses it. `before`: `bytes` already parsed, when the caller has them so.
    public func applied(to bytes: [UInt8]?, format: TableFormat, path: String, language: String?, sourceLanguage: String = "en",
                        before: TableFile? = nil) throws(TableEditError) -> (bytes: [UInt8], file: TableFile) {
        let output: [UInt8]
        switch format {
        case .strings: output = try applyToStrings(bytes, path: path)
        case .stringsdict: output = try applyToStringsDict(bytes, path: path)
        case .xcstrings: output = try applyToCatalog(bytes, path: path, language: language, sourceLanguage: sourceLanguage)
        }
        return (output, try verify(old: before ?? bytes.map { TableFile(bytes: $0, path: path, format: format) }, new: output, format: format,
                                   path: path, language: language))
    }

    // MARK: - .strings

    private func applyToStrings(_ bytes: [UInt8]?, path: String) throws(TableEditError) -> [UInt8] {
        guard let bytes, !bytes.isEmpty else {
            var document = StringsTextDocument(newFileAt: path)
            try apply(to: &document, path: path)
            return document.bytes
        }
        if bytes.withUnsafeBufferPointer({ PropertyListTable.isBinary($0) }) {
            return try applyToBinaryPropertyList(bytes, path: path, isStringsDict: false)
        }
        let isXML = bytes.withUnsafeBufferPointer { input in DecodedText(bytes: input).withUTF8(of: input) { PropertyListTable.looksLikeXML($0) } }
        if isXML {
            if case .setText(_, _, let comment?) = self, !comment.isEmpty {
                throw TableEditError(path: path, "a .strings file stored as an XML property list keeps no comments")
            }
            var document = try PropertyListDocument(text: bytes, path: path)
            switch self {
            case .setText(let key, let value, _): try document.setString(value, at: [key])
            case .remove(let key): _ = try document.remove(key: key, from: [])
            case .rename(let key, let newKey): try document.rename(key: key, to: newKey, in: [])
            case .setPluralForm, .setVariation: throw Self.pluralInStrings(path)
            case .setState: throw Self.stateOutsideCatalog(path)
            }
            return document.text
        }
        var document = try StringsTextDocument(bytes: bytes, path: path)
        try apply(to: &document, path: path)
        return document.bytes
    }

    private func apply(to document: inout StringsTextDocument, path: String) throws(TableEditError) {
        switch self {
        case .setText(let key, let value, let comment): try document.set(key, to: value, comment: comment)
        case .remove(let key): try document.remove(key)
        case .rename(let key, let newKey): try document.rename(key, to: newKey)
        case .setPluralForm, .setVariation: throw Self.pluralInStrings(path)
        case .setState: throw Self.stateOutsideCatalog(path)
        }
    }

    private static func stateOutsideCatalog(_ path: String) -> TableEditError {
        TableEditError(path: path, "a .strings or .stringsdict file keeps no translation state (String Catalogs do)")
    }

    private static func pluralInStrings(_ path: String) -> TableEditError {
        TableEditError(path: path, "a .strings file holds no plural forms or device variations (they go in the table's .stringsdict)")
    }

    // MARK: - .stringsdict

    private func applyToStringsDict(_ bytes: [UInt8]?, path: String) throws(TableEditError) -> [UInt8] {
        if case .setText(_, _, let comment?) = self, !comment.isEmpty {
            throw TableEditError(path: path, "a .stringsdict keeps no comments (write the comment in the .strings file or the catalog)")
        }
        let text = bytes ?? Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict/>
            </plist>

            """.utf8)
        if text.withUnsafeBufferPointer({ PropertyListTable.isBinary($0) }) {
            return try applyToBinaryPropertyList(text, path: path, isStringsDict: true)
        }
        var document = try PropertyListDocument(text: text, path: path)
        switch self {
        case .setText(let key, let value, _):
            guard document.dictionary(at: [key]) != nil else { throw TableEditError(path: path, "has no entry \"\(key)\"") }
            try document.setString(value, at: [key, StringsDictFile.formatKey])
        case .setPluralForm(let key, let variable, let category, let value, let valueType, let format):
            guard let variable else { throw TableEditError(path: path, "a .stringsdict plural form belongs to a variable: --plural VARIABLE:\(category)") }
            let rule: PropertyListDocument.NewValue = .dictionary([
                (StringsDictFile.specTypeKey, .string(StringsDictFile.pluralRuleType)),
                (StringsDictFile.valueTypeKey, .string(valueType ?? "d")),
                (category, .string(value)),
            ])
            if document.dictionary(at: [key]) == nil {
                try document.insert(key: key, value: .dictionary([(StringsDictFile.formatKey, .string(format ?? "%#@\(variable)@")), (variable, rule)]),
                                    into: [])
            } else if document.dictionary(at: [key, variable]) == nil {
                try document.insert(key: variable, value: rule, into: [key])
            } else {
                try document.setString(value, at: [key, variable, category])
            }
        case .setVariation(let key, let variation, let value):
            let device = try Self.stringsDictDevice(variation, key: key, file: path)
            if document.dictionary(at: [key]) == nil {
                try document.insert(key: key, value: .dictionary([(StringsDictFile.deviceRuleType, .dictionary([(device, .string(value))]))]),
                                    into: [])
            } else if document.dictionary(at: [key, StringsDictFile.deviceRuleType]) != nil {
                try document.setString(value, at: [key, StringsDictFile.deviceRuleType, device])
            } else {
                throw Self.notDeviceSpecific(key, path: path)
            }
        case .setState:
            throw Self.stateOutsideCatalog(path)
        case .remove(let key):
            _ = try document.remove(key: key, from: [])
        case .rename(let key, let newKey):
            try document.rename(key: key, to: newKey, in: [])
        }
        return document.text
    }

    /// The device a `.stringsdict` variation names: a device's own text (`["device", "mac"]`), as the format holds them.
    private static func stringsDictDevice(_ variation: [String], key: String, file: String) throws(TableEditError) -> String {
        guard variation.count == 2, variation[0] == "device", Variants.devices.contains(variation[1]) else {
            throw TableEditError(path: file, "a .stringsdict varies \"\(key)\" by device only, one text per device "
                                 + "(\(Variants.devices.sorted().joined(separator: ", "))): \(variation.joined(separator: "."))")
        }
        return variation[1]
    }

    private static func notDeviceSpecific(_ key: String, path: String) -> TableEditError {
        TableEditError(path: path, "entry \"\(key)\" is not device-specific here (it has a \(StringsDictFile.formatKey)); "
                       + "a device's text goes in an entry of \(StringsDictFile.deviceRuleType)")
    }


    // MARK: - Binary property lists

    /// Binary property lists have no layout to keep: decoded, changed and encoded again as binary.
    private func applyToBinaryPropertyList(_ bytes: [UInt8], path: String, isStringsDict: Bool) throws(TableEditError) -> [UInt8] {
        let (object, failure) = PropertyListTable.decode(Data(bytes), path: path, limits: TableLimits())
        guard failure == nil, var root = object as? [String: Any] else {
            throw TableEditError(path: path, "cannot be edited: it is not a property list of entries (lprojctl lint says why)")
        }
        switch self {
        case .setText(let key, let value, let comment):
            if let comment, !comment.isEmpty { throw TableEditError(path: path, "a binary property list keeps no comments") }
            if isStringsDict {
                guard var entry = root[key] as? [String: Any] else { throw TableEditError(path: path, "has no entry \"\(key)\"") }
                entry[StringsDictFile.formatKey] = value
                root[key] = entry
            } else {
                root[key] = value
            }
        case .setPluralForm(let key, let variable, let category, let value, let valueType, let format):
            guard isStringsDict else { throw Self.pluralInStrings(path) }
            guard let variable else { throw TableEditError(path: path, "a .stringsdict plural form belongs to a variable: --plural VARIABLE:\(category)") }
            var entry = root[key] as? [String: Any] ?? [StringsDictFile.formatKey: format ?? "%#@\(variable)@"]
            var rule = entry[variable] as? [String: Any]
                ?? [StringsDictFile.specTypeKey: StringsDictFile.pluralRuleType, StringsDictFile.valueTypeKey: valueType ?? "d"]
            rule[category] = value
            entry[variable] = rule
            root[key] = entry
        case .setVariation(let key, let variation, let value):
            guard isStringsDict else { throw Self.pluralInStrings(path) }
            let device = try Self.stringsDictDevice(variation, key: key, file: path)
            var entry = root[key] as? [String: Any] ?? [StringsDictFile.deviceRuleType: [String: Any]()]
            guard var devices = entry[StringsDictFile.deviceRuleType] as? [String: Any] else { throw Self.notDeviceSpecific(key, path: path) }
            devices[device] = value
            entry[StringsDictFile.deviceRuleType] = devices
            root[key] = entry
        case .setState:
            throw Self.stateOutsideCatalog(path)
        case .remove(let key):
            root[key] = nil
        case .rename(let key, let newKey):
            root[newKey] = root[key]
            root[key] = nil
        }
        do {
            return Array(try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0))
        } catch {
            throw TableEditError(path: path, "cannot be written as a binary property list: \(error)")
        }
    }

    // MARK: - Catalogs

    private func applyToCatalog(_ bytes: [UInt8]?, path: String, language: String?, sourceLanguage: String) throws(TableEditError) -> [UInt8] {
        var document = try bytes.map { bytes throws(TableEditError) in try StringCatalogDocument(bytes: bytes, path: path) }
            ?? StringCatalogDocument(newCatalogAt: path, sourceLanguage: sourceLanguage)
        func requireLanguage() throws(TableEditError) -> String {
            guard let language else { throw TableEditError(path: path, "a catalog edit names its language") }
            return language
        }
        switch self {
        case .setText(let key, let value, let comment):
            try document.set(key, language: try requireLanguage(), to: value)
            if let comment { try document.setComment(key, comment) }
        case .setPluralForm(let key, let variable, let category, let value, _, _):
            try document.setPluralForm(key, language: try requireLanguage(), variable: variable, category: category, to: value)
        case .setVariation(let key, let variationPath, let value):
            try document.setVariation(key, language: try requireLanguage(), path: variationPath, to: value)
        case .setState(let key, let state):
            try document.setState(key, language: try requireLanguage(), to: state)
        case .remove(let key):
            try document.remove(key, language: language)
        case .rename(let key, let newKey):
            try document.rename(key, to: newKey)
        }
        return document.bytes
    }

    // MARK: - Verification

    /// The new file must read without errors, and hold exactly this change.
    private func verify(old before: TableFile?, new: [UInt8], format: TableFormat, path: String, language: String?) throws(TableEditError) -> TableFile {
        let after = TableFile(bytes: new, path: path, format: format)
        if let error = after.diagnostics.first(where: { $0.severity == .error }) {
            throw TableEditError(path: path, "the edit would leave the file unreadable (\(error.message)); nothing was written")
        }
        for (name, newTable) in Self.tables(after.contents) {
            let oldTable = before.flatMap { Self.tables($0.contents)[name] } ?? Table()
            let edited = format != .xcstrings || language == nil || name == language || { if case .rename = self { true } else { false } }()
            guard holds(old: oldTable, new: newTable, edited: edited) else {
                throw TableEditError(path: path, "the edit of \"\(key)\" would change other entries (\(format.rawValue) writer); nothing was written")
            }
        }
        return after
    }

    private static func tables(_ contents: TableFile.Contents) -> [String: Table] {
        switch contents {
        case .table(let table): return ["": table]
        case .catalog(let catalog): return catalog.tables
        }
    }

    private func holds(old: Table, new: Table, edited: Bool) -> Bool {
        var touched: Set<String> = [key]
        if case .rename(_, let newKey) = self { touched.insert(newKey) }
        let diff = TableDiff(from: old, to: new)
        guard diff.added.keys.allSatisfy(touched.contains), diff.changed.keys.allSatisfy(touched.contains),
              diff.removed.allSatisfy(touched.contains) else { return false }
        guard edited else { return touched.allSatisfy { old[$0] == new[$0] } }
        switch self {
        case .setText(let key, let value, _):
            return new[key]?.value == .text(value)
        case .setPluralForm(let key, let variable, let category, let value, _, _):
            guard let entry = new[key] else { return false }
            let variants = variable.flatMap { entry.substitutions[$0]?.variants } ?? entry.value
            guard case .plural(let forms) = variants else { return false }
            return forms[category] == .text(value)
        case .setVariation(let key, let path, let value):
            guard let entry = new[key] else { return false }
            var variants = entry.value
            var steps = path[...]
            if steps.first == "substitutions", steps.count >= 2 {
                guard let substitution = entry.substitutions[steps.dropFirst().first!] else { return false }
                variants = substitution.variants
                steps = steps.dropFirst(2)
            }
            while let kind = steps.popFirst(), let name = steps.popFirst() {
                switch (kind, variants) {
                case ("plural", .plural(let forms)), ("device", .device(let forms)):
                    guard let next = forms[name] else { return false }
                    variants = next
                default:
                    return false
                }
            }
            return variants == .text(value)
        case .setState(let key, let state):
            // A catalog's text kept plain is translated (only other states are kept with it).
            guard let entry = new[key] else { return false }
            return (entry.state ?? .translated) == state && entry.value == old[key]?.value
        case .remove(let key):
            return new[key] == nil
        case .rename(let key, let newKey):
            return new[key] == nil && new[newKey] == old[key]
        }
    }
}
