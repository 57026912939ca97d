import Foundation
@testable import LprojClient
import LprojTables
import Synchronization
import XCTest

/// Views of a bundle (`LiveBundle.Localization`): per-request languages from
/// `Accept-Language`, resources through the chain, without a daemon.
final class ViewTests: XCTestCase {
    private var directory: String!
    private var bundlePath: String { directory + "/Resources" }
    private static let localizations = ["en", "fr-CA", "fr-FR", "de", "de-AT", "zh-Hans", "zh-Hant", "pt-BR", "pt-PT", "es", "es-419",
                                        "ja", "ar"]

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "/views-\(UUID().uuidString)"
        for localization in Self.localizations {
            try write("Resources/\(localization).lproj/Localizable.strings", "\"which\" = \"\(localization)\";\n")
        }
        try write("Resources/Base.lproj/Main.strings", "\"title\" = \"Base\";\n")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// What each header chooses, from one bundle: weights, ties in header
    /// order, q=0, `*`, case, junk, scripts, regions, legacy and empty headers.
    func testAcceptLanguageHeadersChooseAsAppleWould() throws {
        let bundle = try make()
        let cases: [(header: String, expected: String)] = [
            ("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5", "fr-FR"),
            ("de-CH", "de"),
            ("de-AT", "de-AT"),
            ("en-US,en;q=0.9", "en"),
            ("ja", "ja"),
            ("ja-JP", "ja"),
            ("zh-TW", "zh-Hant"),
            ("zh-HK", "zh-Hant"),
            ("zh-CN", "zh-Hans"),
            ("zh", "zh-Hans"),
            ("zh-Hant-TW", "zh-Hant"),
            ("pt", "pt-BR"),
            ("pt-AO", "pt-PT"),
            ("pt-PT, pt-BR;q=0.9", "pt-PT"),
            ("es-MX", "es-419"),
            ("es-ES", "es"),
            ("ar-EG", "ar"),
            ("fr-CA", "fr-CA"),
            ("FR-ca", "fr-CA"),
            ("de;q=0.5, ja;q=0.8", "ja"),
            ("de;q=0.8, ja;q=0.8", "de"),
            ("ja;q=0.8, de;q=0.8", "ja"),
            ("ja;q=0, de", "de"),
            ("de;q=0, *", "en"),
            ("*", "en"),
            ("", "en"),
            ("   ", "en"),
            ("xx, yy-ZZ", "en"),
            ("??, ja", "ja"),
            ("ja;q=2, de", "de"),
            ("ja;q=0.5000, de;q=0.4", "de"),
            ("ja;level=1, de", "de"),
            ("de ; q = 0.5 , ja ; q=0.6", "ja"),
            ("en;q=0, fr-CA;q=0.1", "fr-CA"),
            ("i-klingon, ko, ja;q=0.1", "ja"),
            (String(repeating: "xx,", count: 200) + "ja", "en"),
        ]
        XCTAssertGreaterThanOrEqual(cases.count, 30)
        for (header, expected) in cases {
            let view = bundle.localization(acceptLanguage: header)
            XCTAssertEqual(view.language, expected, "Accept-Language: \(header.prefix(60))")
            XCTAssertEqual(view.localizedString(forKey: "which", value: nil, table: nil), expected, header)
        }
        // A refused language is not chosen, even as a sibling.
        XCTAssertFalse(bundle.localization(acceptLanguage: "de;q=0, de-CH").searchList.contains { $0.hasPrefix("de") })
        // One view per header while the state lasts; the active view is untouched.
        XCTAssertTrue(bundle.localization(acceptLanguage: "ja") === bundle.localization(acceptLanguage: "ja"))
        XCTAssertTrue(bundle.localization(preferences: ["ja"]) === bundle.localization(preferences: ["ja"]))
        XCTAssertEqual(bundle.localization(preferences: ["zh-HK", "en"]).language, "zh-Hant")
        XCTAssertEqual(bundle.current.language, "en")
    }

    func testHostileHeadersCannotGrowTheCache() throws {
        let bundle = try make()
        for index in 0..<(LiveSnapshot.viewLimit + 500) { _ = bundle.localization(acceptLanguage: "x\(index), ja") }
        let snapshot = bundle.core.snapshot
        XCTAssertEqual(bundle.localization(acceptLanguage: "ja").language, "ja")
        XCTAssertTrue(snapshot === bundle.core.snapshot)
        XCTAssertLessThanOrEqual(bundle.core.cachedViewCount, LiveSnapshot.viewLimit)
        XCTAssertLessThanOrEqual(bundle.core.heldViewCount, LiveSnapshot.viewLimit, "nor this thread's own table of them")
    }

