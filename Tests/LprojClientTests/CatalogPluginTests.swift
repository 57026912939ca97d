import Foundation
import LprojClient
import XCTest

/// The build plugin as a user adds it: a package (Tests/Fixtures/plugin-consumer)
/// that depends on lprojd by path and lists `LprojCatalogPlugin` for its
/// target is built with SwiftPM; Foundation's `Bundle` alone then reads the
/// catalog's translations from `Bundle.module`, and `LiveBundle` on that
/// resource bundle reads the same values; the outputs follow the catalog's
/// languages and tables across builds; and what Foundation alone cannot do
/// on Linux is what docs/CATALOGS.md says.
final class CatalogPluginTests: XCTestCase {
    private static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testAConsumerPackagesCatalogIsCompiledIntoItsResourceBundle() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("plugin-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let consumer = directory.appendingPathComponent("Greeter")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.package.appendingPathComponent("Tests/Fixtures/plugin-consumer"), to: consumer)
        // A path dependency is known by its directory's name: lprojd, whatever this checkout is called.
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("lprojd").path, withDestinationPath: Self.package.path)
        let manifest = try String(contentsOf: consumer.appendingPathComponent("Package.swift.in"), encoding: .utf8)
            .replacingOccurrences(of: "@LPROJD@", with: directory.appendingPathComponent("lprojd").path)
        try manifest.write(to: consumer.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(at: consumer.appendingPathComponent("Package.swift.in"))

        let build = try run(swift(), ["build", "--package-path", consumer.path])
        XCTAssertEqual(build.status, 0, build.output)
        XCTAssertTrue(build.output.contains("Compiling Localizable.xcstrings into .lproj tables"), build.output)
        let greeter = try run(consumer.appendingPathComponent(".build/debug/Greeter").path, ["en", "de", "fr"])
        XCTAssertEqual(greeter.status, 0, greeter.output)
        var lines = greeter.output.split(separator: "\n").map(String.init)
        let resources = try XCTUnwrap(lines.popLast()?.split(separator: "\t").last.map(String.init))
        // Foundation alone: what the catalog says, in each language.
        XCTAssertEqual(lines, [
            "en\tDone\tDone", "en\tWelcome, %@\tWelcome, %@", "en\tOnly in English\tOnly in English",
            "de\tDone\tFertig", "de\tWelcome, %@\tWillkommen, %@", "de\tOnly in English\t(missing)",
            "fr\tDone\tTerminé", "fr\tWelcome, %@\t(missing)", "fr\tOnly in English\t(missing)",
        ])
        for language in ["en", "de", "fr"] {
            for suffix in ["strings", "stringsdict"] {
                XCTAssertTrue(FileManager.default.fileExists(atPath: "\(resources)/\(language).lproj/Localizable.\(suffix)"), "\(language) \(suffix)")
            }
        }

        // LiveBundle on Bundle.module's directory, and on its compiled tables alone (the catalog taken away): the same values.
        let tablesOnly = directory.appendingPathComponent("TablesOnly").path
        try FileManager.default.copyItem(atPath: resources, toPath: tablesOnly)
        try FileManager.default.removeItem(atPath: tablesOnly + "/Localizable.xcstrings")
        for line in lines {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            for path in [resources, tablesOnly] {
                let view = try live(path).localization(preferences: [fields[0]])
                if fields[2] != "(missing)" {
                    XCTAssertEqual(view.localizedString(forKey: fields[1], value: nil, table: nil), fields[2], "\(path): \(line)")
                }
            }
        }
        for path in [resources, tablesOnly] {
            let german = try live(path).localization(preferences: ["de"]), english = try live(path).localization(preferences: ["en"])
            XCTAssertEqual(german.localizedString(format: "items", 1), "1 Element", path)
            XCTAssertEqual(german.localizedString(format: "items", 3), "3 Elemente", path)
            XCTAssertEqual(english.localizedString(format: "items", 1), "1 item", path)
        }

        // Once SwiftPM has settled its plugin tools (its second build relinks them), a build with nothing changed
        // compiles no catalog; an edited catalog is compiled anew.
        let catalog = consumer.appendingPathComponent("Sources/Greeter/Resources/Localizable.xcstrings")
        XCTAssertEqual(try run(swift(), ["build", "--package-path", consumer.path]).status, 0)
        let again = try run(swift(), ["build", "--package-path", consumer.path])
        XCTAssertFalse(again.output.contains("Compiling Localizable.xcstrings"), again.output)
        try String(contentsOf: catalog, encoding: .utf8).replacingOccurrences(of: "\"Fertig\"", with: "\"Erledigt\"")
            .write(to: catalog, atomically: true, encoding: .utf8)
        XCTAssertEqual(try run(swift(), ["build", "--package-path", consumer.path]).status, 0)
        XCTAssertTrue(try run(consumer.appendingPathComponent(".build/debug/Greeter").path, ["de"]).output.hasPrefix("de\tDone\tErledigt\n"))

        // Foundation alone cannot look up a plural (a .stringsdict entry) on Linux: the process dies (SIGSEGV in
        // Bundle.localizedString). docs/CATALOGS.md says so; LiveBundle formats the same entry (above).
        let plural = try run(consumer.appendingPathComponent(".build/debug/Greeter").path, ["--plural", "de"])
        XCTAssertNotEqual(plural.status, 0, "Foundation on Linux looked up a .stringsdict entry: docs/CATALOGS.md must say so now")
        XCTAssertTrue(plural.output.contains("Signal 11") || plural.output.contains("Segmentation"), plural.output)

        // The outputs follow the catalog's languages and tables across builds, with the manifest's bytes never touched:
        // SwiftPM plans a plugin's outputs only when the package changes; the tool has it plan again.
        let manifestBytes = try Data(contentsOf: consumer.appendingPathComponent("Package.swift"))
        func setLanguage(_ language: String, _ value: String?) throws {
            var root = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: catalog)) as? [String: Any])
            var strings = try XCTUnwrap(root["strings"] as? [String: Any])
            var done = try XCTUnwrap(strings["Done"] as? [String: Any])
            var localizations = done["localizations"] as? [String: Any] ?? [:]
            localizations[language] = value.map { ["stringUnit": ["state": "translated", "value": $0]] }
            done["localizations"] = localizations
            strings["Done"] = done
            root["strings"] = strings
            try JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys]).write(to: catalog)
        }
        func bundleFiles() throws -> [String] {
            try FileManager.default.subpathsOfDirectory(atPath: resources).filter { $0.hasSuffix(".strings") || $0.hasSuffix(".stringsdict") }.sorted()
        }
        try setLanguage("it", "Fatto")
        let added = try run(swift(), ["build", "--package-path", consumer.path])
        XCTAssertEqual(added.status, 0, added.output)
        XCTAssertTrue(added.output.contains("warning: the catalog's languages changed since this build was planned (added it); the next build has them"),
                      added.output)
        XCTAssertEqual(try run(swift(), ["build", "--package-path", consumer.path]).status, 0)
        XCTAssertTrue(try run(consumer.appendingPathComponent(".build/debug/Greeter").path, ["it"]).output.hasPrefix("it\tDone\tFatto\n"))
        XCTAssertTrue(try bundleFiles().contains("it.lproj/Localizable.strings"))

        try setLanguage("it", nil)
        let removed = try run(swift(), ["build", "--package-path", consumer.path])
        XCTAssertTrue(removed.output.contains("(removed it)"), removed.output)
        // Until it is planned again, the language reads as the source language: what its users see once it is gone.
        XCTAssertTrue(try run(consumer.appendingPathComponent(".build/debug/Greeter").path, ["it"]).output.hasPrefix("it\tDone\tDone\n"))
        XCTAssertEqual(try run(swift(), ["build", "--package-path", consumer.path]).status, 0)
        let left = try bundleFiles().joined(separator: " ")
        XCTAssertFalse(FileManager.default.fileExists(atPath: resources + "/it.lproj"), left)
        XCTAssertTrue(try run(consumer.appendingPathComponent(".build/debug/Greeter").path, ["it"]).output.hasPrefix("it\tno it.lproj"))

        // A renamed table: its new files, and none of the old name's (nor the old catalog's copy, which LiveBundle would read).
        let renamed = catalog.deletingLastPathComponent().appendingPathComponent("Main.xcstrings")
        try FileManager.default.moveItem(at: catalog, to: renamed)
        XCTAssertEqual(try run(swift(), ["build", "--package-path", consumer.path]).status, 0)
        XCTAssertEqual(try bundleFiles(), ["de.lproj/Main.strings", "de.lproj/Main.stringsdict", "en.lproj/Main.strings", "en.lproj/Main.stringsdict",
                                           "fr.lproj/Main.strings", "fr.lproj/Main.stringsdict"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: resources + "/Localizable.xcstrings"))
        XCTAssertEqual(try live(resources).localization(preferences: ["de"]).localizedString(forKey: "Done", value: nil, table: "Main"), "Erledigt")
        XCTAssertEqual(try Data(contentsOf: consumer.appendingPathComponent("Package.swift")), manifestBytes)
        try FileManager.default.moveItem(at: renamed, to: catalog)

        // A broken catalog fails the build with the tool's message: file, line and column.
        try "{\n  \"sourceLanguage\" : \"en\",\n  \"strings\" : {\n    \"Done\" : [\n}\n".write(to: catalog, atomically: true, encoding: .utf8)
        let broken = try run(swift(), ["build", "--package-path", consumer.path])
        XCTAssertNotEqual(broken.status, 0)
        XCTAssertTrue(broken.output.contains("Localizable.xcstrings:5:"), broken.output)
    }

    /// docs/CATALOGS.md's claim: Linux Foundation 6.3.1 has neither `String(localized:)` nor `LocalizedStringResource`,
    /// so a package that wants them on Linux goes through LprojClient. When a toolchain has them, this fails: update the docs.
    func testFoundationOnLinuxHasNoStringLocalized() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("typecheck-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, line) in [("localized", #"let text = String(localized: "Done")"#), ("resource", #"let text = LocalizedStringResource("Done")"#)] {
            let file = directory.appendingPathComponent("\(name).swift")
            try "import Foundation\n\(line)\n".write(to: file, atomically: true, encoding: .utf8)
            let swiftc = URL(fileURLWithPath: swift()).deletingLastPathComponent().appendingPathComponent("swiftc").path
            let result = try run(swiftc, ["-typecheck", file.path])
            XCTAssertNotEqual(result.status, 0, "\(line) compiles with this toolchain's Foundation: docs/CATALOGS.md must say so now")
            XCTAssertTrue(result.output.contains("error:"), result.output)
        }
    }

    // MARK: - Helpers

    private func live(_ path: String) throws -> LiveBundle {
        var options = LiveBundle.Options()
        options.connects = false
        options.development = "en"
        return try LiveBundle(path: path, options: options)
    }

    /// The toolchain running these tests (`LPROJ_SWIFT`, else `swift` on the path).
    private func swift() -> String {
        if let swift = ProcessInfo.processInfo.environment["LPROJ_SWIFT"] { return swift }
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/opt/swift/usr/bin"]
        for directory in directories where FileManager.default.isExecutableFile(atPath: directory + "/swift") {
            return directory + "/swift"
        }
        return "/usr/bin/swift"
    }

    private func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("plugin-output-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return (process.terminationStatus, try String(contentsOf: output, encoding: .utf8))
    }
}
