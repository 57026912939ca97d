import Foundation
import Synchronization

/// git, run as the studio's user for what the repository knows of a table
/// file (`KeyHistory`, `LineAges`): the repository is found from the
/// file's directory, never from the studio's own environment.
enum GitCommand {
    /// `executable` with `arguments`: its exit status, standard output and standard error.
    static func run(_ executable: String, _ arguments: [String]) -> (status: Int32, output: [UInt8], errors: [UInt8]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        // The repository is found from the file's directory, never from the studio's own environment.
        for name in ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"] { environment[name] = nil }
        environment["GIT_PAGER"] = "cat"
        environment["LC_ALL"] = "C"
        process.environment = environment
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return (-1, [], Array("\(executable): \(error)".utf8))
        }
        // Both pipes drained at once: a large output must not block git while its errors are read.
        let errorBytes = Mutex<[UInt8]>([])
        let drained = DispatchGroup()
        let handle = errors.fileHandleForReading
        DispatchQueue.global().async(group: drained) {
            let read = Array(handle.readDataToEndOfFile())
            errorBytes.withLock { $0 = read }
        }
        let bytes = Array(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        drained.wait()
        return (process.terminationStatus, bytes, errorBytes.withLock { $0 })
    }
}
