/// `images`: a bundle's current tables that match the filters as table
/// images (`TableImage`) in sealed, read-only memory files, which the
/// client maps instead of parsing — every process of a service then
/// reads the same pages. The reply lists the images in order; their
/// descriptors come with the reply's first byte (`SCM_RIGHTS`), one per
/// listed image, in the same order. At most `maximumCount` tables per
/// request (filter by `languages` or `tables`); a daemon with images off
/// (`[Limits] SharedImages=0`) answers `busy`.
public struct Images: Request {
    public static let op = "images"
    /// The most images one reply carries (one message's descriptors).
    public static let maximumCount = 200

    public var bundle: String
    public var languages: [String]?
    public var tables: [String]?

    public init(bundle: String, languages: [String]? = nil, tables: [String]? = nil) {
        self.bundle = bundle
        self.languages = languages
        self.tables = tables
    }

    public struct Reply: Codable, Sendable, Equatable {
        /// The state the images are of.
        public var clock: Clock
        /// One per descriptor that comes with the reply, in order.
        public var images: [ImageSummary]

        public init(clock: Clock, images: [ImageSummary]) {
            self.clock = clock
            self.images = images
        }
    }
}

/// Which table an image holds.
public struct ImageSummary: Codable, Sendable, Equatable {
    public var language: String
    public var table: String
    public var entries: Int

    public init(language: String, table: String, entries: Int) {
        self.language = language
        self.table = table
        self.entries = entries
    }
}
