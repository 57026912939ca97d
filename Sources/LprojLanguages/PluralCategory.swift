import LprojTables

/// A CLDR plural category.
public enum PluralCategory: String, CaseIterable, Sendable {
    case zero, one, two, few, many, other

    /// The category of `number` in `language` (a BCP 47 tag), from ICU's
    /// CLDR rules. `fractionDigits` is how many fraction digits the number
    /// shows (1 and 1.0 differ in some languages); nil lets the value decide.
    public init(_ number: Double, language: String, fractionDigits: Int? = nil) {
        let name = ICU.pluralCategory(language, number, fractionDigits: fractionDigits)
        self = name.flatMap(PluralCategory.init(rawValue:)) ?? .other
    }

    /// The category of a whole number.
    public init(_ number: Int, language: String) {
        self.init(Double(number), language: language, fractionDigits: 0)
    }
}

extension PluralCategory {
    /// The CLDR plural categories a localization's language uses, in CLDR
    /// order (nil for `Base` or a name ICU does not know): the forms a
    /// translator fills in.
    public static func categories(of localization: String) -> [String]? {
        names(of: localization).map { found in Variants.pluralCategories.filter(found.contains) }
    }

    /// The CLDR plural categories of a localization's language as ICU names
    /// them (nil for `Base` or a name ICU does not know).
    public static func names(of localization: String) -> [String]? {
        guard let tag = LanguageTag(localization), !tag.isBase else { return nil }
        return ICU.pluralCategories(tag.identifier)
    }
}
