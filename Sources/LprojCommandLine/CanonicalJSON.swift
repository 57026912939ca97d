import Foundation
import LprojFormats

/// JSON text in one canonical form: object keys sorted by Unicode code
/// point, two-space indentation, UTF-8 with only the escapes JSON requires.
public enum CanonicalJSON {
    /// The canonical text of a JSON-compatible object (`String`, `NSNumber`,
    /// `Bool`, `[Any]`, `[String: Any]`, `NSNull`; `Data` as base64, `Date`
    /// as ISO 8601, as a property list may hold them).
    public static func text(_ object: Any) -> String {
        var output = ""
        write(object, indent: 0, to: &output)
        return output
    }

    /// The canonical text of an `Encodable` value.
    public static func text(encoding value: some Encodable) throws -> String {
        let data = try JSONEncoder().encode(value)
        return text(try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
    }

    private static func write(_ object: Any, indent: Int, to output: inout String) {
        let pad = String(repeating: "  ", count: indent + 1)
        switch object {
        case let string as String:
            quote(string, to: &output)
        case let dictionary as [String: Any]:
            if dictionary.isEmpty { output += "{}"; return }
            output += "{\n"
            let keys = dictionary.keys.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
            for (index, key) in keys.enumerated() {
                output += pad
                quote(key, to: &output)
                output += ": "
                write(dictionary[key]!, indent: indent + 1, to: &output)
                output += index == keys.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: "  ", count: indent) + "}"
        case let array as [Any]:
            if array.isEmpty { output += "[]"; return }
            output += "[\n"
            for (index, element) in array.enumerated() {
                output += pad
                write(element, indent: indent + 1, to: &output)
                output += index == array.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: "  ", count: indent) + "]"
        case let data as Data:
            quote(data.base64EncodedString(), to: &output)
        case let date as Date:
            quote(ISO8601DateFormatter().string(from: date), to: &output)
        case let bool as Bool where isBoolean(object):
            output += bool ? "true" : "false"
        case let number as NSNumber:
            output += number.stringValue
        default:
            output += "null"
        }
    }

    /// Booleans arrive as `Bool` from property lists and as a private
    /// NSNumber subclass from JSONSerialization; 0 and 1 must stay numbers.
    private static func isBoolean(_ object: Any) -> Bool {
        type(of: object) == Bool.self || String(describing: type(of: object)) == "__NSCFBoolean"
    }

    private static func quote(_ string: String, to output: inout String) {
        output += JSONStringEscape.quoted(string)
    }
}
