@testable import LprojBundles
@testable import LprojLanguages
import LprojTables
import XCTest

/// What `FormatArguments` says a value reads, and how `BundleCheck`
/// compares two localizations' values.
final class FormatArgumentsTests: XCTestCase {
    private func kinds(_ format: String) -> [Int: [FormatArguments.Kind]] {
        FormatArguments(format: format).uses.mapValues { $0.map(\.kind) }
    }

    func testPositionsKindsAndLiterals() {
        XCTAssertEqual(kinds("%@ has %d items at %.2f"), [1: [.object], 2: [.integer], 3: [.float]])
        XCTAssertEqual(kinds("%2$d und %1$@"), [1: [.object], 2: [.integer]])
        XCTAssertEqual(kinds("%1$@, %1$@!"), [1: [.object, .object]])
        XCTAssertEqual(kinds("100%% sure, 100% sure, %ld left"), [1: [.integer]], "%% and a percent before a space are text")
        XCTAssertEqual(FormatArguments(format: "%lu").uses[1]?.first?.length, "l")
        XCTAssertTrue(FormatArguments(format: "No arguments").isEmpty)
    }

    func testVariablesTakeTheirArgumentAsTheirTypeSays() {
        let entry = Entry(value: .text("%#@files@ in %@"), substitutions: [
            "files": Substitution(formatSpecifier: "ld", variants: .plural(["one": .text("One file"), "other": .text("%ld files")])),
        ])
        let arguments = FormatArguments(entry)
        XCTAssertEqual(arguments.uses.mapValues { $0.map(\.kind) }, [1: [.integer, .integer], 2: [.object]])
        XCTAssertEqual(arguments.problems, [])
        let wrong = Entry(value: .text("%#@n@"), substitutions: ["n": Substitution(formatSpecifier: "d", variants: .plural(["other": .text("%arg and %@")]))])
        XCTAssertEqual(FormatArguments(wrong).problems.count, 1, "%@ reads the integer variable as an object")
        // As translation tools write it: a variable without a position whose forms number every argument takes the one of its type.
        let numbered = Entry(value: .text("%#@COUNT@"), substitutions: [
            "COUNT": Substitution(formatSpecifier: "d", variants: .plural(["one": .text("%1$@ and %2$d other"), "other": .text("%1$@ and %2$d others")])),
        ])
        XCTAssertEqual(FormatArguments(numbered).problems, [])
        XCTAssertEqual(FormatArguments(numbered).uses.mapValues { $0.map(\.kind) }, [1: [.object, .object], 2: [.integer, .integer, .integer]])
        // An unnumbered %@ in such a form reads the variable's own (integer) argument: a real mistake.
        let wrongForm = Entry(value: .text("%#@COUNT@"), substitutions: ["COUNT": Substitution(formatSpecifier: "d", variants: .plural(["other": .text("%@ typing")]))])
        XCTAssertEqual(FormatArguments(wrongForm).problems.count, 1)
        let undefined = Entry(value: .text("%#@missing@"), substitutions: [:])
        XCTAssertEqual(FormatArguments(undefined).problems, ["%#@missing@ names a variable that is not defined"])
    }

    func testTheCheckComparesLocalizationsByPosition() throws {
        func problems(_ en: String, _ de: String) throws -> [String] {
            let directory = NSTemporaryDirectory() + "format-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            for (language, text) in [("en", en), ("de", de)] {
                try FileManager.default.createDirectory(atPath: directory + "/\(language).lproj", withIntermediateDirectories: true)
                try Data("\"k\" = \"\(text)\";\n".utf8).write(to: URL(fileURLWithPath: directory + "/\(language).lproj/Localizable.strings"))
            }
            let bundle = try LocalizedBundle.load(path: directory)
            return BundleCheck(bundle: bundle, development: "en").diagnostics().map { "\($0.severity.rawValue): \($0.message)" }
        }
        XCTAssertEqual(try problems("%1$@ %2$d", "%2$d %1$@"), [], "reordered positions are fine")
        XCTAssertEqual(try problems("%1$@ %1$@", "%@ %d"), [#"error: "k": reads argument 2 (%d), which en never passes"#])
        XCTAssertEqual(try problems("%@", "%d"), [#"error: "k": reads argument 1 as an integer (%d), but en reads it as an object (%@)"#])
        XCTAssertEqual(try problems("%ld", "%d"), [#"warning: "k": reads argument 1 as %d, en as %ld"#])
        XCTAssertEqual(try problems("%@ and %@", "%@"), [#"warning: "k": leaves out argument 2 (%@ in en)"#])
        // A development text that reads no argument is most likely never formatted: a `%` in a translation is a warning.
        XCTAssertEqual(try problems("100% guaranteed", "100%-osan"),
                       [#"warning: "k": reads argument 1 (%-o), which en never passes; en's text reads no argument, so the app most likely never formats it"#])
    }
}
