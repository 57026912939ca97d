import Foundation
@testable import LprojClient
@_spi(LprojInternals) import LprojPaths
import LprojTables
import Synchronization
import XCTest

/// The table of request views (`RequestViews`), in process: found by the
/// bytes of its key, full at half its capacity, grown with its views,
/// bounded, and releasing what it held.
final class RequestViewsTests: XCTestCase {
    private let seed = ByteHash.seed

    func testAViewIsFoundByTheBytesOfItsKey() throws {
        let table = RequestViews(capacity: 64, limit: 32)
        let long = "fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, it;q=0.6, es;q=0.5, *;q=0.1"
        XCTAssertGreaterThan(long.utf8.count, 48, "longer than a slot holds: kept out of line")
        let composed = "fr-\u{00C9}", decomposed = "fr-E\u{0301}"
        let keys = [long, "", "ja", composed, decomposed, RequestViews.key(preferences: ["ja", "en"])]
        let views = keys.map { Self.view($0) }
        for (key, view) in zip(keys, views) {
            XCTAssertTrue(table.keep(view, for: key, hash: RequestViews.hash(key, seed: seed)) === view, key)
        }
        XCTAssertEqual(table.count, keys.count)
        for (key, view) in zip(keys, views) {
            XCTAssertTrue(table.view(for: key, hash: RequestViews.hash(key, seed: seed)) === view, "found: \(key)")
        }
        XCTAssertFalse(table.view(for: composed, hash: RequestViews.hash(composed, seed: seed))
                       === table.view(for: decomposed, hash: RequestViews.hash(decomposed, seed: seed)),
                       "canonically equivalent keys are two keys: their bytes differ")
        XCTAssertNil(table.view(for: "de", hash: RequestViews.hash("de", seed: seed)))
        XCTAssertNil(table.view(for: long + " ", hash: RequestViews.hash(long + " ", seed: seed)))
        // A second view for a kept key: the first stays (two requests for one header share one view).
        let other = Self.view("ja")
        XCTAssertTrue(table.keep(other, for: "ja", hash: RequestViews.hash("ja", seed: seed)) === views[2])
        XCTAssertEqual(table.count, keys.count)
        // One hash for two keys: both kept, each found by its bytes.
        let sameHash = RequestViews.hash("x", seed: seed)
        let x = Self.view("x"), y = Self.view("y")
        XCTAssertTrue(table.keep(x, for: "x", hash: sameHash) === x)
        XCTAssertTrue(table.keep(y, for: "y", hash: sameHash) === y)
        XCTAssertTrue(table.view(for: "x", hash: sameHash) === x)
        XCTAssertTrue(table.view(for: "y", hash: sameHash) === y)
    }

    func testATableIsFullAtHalfItsCapacityAndGrowsWithItsViews() throws {
        let table = RequestViews(capacity: 16, limit: 100)
        let keys = (0..<8).map { "header \($0)" + String(repeating: "-", count: $0 * 10) }
        let views = keys.map { Self.view($0) }
        for (key, view) in zip(keys, views) { XCTAssertNotNil(table.keep(view, for: key, hash: RequestViews.hash(key, seed: seed))) }
        XCTAssertNil(table.keep(Self.view("ninth"), for: "ninth", hash: RequestViews.hash("ninth", seed: seed)), "8 of 16 slots: full")
        let grown = try XCTUnwrap(table.grown())
        XCTAssertEqual(grown.capacity, 32)
        XCTAssertEqual(grown.count, 8)
        for (key, view) in zip(keys, views) {
            XCTAssertTrue(grown.view(for: key, hash: RequestViews.hash(key, seed: seed)) === view, key)
            XCTAssertTrue(table.view(for: key, hash: RequestViews.hash(key, seed: seed)) === view, "the old table is unchanged: \(key)")
        }
        XCTAssertNotNil(grown.keep(Self.view("ninth"), for: "ninth", hash: RequestViews.hash("ninth", seed: seed)))
    }

    func testPastItsLimitATableDoesNotGrow() {
        let table = RequestViews(capacity: 16, limit: 4)
        for index in 0..<4 { XCTAssertNotNil(table.keep(Self.view("\(index)"), for: "\(index)", hash: RequestViews.hash("\(index)", seed: seed))) }
        XCTAssertNil(table.keep(Self.view("4"), for: "4", hash: RequestViews.hash("4", seed: seed)), "at the limit, with room left")
        XCTAssertNil(table.grown(), "the core starts over with an empty table")
    }

    func testATableReleasesItsViewsWhenItGoes() {
        weak var inline: LiveBundle.Localization?
        weak var outOfLine: LiveBundle.Localization?
        weak var copied: LiveBundle.Localization?
        do {
            let table = RequestViews(capacity: 16, limit: 100)
            let short = Self.view("ja"), long = Self.view(String(repeating: "de, ", count: 20))
            inline = short
            outOfLine = long
            _ = table.keep(short, for: "ja", hash: RequestViews.hash("ja", seed: seed))
            let key = String(repeating: "de, ", count: 20)
            _ = table.keep(long, for: key, hash: RequestViews.hash(key, seed: seed))
            let grown = table.grown()
            copied = grown?.view(for: key, hash: RequestViews.hash(key, seed: seed))
            XCTAssertNotNil(copied)
        }
        XCTAssertNil(inline, "released with the tables")
        XCTAssertNil(outOfLine)
        XCTAssertNil(copied)
    }

    /// A view only a table holds (the core's views are held by its snapshots too).
    static func view(_ name: String) -> LiveBundle.Localization {
        LiveBundle.Localization(tables: [:], searchList: [name], development: nil, developmentFallback: false, bundlePath: "/views")
    }
}
