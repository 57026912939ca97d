import LprojFormats
import LprojTables

/// Where one translatable text sits in an entry, and the `<trans-unit>` id
/// Xcode gives it. A String Catalog's unit is the key, a separator and the
/// variation (`KEY|==|plural.one`, `KEY|==|substitutions.count.plural.one`,
/// `KEY|==|device.iphone`); a `.stringsdict`'s is a path into the property
/// list (`/KEY:dict/NSStringLocalizedFormatKey:dict/:string`,
/// `/KEY:dict/count:dict/one:dict/:string`); a `.strings` unit is the key.
public struct TransUnitID: Hashable, Sendable {
    /// One step towards a text inside an entry.
    public enum Step: Hashable, Sendable {
        case plural(String)
        case device(String)
        case substitution(String)
    }

    /// Which of Xcode's encodings the id uses.
    public enum Encoding: Sendable {
        case catalog
        case stringsDict
        case strings
    }

    public var key: String
    /// Empty: the entry's own text (a `.stringsdict`'s format).
    public var steps: [Step]

    public init(key: String, steps: [Step] = []) {
        self.key = key
        self.steps = steps
    }

    /// The id in `encoding`.
    public func id(_ encoding: Encoding) -> String {
        switch encoding {
        case .strings:
            return key
        case .catalog:
            guard !steps.isEmpty else { return key }
            return key + Self.separator + steps.map { step in
                switch step {
                case .plural(let category): "plural." + category
                case .device(let device): "device." + device
                case .substitution(let name): "substitutions." + name
                }
            }.joined(separator: ".")
        case .stringsDict:
            var path = "/" + key + ":dict/"
            if steps.isEmpty { return path + "NSStringLocalizedFormatKey:dict/:string" }
            for step in steps {
                switch step {
                case .plural(let category): path += category + ":dict/"
                case .device(let device): path += "NSStringDeviceSpecificRuleType:dict/" + device + ":dict/"
                case .substitution(let name): path += name + ":dict/"
                }
            }
            return path + ":string"
        }
    }

    /// Reads an id written in `encoding`; nil when it is not one.
    public init?(_ id: String, encoding: Encoding) {
        switch encoding {
        case .strings:
            self.init(key: id)
        case .catalog:
            guard let range = id.range(of: Self.separator, options: .backwards) else { self.init(key: id); return }
            var words = id[range.upperBound...].split(separator: ".", omittingEmptySubsequences: false).map(String.init)[...]
            var steps: [Step] = []
            while let word = words.popFirst() {
                guard let name = words.popFirst(), !name.isEmpty else { return nil }
                switch word {
                case "plural": steps.append(.plural(name))
                case "device": steps.append(.device(name))
                case "substitutions": steps.append(.substitution(name))
                default: return nil
                }
            }
            self.init(key: String(id[..<range.lowerBound]), steps: steps)
        case .stringsDict:
            // Read from the end: a key may hold anything, the rest is the path's.
            guard id.hasPrefix("/"), id.hasSuffix(":dict/:string") else { return nil }
            var parts = id.dropFirst().dropLast(":string".count).components(separatedBy: ":dict/")
            guard parts.last == "" else { return nil }
            parts.removeLast()
            if parts.count >= 2, parts.last == "NSStringLocalizedFormatKey" {
                self.init(key: parts.dropLast().joined(separator: ":dict/"))
                return
            }
            // KEY, then VARIABLE CATEGORY, or NSStringDeviceSpecificRuleType DEVICE (then perhaps a variable's category).
            for keyParts in 1..<max(parts.count, 1) {
                let key = parts[..<keyParts].joined(separator: ":dict/")
                var rest = parts[keyParts...]
                var steps: [Step] = []
                var valid = !rest.isEmpty
                while valid, let word = rest.popFirst() {
                    guard let name = rest.popFirst() else { valid = false; break }
                    if word == "NSStringDeviceSpecificRuleType" {
                        steps.append(.device(name))
                    } else if Variants.pluralCategories.contains(name) {
                        steps += [.substitution(word), .plural(name)]
                    } else {
                        valid = false
                    }
                }
                if valid {
                    self.init(key: key, steps: steps)
                    return
                }
            }
            return nil
        }
    }