    /// Headers that come to one search list share one view (a service's requests touch a few views, not one per header).
    func testHeadersWithOneChainShareTheirView() throws {
        let bundle = try make()
        let first = bundle.localization(acceptLanguage: "ja-JP, ja;q=0.9")
        XCTAssertTrue(first === bundle.localization(acceptLanguage: "ja, en;q=0.1"))
        XCTAssertTrue(first === bundle.localization(preferences: ["ja"]))
        XCTAssertFalse(first === bundle.localization(acceptLanguage: "zh-TW"))
    }

    /// A view's languages are matched once for a set of localizations: a
    /// new snapshot for an edited table answers from the new table with the
    /// same choice, and a snapshot whose localizations differ matches again
    /// (one gone, one added, the development language changed with them).
    func testLanguagesAreMatchedAgainWhenTheLocalizationsChange() throws {
        let bundle = try make(environment: ["LANG": "de_CH.UTF-8"])
        let header = "de-CH, fr;q=0.5"
        func which(_ view: LiveBundle.Localization) -> String { view.localizedString(forKey: "which", value: nil, table: nil) }
        XCTAssertEqual(which(bundle.localization(acceptLanguage: header)), "de")
        XCTAssertEqual(bundle.language, "de")

        var tables = Dictionary(uniqueKeysWithValues: ["en", "fr-FR", "de"].map { ($0, ["Localizable": Table(strings: ["which": $0])]) })
        tables["de"] = ["Localizable": Table(strings: ["which": "de, edited"])]
        bundle.core.replaceTables(tables)
        XCTAssertEqual(which(bundle.localization(acceptLanguage: header)), "de, edited")
        XCTAssertEqual(bundle.localizedString(forKey: "which", value: nil, table: nil), "de, edited")

        tables["de"] = nil
        bundle.core.replaceTables(tables)
        XCTAssertEqual(which(bundle.localization(acceptLanguage: header)), "fr-FR")
        XCTAssertEqual(bundle.language, "en", "no German left: the system's de-CH falls to the development language")

        tables["de-CH"] = ["Localizable": Table(strings: ["which": "de-CH"])]
        bundle.core.replaceTables(tables)
        XCTAssertEqual(which(bundle.localization(acceptLanguage: header)), "de-CH")
        XCTAssertEqual(bundle.language, "de-CH")
    }

