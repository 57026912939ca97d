import Foundation
@testable import LprojFormats
import XCTest
@testable import LprojTables

/// Where the shared corpus lives: `$LPROJ_CORPUS`, else `../shared/corpus`
/// beside the repository.
func corpusDirectory() throws -> URL {
    if let path = ProcessInfo.processInfo.environment["LPROJ_CORPUS"] { return URL(fileURLWithPath: path) }
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let corpus = repository.deletingLastPathComponent().appendingPathComponent("shared/corpus")
    guard FileManager.default.fileExists(atPath: corpus.path) else {
        throw CorpusMissing(path: corpus.path)
    }
    return corpus
}

/// Every file under `directory` whose name ends in one of `extensions`, sorted.
func files(under directory: URL, extensions: Set<String>) -> [URL] {
    let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)!
    var found: [URL] = []
    for case let url as URL in enumerator where extensions.contains(url.pathExtension) { found.append(url) }
    return found.sorted { $0.path < $1.path }
}

/// Parses `.strings` text given as a Swift string.
func parseStrings(_ text: String, path: String = "t.strings") -> StringsFile {
    StringsFile(bytes: Array(text.utf8), path: path)
}

/// The plain strings of a table.
func strings(_ table: Table) -> [String: String] {
    table.entries.compactMapValues(\.text)
}

struct CorpusMissing: Error, CustomStringConvertible {
    var path: String
    var description: String { "the shared corpus is not at \(path); set LPROJ_CORPUS" }
}
