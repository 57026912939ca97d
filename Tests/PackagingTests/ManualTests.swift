import Foundation
import LprojDaemon
import LprojProcessTesting
import XCTest

/// The man pages and completions list what the programs take: each man
/// page's options equal `--help`'s, lprojd.conf(5)'s keys equal the
/// shipped config's, and every completion offers every option.
final class ManualTests: XCTestCase {
    private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    func testLprojdsManPageListsTheOptionsOfItsHelp() throws {
        XCTAssertEqual(try options(inManPage: "man/lprojd.8", section: "OPTIONS"), try options(inHelpOf: "lprojd", []))
    }

    func testLprojctlsManPageListsEveryCommandAndItsOptions() throws {
        let commands = try commandsOfLprojctl()
        XCTAssertEqual(commands, ["batch", "catalog", "check", "coverage", "dump", "get", "lint", "list", "match", "metrics", "misses", "mv", "rm",
                                  "rollback", "scan", "select", "set", "status", "studio", "tail", "wait"])
        let page = try manPage("man/lprojctl.1")
        for command in commands {
            // The command's subsection: from its .SS line to the next.
            let sections = page.components(separatedBy: "\n.SS ")
            let section = try XCTUnwrap(sections.first { $0.hasPrefix("\"\(command) ") || $0.hasPrefix("\"\(command)\"") }, command)
            var fromPage = Self.options(in: section.components(separatedBy: "\n.SH ")[0], manStyle: true)
            fromPage.insert("help")
            XCTAssertEqual(fromPage, try options(inHelpOf: "lprojctl", [command, "--help"]).union(["help"]), "lprojctl \(command)")
        }
        XCTAssertEqual(try options(inManPage: "man/lprojctl.1", section: "OPTIONS"), try options(inHelpOf: "lprojctl", []))
    }

    func testTheConfigManPageListsTheShippedKeys() throws {
        let config = try String(contentsOfFile: repository + "/config/lprojd.conf", encoding: .utf8)
        var shipped = Set<String>(), section = ""
        for line in config.split(separator: "\n") {
            if line.hasPrefix("[") { section = String(line) } else if let equals = line.firstIndex(of: "="), line.first?.isLetter == true {
                shipped.insert("\(section) \(line[..<equals])")
            }
        }
        var documented = Set<String>()
        section = ""
        for line in try manPage("man/lprojd.conf.5").split(separator: "\n") {
            if line.hasPrefix(".SH [") { section = String(line.dropFirst(4)) }
            if line.hasPrefix(".B "), line.hasSuffix("="), section.hasPrefix("[") { documented.insert("\(section) \(line.dropFirst(3).dropLast())") }
        }
        XCTAssertEqual(documented, shipped)
        XCTAssertEqual(shipped.count, 37, "every key of config/lprojd.conf")
    }

    func testTheConfigManPageGivesEveryNumbersRange() throws {
        let page = try manPage("man/lprojd.conf.5")
        for (key, range) in ValueRange.keys {
            // The key's paragraph: from its .B line to the next .TP or .SH.
            let start = try XCTUnwrap(page.range(of: ".B \(key)=\n"), key)
            let rest = page[start.upperBound...]
            let paragraph = rest[..<(rest.range(of: "\n.TP")?.lowerBound ?? rest.range(of: "\n.SH")?.lowerBound ?? rest.endIndex)]
            XCTAssertTrue(paragraph.replacingOccurrences(of: "\n", with: " ").contains(range.description), "\(key): \(range.description)")
        }
    }

    func testTheManPageSourcesRenderWithoutWarnings() throws {
        for page in ["man/lprojd.8", "man/lprojctl.1", "man/lprojd.conf.5"] {
            let result = try runProgram("/usr/bin/man", ["--warnings", "-l", repository + "/" + page], environment: ["MANWIDTH": "80"],
                                 separateErrors: true)
            XCTAssertEqual(result.status, 0, page)
            XCTAssertEqual(result.errors, "", page)
        }
    }

