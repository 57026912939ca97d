/// `bundle-removed`: a bundle no longer holds any localization.
public struct BundleRemoved: Event {
    public static let name = "bundle-removed"

    public var clock: Clock
    public var bundle: String

    public init(clock: Clock, bundle: String) {
        self.clock = clock
        self.bundle = bundle
    }
}
