/// `localization-added`: a bundle gained a localization (`fr.lproj` appeared).
public struct LocalizationAdded: Event {
    public static let name = "localization-added"

    public var clock: Clock
    public var bundle: String
    public var language: String

    public init(clock: Clock, bundle: String, language: String) {
        self.clock = clock
        self.bundle = bundle
        self.language = language
    }
}
