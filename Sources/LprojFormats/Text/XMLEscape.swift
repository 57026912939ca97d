/// Text written into XML (a property list's strings, an XLIFF document):
/// the one escaper of the syntax. `&`, `<` and `>` always become
/// references, and so does a carriage return (a reader turns a raw one
/// into a line feed); in an attribute value also `"`, tab and line feed,
/// which a reader would normalize to spaces.
public enum XMLEscape {
    /// `text` as character data (line feeds as they are).
    public static func content(_ text: String) -> String { escape(text, attribute: false) }

    /// `text` as an attribute value in double quotes.
    public static func attribute(_ text: String) -> String { escape(text, attribute: true) }

    private static func escape(_ text: String, attribute: Bool) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\r": output += "&#13;"
            case "\"" where attribute: output += "&quot;"
            case "\t" where attribute: output += "&#9;"
            case "\n" where attribute: output += "&#10;"
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }
}