    /// `<lang>.lproj/<name>` through the chain, then `Base.lproj`, then the
    /// bundle directory; after `setLanguage`, through `foundationBundle`, and
    /// per request. Looked for on disk: added files are seen at once.
    func testResourcesFollowTheLanguage() throws {
        try write("Resources/en.lproj/logo.png", "en")
        try write("Resources/ja.lproj/logo.png", "ja")
        try write("Resources/Base.lproj/Main.storyboard", "base")
        try write("Resources/shared.json", "root")
        try write("Resources/ja.lproj/images/flag.png", "ja flag")
        let bundle = try make()
        func contents(_ url: URL?) -> String? { url.flatMap { try? String(contentsOf: $0, encoding: .utf8) } }
        XCTAssertEqual(contents(bundle.url(forResource: "logo", withExtension: "png")), "en")
        XCTAssertEqual(contents(bundle.url(forResource: "Main", withExtension: "storyboard")), "base")
        XCTAssertEqual(contents(bundle.url(forResource: "shared", withExtension: "json")), "root")
        XCTAssertNil(bundle.url(forResource: "missing", withExtension: "png"))
        try bundle.setLanguage("ja")
        XCTAssertEqual(contents(bundle.url(forResource: "logo", withExtension: "png")), "ja")
        XCTAssertEqual(contents(bundle.url(forResource: "flag", withExtension: "png", subdirectory: "images")), "ja flag")
        let foundation = bundle.foundationBundle
        XCTAssertEqual(foundation.path(forResource: "logo", ofType: "png").flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }, "ja")
        XCTAssertEqual(contents(foundation.url(forResource: "logo", withExtension: "png")), "ja")
        XCTAssertEqual(foundation.preferredLocalizations.first, "ja")
        XCTAssertEqual(foundation.preferredLocalizations.first, bundle.language, "Foundation's view agrees with the bundle's")
        XCTAssertEqual(contents(bundle.localization(acceptLanguage: "fr-CH").url(forResource: "logo", withExtension: "png")), "en",
                       "fr has no logo: the development one")
        // A resource added later is found at once (no daemon needed for resources).
        try write("Resources/fr-FR.lproj/logo.png", "fr")
        XCTAssertEqual(contents(bundle.localization(acceptLanguage: "fr-CH").url(forResource: "logo", withExtension: "png")), "fr")
    }

    /// A SwiftPM package's resource bundle (built here), given as a
    /// `Foundation.Bundle`: its tables, and its development localization
    /// from the bundle (`defaultLocalization`).
    func testASwiftPMResourceBundle() throws {
        let package = directory + "/Greet"
        try write("Greet/Package.swift", """
            // swift-tools-version:5.9
            import PackageDescription
            let package = Package(name: "Greet", defaultLocalization: "fr",
                targets: [.target(name: "Greeter", resources: [.process("Resources")])])
            """)
        try write("Greet/Sources/Greeter/Greeter.swift", "public let greeterBundle = Bundle.module\nimport Foundation\n")
        try write("Greet/Sources/Greeter/Resources/en.lproj/Localizable.strings", "\"hello\" = \"Hello\";\n")
        try write("Greet/Sources/Greeter/Resources/fr.lproj/Localizable.strings", "\"hello\" = \"Bonjour\";\n\"only_fr\" = \"Seulement\";\n")
        let swift = ProcessInfo.processInfo.environment["SWIFT_EXEC_PATH"] ?? Self.swiftPath
        let build = Process()
        build.executableURL = URL(fileURLWithPath: swift)
        build.arguments = ["build", "--package-path", package]
        build.standardOutput = FileHandle.nullDevice
        build.standardError = FileHandle.nullDevice
        try build.run()
        build.waitUntilExit()
        XCTAssertEqual(build.terminationStatus, 0, "swift build of the resource package")
        let resources = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: package + "/.build")
            .first { $0.hasSuffix("Greet_Greeter.resources") && !$0.contains("/Greet_Greeter.resources/") })
        let module = try XCTUnwrap(Bundle(path: package + "/.build/" + resources))
        var options = LiveBundle.Options()
        options.connects = false
        options.environment = ["LANG": "de_DE.UTF-8", "HOME": directory]
        let bundle = try LiveBundle(bundle: module, app: "com.example.greet", options: options)
        XCTAssertEqual(bundle.language, "fr", "no German: the package's defaultLocalization")
        XCTAssertEqual(bundle.localizedString(forKey: "hello", value: nil, table: nil), "Bonjour")
        XCTAssertEqual(bundle.localization(acceptLanguage: "en-GB").localizedString(forKey: "hello", value: nil, table: nil), "Hello")
    }

    // MARK: helpers

    private static var swiftPath: String {
        for candidate in ["/opt/swift/usr/bin/swift", "/usr/bin/swift"] where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return "/usr/bin/swift"
    }

    private func make(environment: [String: String] = ["LANG": "en_US.UTF-8"]) throws -> LiveBundle {
        var options = LiveBundle.Options()
        options.connects = false
        options.environment = environment.merging(["HOME": directory]) { $1 }
        return try LiveBundle(path: bundlePath, app: "com.example.views", options: options)
    }

    private func write(_ relative: String, _ text: String) throws {
        let url = URL(fileURLWithPath: directory + "/" + relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }
}

/// The misses a bundle's views record: bounded, reported as deltas, never values.
final class MissLogTests: XCTestCase {
    func testMissesAreBoundedAndReportedAsWhatIsNewSinceTheLastReport() {
        let log = LiveBundle.MissLog()
        let wakes = Mutex(0)
        log.whenFirstPending { wakes.withLock { $0 += 1 } }
        var woken: Int { wakes.withLock { $0 } }
        log.record(key: "a", table: "Localizable", language: "fr", languages: ["fr", "en"], answer: .key)
        log.record(key: "a", table: "Localizable", language: "fr", languages: ["fr", "en"], answer: .key)
        XCTAssertEqual(woken, 1, "woken once while something waits")
        let report = log.takeReport(bundle: "/b")
        XCTAssertEqual(report?.misses.map(\.count), [2])
        XCTAssertEqual(report?.misses.first?.answer, .key)
        XCTAssertNil(log.takeReport(bundle: "/b"), "nothing new")
        for index in 0..<(LiveBundle.MissLog.capacity + 5) {
            log.record(key: "k\(index)", table: "T", language: "fr", languages: ["fr"], answer: .default)
        }
        XCTAssertEqual(woken, 2)
        XCTAssertEqual(log.all.count, LiveBundle.MissLog.capacity)
        XCTAssertEqual(log.dropped, 6, "a and the first 9,999 fill it; 6 more are only counted")
        let flood = log.takeReport(bundle: "/b")
        XCTAssertEqual(flood?.misses.count, LiveBundle.MissLog.capacity - 1)
        XCTAssertEqual(flood?.dropped, 6)
    }

    func testTheEnvironmentTurnsReportsOff() {
        for value in ["off", "0", "no", "false", "OFF"] { XCTAssertTrue(LiveBundle.missesSwitchedOff(["LPROJD_MISSES": value]), value) }
        for environment in [[:], ["LPROJD_MISSES": "on"]] { XCTAssertFalse(LiveBundle.missesSwitchedOff(environment)) }
    }
}
