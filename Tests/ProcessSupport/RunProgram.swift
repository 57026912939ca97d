import Foundation

/// Runs a program to its end: its status, its output (standard error too,
/// unless `separateErrors`), and its standard error.
@discardableResult
public func runProgram(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:], separateErrors: Bool = false,
         file: StaticString = #filePath, line: UInt = #line) throws -> (status: Int32, output: String, errors: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = separateErrors ? errors : output
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = separateErrors ? errors.fileHandleForReading.readDataToEndOfFile() : Data()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
}
