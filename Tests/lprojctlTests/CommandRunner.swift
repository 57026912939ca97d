import Foundation
import LprojProcessTesting
import XCTest

/// Runs a built executable of this package and captures what it printed.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// `program`: a built executable's name, or an absolute path. `environment`:
/// variables set for the command (over the test's own, with the locale ones cleared).
func runCommand(_ program: String, _ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil) throws -> CommandResult {
    let process = Process()
    process.executableURL = program.hasPrefix("/") ? URL(fileURLWithPath: program) : binaryDirectory().appendingPathComponent(program)
    process.arguments = arguments
    if let environment {
        var merged = ProcessInfo.processInfo.environment
        for name in ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"] { merged[name] = nil }
        process.environment = merged.merging(environment) { $1 }
    }
    if let directory { process.currentDirectoryURL = directory }
    let scratch = TemporaryDirectory()
    let out = scratch.url.appendingPathComponent("stdout"), err = scratch.url.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus,
                         stdout: try String(contentsOf: out, encoding: .utf8),
                         stderr: try String(contentsOf: err, encoding: .utf8))
}

/// A fresh directory removed when the value goes away.
final class TemporaryDirectory {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("lproj-test-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes `contents` to `relativePath`, creating directories.
    @discardableResult
    func write(_ relativePath: String, _ contents: String) throws -> String {
        try write(relativePath, Data(contents.utf8))
    }

    @discardableResult
    func write(_ relativePath: String, _ data: Data) throws -> String {
        let file = url.appendingPathComponent(relativePath)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        return file.path
    }
}
