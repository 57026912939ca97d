import LprojFormats
import LprojTables

/// `diagnostics`: the cross-language checks of a bundle (missing keys,
/// format specifiers that disagree, plural forms, empty values, names,
/// InfoPlist — `lprojctl check`'s rules) changed: `diagnostics` is the
/// bundle's whole set now (empty: clean again). Sent only to subscriptions
/// that asked for them (`subscribe` with `diagnostics: true`), which also
/// get the current set of each bundle they cover that has any, right after
/// the reply.
public struct Diagnostics: Event {
    public static let name = "diagnostics"

    public var clock: Clock
    public var bundle: String
    public var diagnostics: [Diagnostic]

    public init(clock: Clock, bundle: String, diagnostics: [Diagnostic]) {
        self.clock = clock
        self.bundle = bundle
        self.diagnostics = diagnostics
    }
}

extension Diagnostics {
    /// A bundle's set can hold thousands of diagnostics and is sent whole on
    /// each change: written by hand, keys sorted as the encoder sorts them.
    public func handWrittenLine() -> [UInt8]? {
        var line: [UInt8] = []
        line.reserveCapacity(128 + diagnostics.count * 160)
        line += Array(#"{"bundle":"#.utf8)
        JSONStringEscape.quote(bundle, into: &line)
        line += Array(#","clock":"#.utf8)
        JSONStringEscape.quote(clock.description, into: &line)
        line += Array(#","diagnostics":["#.utf8)
        for (index, diagnostic) in diagnostics.enumerated() {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            line += Array(#"{"column":"#.utf8) + Array(String(diagnostic.column).utf8)
            line += Array(#","file":"#.utf8)
            JSONStringEscape.quote(diagnostic.file, into: &line)
            if let hint = diagnostic.hint {
                line += Array(#","hint":"#.utf8)
                JSONStringEscape.quote(hint, into: &line)
            }
            line += Array(#","line":"#.utf8) + Array(String(diagnostic.line).utf8)
            line += Array(#","message":"#.utf8)
            JSONStringEscape.quote(diagnostic.message, into: &line)
            line += Array(#","severity":"#.utf8)
            JSONStringEscape.quote(diagnostic.severity.rawValue, into: &line)
            line.append(UInt8(ascii: "}"))
        }
        line += Array(#"],"event":"diagnostics"}"#.utf8)
        line.append(0x0A)
        // Exactly the line's size: the history keeps it.
        return [UInt8](unsafeUninitializedCapacity: line.count) { buffer, count in
            _ = buffer.initialize(from: line)
            count = line.count
        }
    }
}
