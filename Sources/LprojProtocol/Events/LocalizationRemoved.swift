/// `localization-removed`: a bundle lost a localization (its `.lproj` went away).
public struct LocalizationRemoved: Event {
    public static let name = "localization-removed"

    public var clock: Clock
    public var bundle: String
    public var language: String

    public init(clock: Clock, bundle: String, language: String) {
        self.clock = clock
        self.bundle = bundle
        self.language = language
    }
}
