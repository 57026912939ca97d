/// The value of one key in a table: a plain string, or a format whose parts
/// vary by plural category or device (`.stringsdict`, String Catalog).
///
/// A `.strings` entry is `Entry(text:)`. A `.stringsdict` entry is its
/// `NSStringLocalizedFormatKey` as `value` plus one `Substitution` per
/// variable. A String Catalog unit maps the same way: `stringUnit` → `.text`,
/// `variations` → `.plural` / `.device`, `substitutions` → `substitutions`.
public struct Entry: Hashable, Sendable {
    /// A plain string is stored inline; anything richer in a shared box, so
    /// an entry is 16 bytes and a 100k-key table stays compact.
    private enum Storage: Hashable, Sendable {
        case text(String)
        case rich(Rich)
    }

    private final class Rich: Hashable, Sendable {
        let value: Variants
        let substitutions: [String: Substitution]
        let state: TranslationState?

        init(value: Variants, substitutions: [String: Substitution], state: TranslationState?) {
            self.value = value
            self.substitutions = substitutions
            self.state = state
        }

        static func == (lhs: Rich, rhs: Rich) -> Bool {
            lhs === rhs || (lhs.value == rhs.value && lhs.substitutions == rhs.substitutions && lhs.state == rhs.state)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(value)
            hasher.combine(substitutions)
            hasher.combine(state)
        }
    }

    private let storage: Storage

    public init(value: Variants, substitutions: [String: Substitution] = [:], state: TranslationState? = nil) {
        // `translated` is a catalog's normal state: such a plain string is
        // stored (and sent) as plain text, as the JSON form says.
        if case .text(let text) = value, substitutions.isEmpty, state == nil || state == .translated {
            storage = .text(text)
        } else {
            storage = .rich(Rich(value: value, substitutions: substitutions, state: state))
        }
    }

    /// A plain string entry.
    public init(text: String) {
        storage = .text(text)
    }

    /// The string, or the variations that choose one.
    public var value: Variants {
        switch storage {
        case .text(let text): return .text(text)
        case .rich(let rich): return rich.value
        }
    }

    /// Variables referenced as `%#@name@` from the value, by name.
    public var substitutions: [String: Substitution] {
        switch storage {
        case .text: return [:]
        case .rich(let rich): return rich.substitutions
        }
    }

    /// The translation state a String Catalog records; nil elsewhere.
    public var state: TranslationState? {
        switch storage {
        case .text: return nil
        case .rich(let rich): return rich.state
        }
    }

    /// The string when the entry is stored as plain text (nothing else to keep).
    var plainText: String? {
        if case .text(let text) = storage { return text }
        return nil
    }

    /// The string of a plain entry (no variations, no substitutions); nil otherwise.
    public var text: String? {
        switch storage {
        case .text(let text): return text
        case .rich(let rich):
            if case .text(let text) = rich.value, rich.substitutions.isEmpty { return text }
            return nil
        }
    }
}

/// A string or a choice among strings.
public enum Variants: Hashable, Sendable {
    case text(String)
    /// Keyed by CLDR category: `zero one two few many other`.
    case plural([String: Variants])
    /// Keyed by device: `iphone ipad ipod mac applewatch appletv applevision other`.
    case device([String: Variants])
}

/// A variable of a format (`%#@files@`): which argument it takes, how that
/// argument is formatted, and the variants chosen by its value.
public struct Substitution: Hashable, Sendable, Codable {
    /// 1-based argument number (String Catalog `argNum`); nil means "in order".
    public var argumentNumber: Int?
    /// The printf conversion for the argument without `%`: `d`, `ld`, `lu`, `f`, `@`.
    public var formatSpecifier: String?
    public var variants: Variants

    public init(argumentNumber: Int? = nil, formatSpecifier: String?, variants: Variants) {
        self.argumentNumber = argumentNumber
        self.formatSpecifier = formatSpecifier
        self.variants = variants
    }

    /// What `%arg` (a String Catalog's word for the substitution's own
    /// argument, in its forms) stands for as printf writes it:
    /// `%<argNum>$<formatSpecifier>` (`%2$lld`), without the position when
    /// there is no `argNum`, `%@` without a specifier — what Xcode compiles
    /// it to, and what a form shows unformatted.
    public var argumentSpecifier: String {
        let conversion = formatSpecifier.map { $0.hasPrefix("%") ? String($0.dropFirst()) : $0 } ?? "@"
        return "%" + (argumentNumber.map { "\($0)$" } ?? "") + conversion
    }

    private enum CodingKeys: String, CodingKey {
        case argumentNumber = "argNum"
        case formatSpecifier
        case variants = "variations"
    }
}

/// The state a String Catalog gives a translation.
public enum TranslationState: String, Hashable, Sendable, CaseIterable {
    case new
    case translated
    case needsReview = "needs_review"
    case stale
}

extension Variants {
    /// The CLDR plural categories, in CLDR order.
    public static let pluralCategories = ["zero", "one", "two", "few", "many", "other"]
    /// The device keys a String Catalog and `.stringsdict` accept.
    public static let devices = ["iphone", "ipad", "ipod", "mac", "applewatch", "appletv", "applevision", "other"]
}
