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
///   `strings` (the last, when it is written twice); `location(ofRootMember:)`
///   places the catalog's own members (`sourceLanguage`, `version`).
/// - Binary property lists have no lines: line 1, column 1.
public struct KeyLocations {
    /// The file, as named.
    public let path: String
    private let form: Form
    /// A String Catalog's own members (`sourceLanguage`, `version`, `strings`), where each is written.
    private var rootOffsets: [String: Int] = [:]

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
            let root = try? CatalogJSON.parse(text)
            for string in root?["strings"]?.uniqueMembers ?? [] { offsets[string.key] = string.keyOffset }
            for member in root?.uniqueMembers ?? [] { rootOffsets[member.key] = member.keyOffset }
            form = .offsets(offsets, SourceText(linesOf: text))
        } else if text.withUnsafeBufferPointer({ PropertyListTable.looksLikeXML($0) }) {
            form = .offsets(KeyLocator(file: path, bytes: text).entryOffsets, SourceText(linesOf: text))
        } else {
            var offsets: [String: Int] = [:]
            text.withUnsafeBufferPointer { buffer in
                for (key, offset) in StringsTextParser.keyOffsets(in: buffer) { offsets[key] = offset }
            }
            form = .offsets(offsets, SourceText(linesOf: text))
        }
    }

    /// The 1-based line and column where a String Catalog's own member
    /// `name` (`sourceLanguage`) is written; nil when it is not found.
    public func location(ofRootMember name: String) -> (line: Int, column: Int)? {
        guard case .offsets(_, var source) = form, let offset = rootOffsets[name] else { return nil }
        return source.location(of: offset)
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
