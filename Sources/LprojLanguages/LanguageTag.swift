/// A language as a BCP 47 tag, read from anything a `.lproj` directory or a
/// locale variable may be called: `en`, `zh-Hans`, `pt_BR`, `zh_TW.UTF-8`,
/// legacy `English.lproj` names, any letter case. `Base` is kept as is.
public struct LanguageTag: Hashable, Sendable, CustomStringConvertible {
    /// The canonical tag: language lowercase, script titlecase, region
    /// uppercase (`zh-Hant-TW`), or `Base`.
    public let identifier: String
    public let language: String
    public let script: String?
    public let region: String?

    /// The `Base.lproj` localization: interface files shared by all languages.
    public static let base = LanguageTag(identifier: "Base", language: "Base", script: nil, region: nil)

    /// Parses a tag; nil when `text` is not a language name at all.
    public init?(_ text: String) {
        var text = text
        if text.hasSuffix(".lproj") { text.removeLast(6) }
        // POSIX locale names: drop ".UTF-8" and "@euro".
        if let cut = text.firstIndex(where: { $0 == "." || $0 == "@" }) { text = String(text[..<cut]) }
        if text == "Base" { self = .base; return }
        if let legacy = Self.legacyNames[text] { text = legacy }
        let parts = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        guard let first = parts.first, (2...8).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return nil
        }
        var language = first.lowercased()
        language = Self.deprecatedLanguages[language] ?? language
        var script: String?, region: String?
        var rest: [String] = []
        for part in parts.dropFirst() {
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
            if script == nil, region == nil, rest.isEmpty, part.count == 4, part.allSatisfy(\.isLetter) {
                script = part.prefix(1).uppercased() + part.dropFirst().lowercased()
            } else if region == nil, rest.isEmpty,
                      (part.count == 2 && part.allSatisfy(\.isLetter)) || (part.count == 3 && part.allSatisfy(\.isNumber)) {
                region = part.uppercased()
            } else {
                rest.append(part.lowercased())
            }
        }
        self.language = language
        self.script = script
        self.region = region
        identifier = ([language] + [script, region].compactMap { $0 } + rest).joined(separator: "-")
    }

    private init(identifier: String, language: String, script: String?, region: String?) {
        self.identifier = identifier
        self.language = language
        self.script = script
        self.region = region
    }

    public var description: String { identifier }
    public var isBase: Bool { identifier == "Base" }

    /// With likely subtags added: `zh-TW` → `zh-Hant-TW`, `en` → `en-Latn-US`.
    public var maximized: LanguageTag {
        guard !isBase, let tag = ICU.maximize(identifier).flatMap(LanguageTag.init) else { return self }
        return tag
    }

    /// Whether the language is written right to left (ar, he, fa, ur, …).
    public var isRightToLeft: Bool { !isBase && ICU.isRightToLeft(identifier) }

    /// Names CFBundle accepts for `.lproj` directories from before language codes.
    static let legacyNames: [String: String] = [
        "Albanian": "sq", "Amharic": "am", "Arabic": "ar", "Armenian": "hy", "Assamese": "as", "Azerbaijani": "az",
        "Basque": "eu", "Belarusian": "be", "Bengali": "bn", "Breton": "br", "Bulgarian": "bg", "Burmese": "my",
        "Byelorussian": "be", "Catalan": "ca", "Chinese": "zh-Hans", "Croatian": "hr", "Czech": "cs", "Danish": "da",
        "Dutch": "nl", "Dzongkha": "dz", "English": "en", "Esperanto": "eo", "Estonian": "et", "Faroese": "fo",
        "Farsi": "fa", "Finnish": "fi", "Flemish": "nl-BE", "French": "fr", "Galician": "gl", "Georgian": "ka",
        "German": "de", "Greek": "el", "Greenlandic": "kl", "Guarani": "gn", "Gujarati": "gu", "Hawaiian": "haw",
        "Hebrew": "he", "Hindi": "hi", "Hungarian": "hu", "Icelandic": "is", "Indonesian": "id", "Inuktitut": "iu",
        "Irish": "ga", "Italian": "it", "Japanese": "ja", "Javanese": "jv", "Kannada": "kn", "Kashmiri": "ks",
        "Kazakh": "kk", "Khmer": "km", "Kinyarwanda": "rw", "Kirghiz": "ky", "Korean": "ko", "Kurdish": "ku",
        "Lao": "lo", "Latin": "la", "Latvian": "lv", "Lithuanian": "lt", "Macedonian": "mk", "Malagasy": "mg",
        "Malay": "ms", "Malayalam": "ml", "Maltese": "mt", "Manx": "gv", "Marathi": "mr", "Mongolian": "mn",
        "Nepali": "ne", "Norwegian": "nb", "Nynorsk": "nn", "Oriya": "or", "Oromo": "om", "Panjabi": "pa",
        "Pashto": "ps", "Persian": "fa", "Polish": "pl", "Portuguese": "pt", "Punjabi": "pa", "Quechua": "qu",
        "Romanian": "ro", "Russian": "ru", "Sami": "se", "Sanskrit": "sa", "Scottish": "gd", "Serbian": "sr",
        "Simplified Chinese": "zh-Hans", "Sindhi": "sd", "Sinhalese": "si", "Slovak": "sk", "Slovenian": "sl",
        "Somali": "so", "Spanish": "es", "Sundanese": "su", "Swahili": "sw", "Swedish": "sv", "Tagalog": "fil",
        "Tajik": "tg", "Tajiki": "tg", "Tamil": "ta", "Tatar": "tt", "Telugu": "te", "Thai": "th", "Tibetan": "bo",
        "Tigrinya": "ti", "Tongan": "to", "Traditional Chinese": "zh-Hant", "Turkish": "tr", "Turkmen": "tk",
        "Uighur": "ug", "Ukrainian": "uk", "Urdu": "ur", "Uzbek": "uz", "Vietnamese": "vi", "Welsh": "cy",
        "Yiddish": "yi",
    ]

    /// ISO 639 codes that were replaced.
    static let deprecatedLanguages = ["iw": "he", "in": "id", "ji": "yi", "no": "nb", "jw": "jv", "mo": "ro"]
}
