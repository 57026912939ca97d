import Foundation
import LprojTables

/// Reads tables stored as XML or binary property lists, through Foundation,
/// and turns Foundation's errors into diagnostics.
package enum PropertyListTable {
    /// Whether CoreFoundation reads `bytes` as a binary property list:
    /// `bplist0` and any version byte (it takes `bplist01`, `bplist0x`…
    /// as it takes `bplist00`, and so must the bounds put before it).
    static func isBinary(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count >= 8 && bytes.starts(with: "bplist0".utf8)
    }

    /// `<?xml`, `<!DOCTYPE` or `<plist` after optional white space.
    static func looksLikeXML(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < utf8.count, utf8[index] == .space || (utf8[index] >= 0x09 && utf8[index] <= 0x0D) { index += 1 }
        let rest = utf8[index..<min(utf8.count, index + 9)]
        return rest.starts(with: "<?xml".utf8) || rest.starts(with: "<!DOCTYPE".utf8) || rest.starts(with: "<plist".utf8)
    }

    /// A property list's top-level object, or a diagnostic saying why not.
    /// A binary one is first held to `limits` (`BinaryPropertyListBounds`):
    /// Foundation materialises every reference, however often it repeats.
    package static func decode(_ data: Data, path: String, limits: TableLimits) -> (Any?, Diagnostic?) {
        let refusal = data.withUnsafeBytes { raw -> String? in
            guard isBinary(raw.bindMemory(to: UInt8.self)) else { return nil }
            return BinaryPropertyListBounds.problem(in: raw, limits: limits)
        }
        if let refusal {
            return (nil, Diagnostic(file: path, line: 1, column: 1, severity: .error, message: refusal,
                                    hint: refusal.hasPrefix("not a valid") ? nil
                                        : "a string table this size is unusual; raise [Limits] MaxTableObjects= or MaxTableBytes= if it is real"))
        }
        do {
            return (try PropertyListSerialization.propertyList(from: data, options: [], format: nil), nil)
        } catch {
            let message = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            let line = firstNumber(after: "line ", in: message) ?? 1
            return (nil, Diagnostic(file: path, line: line, column: 1, severity: .error,
                                    message: "not a valid property list: \(message)"))
        }
    }

    /// A `.strings` table in plist form: a dictionary of strings.
    static func parseStrings(_ data: Data, path: String, limits: TableLimits) -> (Table, [Diagnostic]) {
        let (object, failure) = decode(data, path: path, limits: limits)
        if let failure { return (Table(), [failure]) }
        guard let dictionary = object as? [String: Any] else {
            return (Table(), [Diagnostic(file: path, line: 1, column: 1, severity: .error,
                                         message: "the property list must be a dictionary of strings, found \(typeName(object))")])
        }
        var entries: [String: Entry] = [:]
        var diagnostics: [Diagnostic] = []
        for (key, value) in dictionary {
            if let string = value as? String {
                entries[key] = Entry(text: string)
            } else {
                diagnostics.append(Diagnostic(file: path, line: 1, column: 1, severity: .error,
                                              message: "the value of \"\(key)\" must be a string, found \(typeName(value))"))
            }
        }
        return (Table(entries), diagnostics.sorted { $0.message < $1.message })
    }

    static func typeName(_ object: Any?) -> String {
        switch object {
        case is String: return "a string"
        case is [Any]: return "an array"
        case is [String: Any]: return "a dictionary"
        case is Data: return "data"
        case is Date: return "a date"
        case is Bool, is NSNumber: return "a number"
        default: return "nothing usable"
        }
    }

    private static func firstNumber(after marker: String, in text: String) -> Int? {
        guard let range = text.range(of: marker) else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }
}
