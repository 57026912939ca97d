import Foundation
import LprojProtocol
import XCTest

/// The protocol's times: what Foundation's ISO 8601 formatter writes in UTC, to the second.
final class UTCTimestampTests: XCTestCase {
    func testWritesWhatFoundationsFormatterWrites() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        // The epoch, a leap day, the last second of a year, a time with a fraction, now.
        for seconds in [0, 951_782_400, 1_798_761_599, 1_796_549_091.75, Date().timeIntervalSince1970.rounded(.down)] {
            XCTAssertEqual(UTCTimestamp.string(secondsSince1970: seconds), formatter.string(from: Date(timeIntervalSince1970: seconds.rounded(.down))),
                           "at \(seconds)")
        }
        XCTAssertEqual(UTCTimestamp.string(secondsSince1970: 1_796_549_091.75), "2026-12-06T09:24:51Z")
    }
}
