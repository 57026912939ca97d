import LprojFormats
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
            text += "  <file original=\"\(XMLEscape.attribute(file.original))\" source-language=\"\(XMLEscape.attribute(file.sourceLanguage))\""
            if let target = file.targetLanguage { text += " target-language=\"\(XMLEscape.attribute(target))\"" }
            text += " datatype=\"plaintext\">\n"
            text += "    <header>\n"
            text += "      <tool tool-id=\"\(XMLEscape.attribute(tool.id))\" tool-name=\"\(XMLEscape.attribute(tool.name))\" tool-version=\"\(XMLEscape.attribute(tool.version))\"/>\n"
            text += "    </header>\n"
            text += "    <body>\n"
            for unit in file.units {
                text += "      <trans-unit id=\"\(XMLEscape.attribute(unit.id))\" xml:space=\"preserve\">\n"
                text += "        <source>\(XMLEscape.content(unit.source))</source>\n"
                if let target = unit.target {
                    let state = unit.state.map { " state=\"\(XMLEscape.attribute($0))\"" } ?? ""
                    text += "        <target\(state)>\(XMLEscape.content(target))</target>\n"
                }
                if let note = unit.note { text += "        <note>\(XMLEscape.content(note))</note>\n" }
                text += "      </trans-unit>\n"
            }
            text += "    </body>\n"
            text += "  </file>\n"
        }
        text += "</xliff>\n"
        return Array(text.utf8)
    }

    /// Whether XML 1.0 can carry `text` at all (it has no way to write most control characters).
    public static func canHold(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            scalar.value >= 0x20 ? !(0xFFFE...0xFFFF).contains(scalar.value) : [0x09, 0x0A, 0x0D].contains(scalar.value)
        }
    }
}
