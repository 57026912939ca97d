import Foundation
import LprojProcessTesting
import LprojProtocol
import XCTest

/// The kernel's watch limit (`fs.inotify.max_user_watches`) lowered for the
/// test, as root, and restored afterwards even on failure: every table is
/// still served at start, the limit is named in `status`, and an edit in a
/// directory past the limit still arrives (polled).
final class WatchLimitTests: XCTestCase {
    private static let limitFile = "/proc/sys/fs/inotify/max_user_watches"

    func testDirectoriesPastTheWatchLimitAreServedAndPolled() throws {
        try requirement(getuid() == 0, "lowering fs.inotify.max_user_watches needs root (CI runs as root)")
        let original = try String(contentsOfFile: Self.limitFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        defer { try? Data((original + "\n").utf8).write(to: URL(fileURLWithPath: Self.limitFile)) }

        let daemon = try DaemonProcess(config: "[Watch]\nPollInterval=200ms\nQuietPeriod=20ms\n")
        for bundle in 0..<60 {
            for language in ["en", "de"] {
                try daemon.write("B\(bundle)/\(language).lproj/Localizable.strings", "\"k\" = \"\(bundle) \(language)\";\n")
            }
        }
        // Room for the watches root has now, and 30 more: about 150 of the tree's 181 directories will not fit.
        try Data("\(Self.watchesInUse() + 30)\n".utf8).write(to: URL(fileURLWithPath: Self.limitFile))
        try daemon.start()
        let connection = try daemon.connect()
        _ = try connection.send(Hello(client: "tests"))
        let status = try connection.send(Status())
        XCTAssertEqual(status.tables, 120, "every table is served, watched or not")
        let warning = try XCTUnwrap(status.warnings?.first, "status names the limit")
        XCTAssertTrue(warning.contains("fs.inotify.max_user_watches"), warning)
        XCTAssertTrue(daemon.log.contains("fs.inotify.max_user_watches"), daemon.log)
        XCTAssertLessThan(status.watches, 100)

        _ = try connection.send(Subscribe(name: "all"))
        for bundle in 0..<60 {
            try daemon.write("B\(bundle)/de.lproj/Localizable.strings", "\"k\" = \"edited \(bundle)\";\n")
        }
        var edited = Set<String>()
        while edited.count < 60 {
            let change = try connection.awaitEvent(TableChanged.name, timeout: .seconds(20)).decode(TableChanged.self)
            if change.changed["k"]?.text?.hasPrefix("edited") == true { edited.insert(change.bundle) }
        }
        XCTAssertEqual(edited.count, 60, "edits arrive from watched and polled directories alike")
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    /// Inotify watches held by processes now (every user's: the test runs as root and counts root's).
    private static func watchesInUse() -> Int {
        var count = 0
        for pid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(pid) != nil {
            for fd in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fdinfo")) ?? [] {
                guard let info = try? String(contentsOfFile: "/proc/\(pid)/fdinfo/\(fd)", encoding: .utf8), info.contains("inotify wd:") else { continue }
                count += info.split(separator: "\n").count { $0.hasPrefix("inotify wd:") }
            }
        }
        return count
    }
}
