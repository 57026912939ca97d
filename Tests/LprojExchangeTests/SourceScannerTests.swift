import Foundation
@testable import LprojExchange
import XCTest

/// `SourceScanner` on the fixture sources in Tests/Fixtures/scan: every
/// call form, with its table, line and column; escapes, raw strings and
/// calls over several lines read as the compiler reads them; comments and
/// strings that only look like calls skipped.
final class SourceScannerTests: XCTestCase {
    private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/scan/Sources").path

    private func uses(_ relative: String, macros: Set<String> = []) throws -> [String] {
        let path = fixtures + "/" + relative
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return SourceScanner(macros: macros).uses(in: text, file: path).map { "\($0.line):\($0.column) \($0.table ?? "-") \($0.key)" }
    }

    func testSwiftForms() throws {
        XCTAssertEqual(try uses("App.swift"), [
            "8:18 - welcome_title",
            "10:18 - Hello %@!",
            "11:37 - key_from_type",
            "18:27 - plain_key",
            "20:13 Menu multi_line_call",
            "24:27 - escaped \"quotes\" and\ttab",
            "25:27 Menu menu_open",
            "26:40 - bundle_key",
            "27:27 - raw \"quoted\" key",
            "28:27 - café",
            "29:27 - missing_key",
        ])
    }

    func testObjectiveCFormsAndMacros() throws {
        XCTAssertEqual(try uses("Views/Legacy.m", macros: ["RDLocalizedString"]), [
            "6:37 - objc_key",
            "7:46 Menu menu_close",
            "8:49 Menu objc_bundle_key",
            "9:37 - macro_key",
        ])
        XCTAssertFalse(try uses("Views/Legacy.m").contains { $0.hasSuffix("macro_key") }, "a macro counts only when named")
    }

    /// A literal is a key where Swift gives it a localizable type — as Xcode extracts it — and nowhere else.
    func testALiteralIsAKeyWhereItIsGivenALocalizableType() {
        let views = #"""
            import SwiftUI

            struct SettingsView: View {
                let count: Int
                let ratio = 0.5
                var name: String
                @State private var isOn = false

                var body: some View {
                    Form {
                        Section("settings.general") {
                            Toggle("settings.toggle", isOn: $isOn)
                            Label("settings.label", systemImage: "gearshape")
                            Button(isOn ? "setup.done" : "setup.next") {}
                            Text("\(count) files")
                            Text("\(ratio) ratio, \(name), \(items.count) items, \(Int(ratio)) whole")
                            Text("\(ratio, specifier: "%.1f") at 100%")
                            Text(verbatim: "not.verbatim")
                            Text(name)
                            Text("not." + name)
                            Image("not.image")
                            RenameView("rename.title", name: name) { _ in }
                            SettingItemView(title: "config.dpi", loading: true)
                            row(label: "row.label", detail: "not.detail")
                            Picker("run.bottle", selection: $isOn) { Text("picker.item").tag(true) }
                        }
                    }
                    .navigationTitle("tab.config")
                    .help("help.text")
                    .alert("alert.title", isPresented: $isOn) {}
                    .searchable(text: $query, prompt: "search.prompt")
                    .padding("not.padding")
                }

                var status: LocalizedStringKey {
                    switch count {
                    case 0: "status.none"
                    case 1:
                        return "status.one"
                    default: return count > 9 ? "status.many" : "status.few"
                    }
                }

                func caption() -> LocalizedStringResource { "caption.text" }

                func row(label: LocalizedStringKey, detail: String) -> some View { Text(label) }
            }
            """#
        let declarations = #"""
            import SwiftUI
            import AppIntents

            struct RenameView: View {
                init(_ title: LocalizedStringKey, name: String, onRename: (String) -> Void) {}
            }

            struct SettingItemView: View {
                let title: String.LocalizationValue
                let loading: Bool
            }

            struct OpenBottle: AppIntent {
                static var title: LocalizedStringResource = "intent.open"
                static var description = IntentDescription("intent.description")
                @Parameter(title: "intent.bottle") var bottle: String
                var greeting: String = "not.greeting"
                let tabs: [LocalizedStringKey] = ["tab.one", "tab.two"]
                static var cases: [Kind: DisplayRepresentation] = [.a: "case.a", .b: "case.b"]

                func perform() async throws -> some IntentResult {
                    print("not.printed")
                    return .result(dialog: "intent.done")
                }
            }
            """#
        let scan = SourceScanner().scan([(views, "Views.swift"), (declarations, "Declarations.swift")])
        XCTAssertEqual(scan.uses.map(\.key), [
            "settings.general", "settings.toggle", "settings.label", "setup.done", "setup.next", "%lld files",
            "%lf ratio, %@, %lld items, %lld whole", "%.1f at 100%%", "rename.title", "config.dpi", "row.label", "run.bottle", "picker.item",
            "tab.config", "help.text", "alert.title", "search.prompt", "status.none", "status.one", "status.many", "status.few", "caption.text",
            "intent.open", "intent.description", "intent.bottle", "tab.one", "tab.two", "case.a", "case.b", "intent.done",
        ])
        XCTAssertEqual(scan.uses.first { $0.key == "rename.title" }?.reason, "RenameView(_:)")
        XCTAssertEqual(scan.uses.first { $0.key == "config.dpi" }?.reason, "SettingItemView(title:)")
        XCTAssertEqual(scan.uses.first { $0.key == "status.one" }?.reason, "returned as LocalizedStringKey")
        XCTAssertEqual(scan.uses.first { $0.key == "intent.open" }?.reason, "a LocalizedStringResource declaration")
        XCTAssertEqual(scan.uses.first { $0.key == "intent.bottle" }?.reason, "@Parameter(title:)")
        let plain = Set(scan.otherLiterals.map(\.text))
        for literal in ["not.verbatim", "not.", "not.image", "not.detail", "not.padding", "not.greeting", "not.printed", "gearshape"] {
            XCTAssertTrue(plain.contains(literal), literal)
        }
        // A position the user names: their own API, not declared in the sources scanned.
        var positions = LocalizablePositions.apple
        XCTAssertNoThrow(try positions.add("Badge:caption"))
        let badge = "Badge(caption: \"badge.caption\", count: 3)"
        XCTAssertEqual(SourceScanner(positions: positions).uses(in: badge, file: "b.swift").map(\.key), ["badge.caption"])
        XCTAssertEqual(SourceScanner().uses(in: badge, file: "b.swift").map(\.key), [])
        for bad in ["Badge", "Badge:", ":title", "Ba dge:x", "Badge:ti-tle"] {
            XCTAssertThrowsError(try positions.add(bad), bad)
        }
    }

    func testMalformedSourceNeverCrashes() {
        for text in ["", "(", "NSLocalizedString(", "NSLocalizedString(\"unterminated", "\"\"\"", "/* never closed", "#\"raw", "[x localizedStringForKey:",
                     "Text(\"\\(\")", "String(localized:", "@\"", "'"] {
            _ = SourceScanner(macros: ["M"]).uses(in: text, file: "x.swift")
        }
    }
}
