import LprojTables

/// `lookup`: a key's text in a bundle for a list of preferred languages,
/// resolved as an app would (matching, search list, fallback), with the path
/// that produced it.
public struct Lookup: Request {
    public static let op = "lookup"

    public var bundle: String
    public var key: String
    /// Default `Localizable`.
    public var table: String?
    /// Preferred languages, most preferred first.
    public var languages: [String]?
    /// The text for a missing key; the key itself when absent or empty.
    public var `default`: String?

    public init(bundle: String, key: String, table: String? = nil, languages: [String]? = nil, default value: String? = nil) {
        self.bundle = bundle
        self.key = key
        self.table = table
        self.languages = languages
        self.default = value
    }

    public struct Reply: Codable, Sendable, Equatable {
        /// The text: the plain value, the default value, or the key.
        public var text: String
        /// `table`, `development-fallback`, `default` or `key`.
        public var source: String
        public var localization: String?
        /// The entry found, when it is a rule rather than plain text.
        public var entry: Entry?
        /// The search list: chosen localizations, `Base`, development.
        public var chain: [String]
        public var steps: [Step]

        public init(text: String, source: String, localization: String?, entry: Entry?, chain: [String], steps: [Step]) {
            self.text = text
            self.source = source
            self.localization = localization
            self.entry = entry
            self.chain = chain
            self.steps = steps
        }
    }

    /// One table consulted.
    public struct Step: Codable, Sendable, Equatable {
        public var localization: String
        public var table: String
        public var found: Bool

        public init(localization: String, table: String, found: Bool) {
            self.localization = localization
            self.table = table
            self.found = found
        }
    }
}