    /// Whether `id` is a `.stringsdict` unit that carries a rule's settings,
    /// not text (`/KEY:dict/VARIABLE:dict/:string`, the value type; a
    /// `…FormatSpecTypeKey` or `…FormatValueTypeKey`): some tools write
    /// them; they are never translated.
    public static func isStringsDictSetting(_ id: String) -> Bool {
        guard id.hasPrefix("/"), id.hasSuffix(":dict/:string") || id.hasSuffix("Key:string") else { return false }
        let parts = id.dropFirst().components(separatedBy: ":dict/")
        guard parts.count >= 2 else { return false }
        let last = parts[parts.count - 1], previous = parts[parts.count - 2]
        if last == ":string" || last == "" {
            let isDevice = parts.count >= 3 && parts[parts.count - 3] == StringsDictFile.deviceRuleType
            return !Variants.pluralCategories.contains(previous) && previous != "NSStringLocalizedFormatKey" && !isDevice
        }
        return last.hasPrefix("NSStringFormat") || previous.hasPrefix("NSStringFormat")
    }

    /// Every text of `entry`, by where it sits: the entry's own text or
    /// forms, then each substitution's forms, in a stable order.
    public static func texts(of entry: Entry, key: String) -> [(id: TransUnitID, text: String)] {
        var found: [(TransUnitID, String)] = []
        func walk(_ variants: Variants, _ steps: [Step]) {
            switch variants {
            case .text(let text): found.append((TransUnitID(key: key, steps: steps), text))
            case .plural(let forms):
                for category in Variants.pluralCategories where forms[category] != nil { walk(forms[category]!, steps + [.plural(category)]) }
            case .device(let forms):
                for device in forms.keys.sorted(by: XcodeOrder.precedes) { walk(forms[device]!, steps + [.device(device)]) }
            }
        }
        walk(entry.value, [])
        for name in entry.substitutions.keys.sorted(by: XcodeOrder.precedes) {
            walk(entry.substitutions[name]!.variants, [.substitution(name)])
        }
        return found
    }

    /// The text at this id's steps in `entry` as an XLIFF carries it: a
    /// String Catalog's substitution form writes its argument as `%arg`,
    /// which a translator's tool (and Foundation) reads as `%a`; it goes out
    /// as the specifier it stands for (`%1$lld`), as Xcode exports it.
    public func exchangedText(in entry: Entry) -> String? {
        text(in: entry).map { exchanged($0, in: entry) }
    }

    /// `text`, a form of this id's substitution in `entry`, with `%arg` written as the specifier it stands for.
    public func exchanged(_ text: String, in entry: Entry) -> String {
        guard let substitution = substitution(in: entry), text.contains("%arg") else { return text }
        return text.replacingOccurrences(of: "%arg", with: substitution.argumentSpecifier)
    }

    /// A translation of this id as it came in an XLIFF, in the catalog's
    /// terms: the substitution's own specifier (`%1$lld`) back to `%arg`.
    public func imported(_ text: String, in entry: Entry?) -> String {
        guard let entry, let substitution = substitution(in: entry) else { return text }
        return text.replacingOccurrences(of: substitution.argumentSpecifier, with: "%arg")
    }

    /// The substitution this id's text is a form of, if any.
    private func substitution(in entry: Entry) -> Substitution? {
        guard case .substitution(let name)? = steps.first else { return nil }
        return entry.substitutions[name]
    }

    /// The text at this id's steps in `entry`; nil when it has none there.
    public func text(in entry: Entry) -> String? {
        var variants: Variants = entry.value
        var remaining = steps[...]
        if case .substitution(let name)? = remaining.first {
            guard let substitution = entry.substitutions[name] else { return nil }
            variants = substitution.variants
            remaining = remaining.dropFirst()
        }
        for step in remaining {
            switch (step, variants) {
            case (.plural(let category), .plural(let forms)):
                guard let next = forms[category] else { return nil }
                variants = next
            case (.device(let device), .device(let forms)):
                guard let next = forms[device] else { return nil }
                variants = next
            default:
                return nil
            }
        }
        if case .text(let text) = variants { return text }
        return nil
    }

    static let separator = "|==|"
}
