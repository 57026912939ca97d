@testable import LprojDaemon
import XCTest

/// Subscriptions alike share one filter (`Subscription.SharedFilters`):
/// a thousand processes of a service subscribing alike cost one filter,
/// and the fan-out reads it warm. Alike means byte for byte: names that
/// differ only in normalization are two filters.
final class SharedFiltersTests: XCTestCase {
    func testSubscriptionsAlikeShareOneFilterAndTwinsByNormalizationDoNot() {
        let shared = Subscription.SharedFilters()
        var alike = (0..<100).map { _ in
            Subscription(name: "live", bundle: "/srv/App", localizations: nil, tables: nil, images: true, acknowledges: true, shared: shared)
        }
        XCTAssertEqual(shared.count, 1, "one filter for a hundred subscriptions alike")
        XCTAssertEqual(alike[0].prefix, alike[99].prefix)
        var others = [
            Subscription(name: "live", bundle: "/srv/App", localizations: nil, tables: nil, images: false, acknowledges: true, shared: shared),
            Subscription(name: "Live", bundle: "/srv/App", localizations: nil, tables: nil, images: true, acknowledges: true, shared: shared),
            Subscription(name: "live", bundle: "/srv/Caf\u{E9}", localizations: ["fr"], tables: nil, shared: shared),
            Subscription(name: "live", bundle: "/srv/Cafe\u{301}", localizations: ["fr"], tables: nil, shared: shared),
        ]
        XCTAssertEqual(shared.count, 5, "another wish, another name, and each of the twins: a filter each")
        XCTAssertTrue(others[2].matches(.bundle("/srv/Caf\u{E9}"), app: nil))
        XCTAssertFalse(others[3].matches(.bundle("/srv/Caf\u{E9}"), app: nil), "the NFD twin does not hear of the NFC bundle")
        XCTAssertTrue(others[3].matches(.bundle("/srv/Cafe\u{301}"), app: nil))
        XCTAssertNotEqual(others[1].prefix, alike[0].prefix)
        XCTAssertEqual(others[0].footprint, alike[0].footprint, "each subscription counts the filter's bytes as its own")
        alike.removeAll()
        others.removeAll()
        XCTAssertEqual(shared.count, 0, "a filter no subscription holds is not kept")
        // Many filters come and go: the table is swept, and what is held stays.
        let kept = Subscription(name: "kept", bundle: nil, localizations: nil, tables: nil, shared: shared)
        for index in 0..<1_000 { _ = Subscription(name: "gone \(index)", bundle: nil, localizations: nil, tables: nil, shared: shared) }
        XCTAssertEqual(shared.count, 1)
        XCTAssertLessThanOrEqual(shared.entryCount, 64, "swept as it grows: gone filters do not pile up")
        XCTAssertEqual(Subscription(name: "kept", bundle: nil, localizations: nil, tables: nil, shared: shared).prefix, kept.prefix)
    }
}
