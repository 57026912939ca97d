/// The value of one key in a table: a plain string, or a format whose parts
/// vary by plural category or device (`.stringsdict`, String Catalog).
///
/// A `.strings` entry is `Entry(text:)`. A `.stringsdict` entry is its
/// `NSStringLocalizedFormatKey` as `value` plus one `Substitution` per
/// variable. A String Catalog unit maps the same way: `stringUnit` → `.text`,
/// `variations` → `.plural` / `.device`, `substitutions` → `substitutions`.
public struct Entry: Hashable, Sendable {
    /// The string, or the variations that choose one.
    public var value: Variants
    /// Variables referenced as `%#@name@` from the value, by name.
    public var substitutions: [String: Substitution]
    /// The translation state a String Catalog records; nil elsewhere.
    public var state: TranslationState?

    public init(value: Variants, substitutions: [String: Substitution] = [:], state: TranslationState? = nil) {
        self.value = value
        self.substitutions = substitutions
        self.state = state
    }

    /// A plain string entry.
    public init(text: String) {
        self.init(value: .text(text))
    }

    /// The string of a plain entry (no variations, no substitutions); nil otherwise.
    public var text: String? {
        if case .text(let string) = value, substitutions.isEmpty { return string }
        return nil
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
