import LprojTables
/// Writes tables back to old-style `.strings` text: UTF-8, keys sorted,
/// one `"key" = "value";` per line, escaped so that parsing the text gives
/// the same table back.
public enum StringsWriter {
    /// A table entry that `.strings` cannot hold (variations, substitutions).
    public struct UnrepresentableEntry: Error, Hashable, Sendable, CustomStringConvertible {
        public var key: String
        public var description: String { "the entry \"\(key)\" has variations; write it to a .stringsdict instead" }
    }

    /// The `.strings` text for `table`. An empty table is written as a
    /// comment, since a zero-byte file is an error to CoreFoundation.
    public static func text(for table: Table) throws(UnrepresentableEntry) -> String {
        if table.isEmpty { return "/* No entries. */\n" }
        var output = ""
        for key in table.sortedKeys {
            guard let value = table[key]!.text else { throw UnrepresentableEntry(key: key) }
            output += quoted(key)
            output += " = "
            output += quoted(value)
            output += ";\n"
        }
        return output
    }

    /// `text` in double quotes with `"`, `\` and control characters escaped.
    public static func quoted(_ text: String) -> String {
        // Most text needs no escape: copied whole.
        if !text.utf8.contains(where: { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 || $0 == 0x7F }) { return "\"" + text + "\"" }
        var output = "\""
        output.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{07}": output += "\\a"
            case "\u{08}": output += "\\b"
            case "\u{0B}": output += "\\v"
            case "\u{0C}": output += "\\f"
            case "\u{00}"..."\u{1F}", "\u{7F}":
                let hex = String(scalar.value, radix: 16, uppercase: true)
                output += "\\U" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
        return output
    }
}
