import Foundation
import LprojPaths
import LprojTables

/// The comments a table's file gives its keys: in `.strings` text the
/// comment right above an entry (genstrings' and Xcode's place for it), in
/// a String Catalog a key's `comment`. What a translator reads beside the
/// development text.
public enum TableComments {
    /// Each commented key's comment, its `/* */` or `//` marks and outer
    /// white space left out; empty for a format that keeps none or a file
    /// that cannot be read.
    public static func of(_ bytes: [UInt8], format: TableFormat) -> [String: String] {
        switch format {
        case .strings:
            guard !bytes.withUnsafeBufferPointer({ PropertyListTable.isBinary($0) }) else { return [:] }
            let text = bytes.withUnsafeBufferPointer { input in DecodedText(bytes: input).withUTF8(of: input) { Array($0) } }
            let layout = text.withUnsafeBufferPointer { StringsTextParser.layout(of: $0).layout }
            var comments: [String: String] = [:]
            for index in layout.entries.indices {
                guard let range = layout.comment(of: index, in: text) else { continue }
                var body = String(decoding: text[range], as: UTF8.self)
                if body.hasPrefix("/*") { body = String(body.dropFirst(2).dropLast(2)) } else { body = String(body.dropFirst(2)) }
                comments[layout.entries[index].key] = body.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            return comments
        case .xcstrings:
            guard case .object(let members, _)? = (try? CatalogJSON.parse(bytes))?["strings"] else { return [:] }
            var comments: [String: String] = [:]
            for member in members {
                if let comment = member.value["comment"]?.stringValue { comments[member.key] = comment }
            }
            return comments
        case .stringsdict:
            return [:]
        }
    }
}
