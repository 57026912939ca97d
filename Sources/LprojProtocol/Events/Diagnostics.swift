import LprojTables

/// `diagnostics`: the cross-language checks of a bundle (missing keys,
/// format specifiers that disagree, plural forms, empty values, names,
/// InfoPlist — `lprojctl check`'s rules) changed: `diagnostics` is the
/// bundle's whole set now (empty: clean again). Sent only to subscriptions
/// that asked for them (`subscribe` with `diagnostics: true`), which also
/// get the current set of each bundle they cover that has any, right after
/// the reply.
public struct Diagnostics: Event {
    public static let name = "diagnostics"

    public var clock: Clock
    public var bundle: String
    public var diagnostics: [Diagnostic]

    public init(clock: Clock, bundle: String, diagnostics: [Diagnostic]) {
        self.clock = clock
        self.bundle = bundle
        self.diagnostics = diagnostics
    }
}
