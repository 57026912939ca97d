/// `bundle-added`: a directory under a root now holds localizations.
public struct BundleAdded: Event {
    public static let name = "bundle-added"

    public var clock: Clock
    public var bundle: String

    public init(clock: Clock, bundle: String) {
        self.clock = clock
        self.bundle = bundle
    }
}
