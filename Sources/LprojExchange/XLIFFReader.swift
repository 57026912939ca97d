import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads XLIFF 1.2 (`XLIFFDocument`) with libxml2 through Foundation's
/// `XMLParser`: a document with a DTD (`<!DOCTYPE`, and so entities of any
/// kind) is refused before it is parsed — an entity the parser cannot
/// resolve became an empty string that overwrote a translation — and
/// anything that is not well formed, or not XLIFF 1.2, is one error with
/// its line and column.
public enum XLIFFReader {
    /// Why a document was not read: `path:line:column: error: message`.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var line: Int
        public var column: Int
        public var message: String

        public var description: String { "\(path):\(line):\(column): error: \(message)" }
    }

    /// The document in `bytes`; `path` names it in errors.
    public static func read(_ bytes: [UInt8], path: String) throws(Failure) -> XLIFFDocument {
        if let (line, column) = doctype(in: bytes) {
            throw Failure(path: path, line: line, column: column,
                          message: "a document type declaration (<!DOCTYPE>): XLIFF needs none, and its entities could change the text; remove it")
        }
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        let reader = Delegate(parser: parser, path: path)
        parser.delegate = reader
        _ = parser.parse()
        // libxml2 recovers from some errors and still reports success: the first error the delegate heard decides.
        if let failure = reader.failure { throw failure }
        guard reader.sawRoot else { throw Failure(path: path, line: 1, column: 1, message: "no <xliff> element") }
        return XLIFFDocument(files: reader.files)
    }

    /// Where `<!DOCTYPE` stands in the prolog (before the first element), if it does.
    static func doctype(in bytes: [UInt8]) -> (line: Int, column: Int)? {
        let marker = Array("<!DOCTYPE".utf8)
        var line = 1, column = 1, index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "<"), index + 1 < bytes.count {
                let next = bytes[index + 1]
                // The first element ends the prolog: no DTD may follow.
                if next != UInt8(ascii: "?") && next != UInt8(ascii: "!") { return nil }
                if bytes[index...].starts(with: marker) { return (line, column) }
            }
            if bytes[index] == 0x0A {
                line += 1
                column = 1
            } else if bytes[index] & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return nil
    }

    /// libxml2's error numbers (`xmlParserErrors`, which Foundation passes on as they are) in words.
    static func describe(libxml2 code: Int) -> String {
        switch code {
        case 4: "the document is empty"
        case 5: "extra content after the document's element"
        case 6, 7, 8: "an invalid character reference"
        case 9: "a character XML does not allow"
        case 23: "an entity reference without its ';'"
        case 26, 27: "an undeclared entity"
        case 31, 32: "an unknown or unsupported encoding"
        case 33, 34, 39, 40, 41, 43, 44: "an attribute value not quoted or not closed"
        case 38: "'<' in an attribute value"
        case 42: "an attribute given twice"
        case 45: "a comment not closed"
        case 63: "a CDATA section not closed"
        case 65: "a space is required"
        case 68: "a name is required"
        case 73: "'>' expected"
        case 74: "'</' expected"
        case 75: "'=' expected"
        case 76: "an end tag that does not match its start tag"
        case 77: "an element not closed"
        default: "libxml2 error \(code)"
        }
    }

    private static let namespace = "urn:oasis:names:tc:xliff:document:1.2"

    private final class Delegate: NSObject, XMLParserDelegate {
        let parser: XMLParser
        let path: String
        var files: [XLIFFDocument.File] = []
        var failure: Failure?
        var sawRoot = false
        private var unit: XLIFFDocument.Unit?
        private var sawSource = false
        /// The element whose text is being collected (`source`, `target`, `note`).
        private var collecting: String?
        private var text = ""
        private var depth = 0
        /// Of the open `<trans-unit>`: its own `<source>`, `<target>` and `<note>` are one deeper.
        private var unitDepth = 0

        init(parser: XMLParser, path: String) {
            self.parser = parser
            self.path = path
        }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            depth += 1
            if depth == 1 {
                guard name == "xliff", namespaceURI == XLIFFReader.namespace || namespaceURI == nil || namespaceURI == "" else {
                    return fail("the document is <\(qualifiedName ?? name)>, not XLIFF 1.2's <xliff>")
                }
                guard attributes["version"] == "1.2" else {
                    return fail("XLIFF version \(attributes["version"].map { "\"\($0)\"" } ?? "(none)") is not 1.2, which Xcode exports")
                }
                sawRoot = true
                return
            }
            if let collecting {
                return fail("<\(name)> inside <\(collecting)>: inline markup is not something a string table can hold")
            }
            switch name {
            case "file":
                guard let original = attributes["original"], !original.isEmpty else { return fail("<file> has no original attribute") }
                guard let source = attributes["source-language"], !source.isEmpty else { return fail("<file> has no source-language attribute") }
                files.append(XLIFFDocument.File(original: original, sourceLanguage: source, targetLanguage: attributes["target-language"],
                                                units: [], line: parser.lineNumber))
            case "trans-unit":
                guard !files.isEmpty else { return fail("<trans-unit> outside a <file>") }
                guard let id = attributes["id"] else { return fail("<trans-unit> has no id attribute") }
                unit = XLIFFDocument.Unit(id: id, source: "", target: nil, line: parser.lineNumber)
                unitDepth = depth
                sawSource = false
            case "source", "target", "note":
                // Only a unit's own; <alt-trans> and others hold suggestions, not the translation.
                guard unit != nil, depth == unitDepth + 1 else { return }
                collecting = name
                text = ""
                if name == "target" { unit?.state = attributes["state"] }
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, parseErrorOccurred error: Error) {
            fail("not well-formed XML: " + XLIFFReader.describe(libxml2: (error as NSError).code))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if collecting != nil { text += string }
        }

        func parser(_ parser: XMLParser, foundCDATA block: Data) {
            if collecting != nil { text += String(decoding: block, as: UTF8.self) }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            defer { depth -= 1 }
            if let field = collecting, field == name, depth == unitDepth + 1 {
                collecting = nil
                switch name {
                case "source":
                    unit?.source = text
                    sawSource = true
                case "target": unit?.target = text
                default:
                    let note = unit?.note
                    unit?.note = note.map { $0 + "\n" + text } ?? text
                }
                return
            }
            if name == "trans-unit", let finished = unit {
                guard sawSource else { return fail("<trans-unit id=\"\(finished.id)\"> has no <source>", line: finished.line) }
                files[files.count - 1].units.append(finished)
                unit = nil
            }
        }

        private func fail(_ message: String, line: Int? = nil) {
            guard failure == nil else { return }
            failure = Failure(path: path, line: line ?? max(parser.lineNumber, 1), column: max(parser.columnNumber, 1), message: message)
            parser.abortParsing()
        }
    }
}
