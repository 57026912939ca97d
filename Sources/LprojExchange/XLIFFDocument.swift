/// An XLIFF 1.2 document as Xcode's "Export Localizations" writes it and
/// translators' tools (Crowdin, Phrase, Weblate, Trados, translate-toolkit)
/// read it: one `<file>` per table, its `original` the table's path, a
/// `<trans-unit>` per string or variation (`TransUnitID`), `<note>` from the
/// developer's comment.
public struct XLIFFDocument: Equatable, Sendable {
    /// One table's units in one target language.
    public struct File: Equatable, Sendable {
        /// The table's path, relative to where the export ran.
        public var original: String
        public var sourceLanguage: String
        public var targetLanguage: String?
        public var units: [Unit]
        /// Of its `<file>` element, 1-based; 0 for a file made in memory.
        public var line: Int

        public init(original: String, sourceLanguage: String, targetLanguage: String?, units: [Unit], line: Int = 0) {
            self.original = original
            self.sourceLanguage = sourceLanguage
            self.targetLanguage = targetLanguage
            self.units = units
            self.line = line
        }
    }

    /// One string to translate.
    public struct Unit: Equatable, Sendable {
        public var id: String
        public var source: String
        /// nil: not translated yet.
        public var target: String?
        /// XLIFF's `state` of the target (`translated`, `new`, `needs-review-translation`…).
        public var state: String?
        public var note: String?
        /// Of its `<trans-unit>` element, 1-based; 0 for a unit made in memory.
        public var line: Int

        public init(id: String, source: String, target: String?, state: String? = nil, note: String? = nil, line: Int = 0) {
            self.id = id
            self.source = source
            self.target = target
            self.state = state
            self.note = note
            self.line = line
        }
    }

    public var files: [File]

    public init(files: [File]) {
        self.files = files
    }

    /// The tool named in each `<file>`'s header, as Xcode names itself there.
    public struct Tool: Sendable {
        public var id: String
        public var name: String
        public var version: String

        public init(id: String, name: String, version: String) {
            self.id = id
            self.name = name
            self.version = version
        }
    }

    /// The document's text: Xcode's layout (two-space indentation, one
    /// element per line, `xml:space="preserve"` on every unit).
    public func rendered(tool: Tool) -> [UInt8] {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            version="1.2" xsi:schemaLocation="urn:oasis:names:tc:xliff:document:1.2 \
            http://docs.oasis-open.org/xliff/v1.2/os/xliff-core-1.2-strict.xsd">

            """
        for file in files {
            text += "  <file original=\"\(Self.escaped(file.original))\" source-language=\"\(Self.escaped(file.sourceLanguage))\""
            if let target = file.targetLanguage { text += " target-language=\"\(Self.escaped(target))\"" }
            text += " datatype=\"plaintext\">\n"
            text += "    <header>\n"
            text += "      <tool tool-id=\"\(Self.escaped(tool.id))\" tool-name=\"\(Self.escaped(tool.name))\" tool-version=\"\(Self.escaped(tool.version))\"/>\n"
            text += "    </header>\n"
            text += "    <body>\n"
            for unit in file.units {
                text += "      <trans-unit id=\"\(Self.escaped(unit.id))\" xml:space=\"preserve\">\n"
                text += "        <source>\(Self.escapedText(unit.source))</source>\n"
                if let target = unit.target {
                    let state = unit.state.map { " state=\"\(Self.escaped($0))\"" } ?? ""
                    text += "        <target\(state)>\(Self.escapedText(target))</target>\n"
                }
                if let note = unit.note { text += "        <note>\(Self.escapedText(note))</note>\n" }
                text += "      </trans-unit>\n"
            }
            text += "    </body>\n"
            text += "  </file>\n"
        }
        text += "</xliff>\n"
        return Array(text.utf8)
    }

    /// Text as an attribute value: every character a reader normalizes away written as a reference.
    static func escaped(_ text: String) -> String { escape(text, attribute: true) }

    /// Text as character data: line breaks as they are (a reader keeps them
    /// under `xml:space="preserve"`), a carriage return as a reference.
    static func escapedText(_ text: String) -> String { escape(text, attribute: false) }

    private static func escape(_ text: String, attribute: Bool) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"" where attribute: output += "&quot;"
            case "\r": output += "&#13;"
            case "\t" where attribute: output += "&#9;"
            case "\n" where attribute: output += "&#10;"
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    /// Whether XML 1.0 can carry `text` at all (it has no way to write most control characters).
    public static func canHold(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            scalar.value >= 0x20 ? !(0xFFFE...0xFFFF).contains(scalar.value) : [0x09, 0x0A, 0x0D].contains(scalar.value)
        }
    }
}