    func testCompletionsOfferEveryOption() throws {
        for command in try ["lprojd"] + commandsOfLprojctl() {
            let all = command == "lprojd" ? try options(inHelpOf: "lprojd", []) : try options(inHelpOf: "lprojctl", [command, "--help"])
            let program = command == "lprojd" ? "lprojd" : "lprojctl"
            for file in ["completions/\(program).bash", "completions/_\(program)", "completions/\(program).fish"] {
                let text = try String(contentsOfFile: repository + "/" + file, encoding: .utf8)
                for option in all where option != "help" && option != "version" {
                    let spelled = file.hasSuffix(".fish") ? "-l \(option)" : "--\(option)"
                    XCTAssertTrue(text.contains(spelled), "\(file) offers --\(option) (\(command))")
                }
            }
        }
        // What bash completes for `lprojctl get --`:
        let bash = try runProgram("/bin/bash", ["-c", "source \(repository)/completions/lprojctl.bash; COMP_WORDS=(lprojctl get --); COMP_CWORD=2; _lprojctl; echo ${COMPREPLY[@]}"])
        XCTAssertEqual(Set(bash.output.split(whereSeparator: \.isWhitespace).map { String($0.dropFirst(2)) }),
                       try options(inHelpOf: "lprojctl", ["get", "--help"]).union(["help"]))
        XCTAssertEqual(try runProgram("/usr/bin/zsh", ["-n", repository + "/completions/_lprojctl"]).status, 0)
        XCTAssertEqual(try runProgram("/usr/bin/zsh", ["-n", repository + "/completions/_lprojd"]).status, 0)
        XCTAssertEqual(try runProgram("/usr/bin/fish", ["--no-execute", repository + "/completions/lprojctl.fish"]).status, 0)
        XCTAssertEqual(try runProgram("/usr/bin/fish", ["--no-execute", repository + "/completions/lprojd.fish"]).status, 0)
    }

    // MARK: helpers

    private func manPage(_ path: String) throws -> String {
        try String(contentsOfFile: repository + "/" + path, encoding: .utf8)
    }

    /// The long options a man page's section lists in its .TP items.
    private func options(inManPage path: String, section: String) throws -> Set<String> {
        let page = try manPage(path)
        let start = try XCTUnwrap(page.range(of: "\n.SH \(section)\n"), "\(path) has no \(section)")
        let rest = page[start.upperBound...]
        let body = rest.range(of: "\n.SH ").map { rest[..<$0.lowerBound] } ?? rest
        return Self.options(in: String(body), manStyle: true)
    }

    /// The long options of `program arguments... --help` (or `--help` alone).
    private func options(inHelpOf program: String, _ arguments: [String]) throws -> Set<String> {
        let help = try runProgram(binaryDirectory().appendingPathComponent(program).path, arguments.isEmpty ? ["--help"] : arguments).output
        let section = help.components(separatedBy: "\nOptions")
        return Self.options(in: section.count > 1 ? section[1] : help, manStyle: false, lineStart: true)
    }

    private func commandsOfLprojctl() throws -> [String] {
        let help = try runProgram(binaryDirectory().appendingPathComponent("lprojctl").path, ["--help"]).output
        // A command with verbs (catalog compile, sync, …) is listed a line a verb: one command.
        return Set(help.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let first = line.split(separator: " ").first, first.first?.isLetter == true else { return nil }
            return String(first)
        }).sorted()
    }

    /// Long option names in `text`: in a man page, on the line after .TP;
    /// in help, at the start of an indented line.
    private static func options(in text: String, manStyle: Bool, lineStart: Bool = false) -> Set<String> {
        var found = Set<String>()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() {
            let candidate: Substring
            if manStyle {
                guard index > 0, lines[index - 1] == ".TP" else { continue }
                candidate = line
            } else {
                let trimmed = line.drop { $0 == " " }
                guard trimmed.count < line.count, trimmed.hasPrefix("-") else { continue }
                candidate = trimmed
            }
            let plain = candidate.replacingOccurrences(of: "\\-", with: "-")
            var rest = Substring(plain)
            while let range = rest.range(of: "--") {
                let name = rest[range.upperBound...].prefix { $0.isLetter || $0 == "-" }
                if !name.isEmpty { found.insert(String(name)) }
                if !manStyle { break }
                rest = rest[range.upperBound...]
            }
        }
        return found
    }
}
