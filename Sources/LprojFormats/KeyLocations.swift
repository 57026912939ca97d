import Foundation
import LprojTables

/// Where the keys of one table file are written, for problems found after
/// the file was parsed (a cross-language check names the line of the key
/// it is about). Made only when such a problem is reported: it reads the
/// file again.
///
/// - `.strings` text (any encoding): where each entry's key starts (the
///   last definition of a key, which is the one that counts).
/// - XML property lists (`.stringsdict`, XML `.strings`): the first place
///   the root dictionary has the key. String Catalogs (JSON): the key in
///   `strings` (the last, when it is written twice).
/// - Binary property lists have no lines: line 1, column 1.
public struct KeyLocations {
    /// The file, as named.
    public let path: String
    private let form: Form

    private enum Form {
        case offsets([String: Int], SourceText)
        case none
    }

    /// Reads `path` (nil when it cannot be read).
    public init?(path: String) {
        guard let bytes = try? TableFile.readBytes(path: path, limit: 64 << 20) else { return nil }
        self.init(path: path, bytes: bytes)
    }

    /// For the file `path` whose bytes are `bytes`.
    public init(path: String, bytes: [UInt8]) {
        self.path = path
        if bytes.withUnsafeBufferPointer({ PropertyListTable.isBinary($0) }) {
            form = .none
            return
        }
        let text = bytes.withUnsafeBufferPointer { raw -> [UInt8] in
            let decoded = DecodedText(bytes: raw)
            return decoded.withUTF8(of: raw) { Array($0) }
        }
        if path.hasSuffix(".xcstrings") {
            var offsets: [String: Int] = [:]
            for string in (try? CatalogJSON.parse(text))?["strings"]?.uniqueMembers ?? [] { offsets[string.key] = string.keyOffset }
            form = .offsets(offsets, SourceText(bytes: text))
        } else if text.withUnsafeBufferPointer({ PropertyListTable.looksLikeXML($0) }) {
            form = .offsets(KeyLocator(file: path, bytes: text).entryOffsets, SourceText(bytes: text))
        } else {
            var offsets: [String: Int] = [:]
            text.withUnsafeBufferPointer { buffer in
                for (key, offset) in StringsTextParser.keyOffsets(in: buffer) { offsets[key] = offset }
            }
            form = .offsets(offsets, SourceText(bytes: text))
        }
    }

    /// The 1-based line and column where `key` is written; nil when it is
    /// not found (or the file has no lines: a binary property list).
    public func location(of key: String) -> (line: Int, column: Int)? {
        switch form {
        case .offsets(let offsets, var source):
            guard let offset = offsets[key] else { return nil }
            return source.location(of: offset)
        case .none:
            return nil
        }
    }
}
