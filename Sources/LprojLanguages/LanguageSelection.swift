/// The one rule for what may be selected: which app ids and which
/// languages. The daemon (`hello`, `select-language`), `lprojctl select`
/// and `LiveBundle` (`setLanguage`, its local choice file) all use it, so
/// what one accepts the others accept.
public enum LanguageSelection {
    /// The app id's message when it is not one, else nil. An app id is
    /// letters, digits, `.`, `-` and `_`, not starting with `.`, at most 200
    /// bytes: it names a file in the daemon's state directory and in the
    /// client's configuration directory.
    public static func problem(withApp app: String) -> String? {
        let valid = !app.isEmpty && app.utf8.count <= 200 && !app.hasPrefix(".")
            && app.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
        return valid ? nil : "an app id is letters, digits, '.', '-' and '_', not starting with '.' (at most 200 bytes), not '\(app)'"
    }

    /// What a selection names: `.success(nil)` for `"system"` (follow the
    /// environment again), the tag as given for a language, or the message
    /// saying why it is neither (`Base` is not a language one can select).
    public static func language(_ text: String) -> Result<String?, Problem> {
        if text == "system" { return .success(nil) }
        guard let tag = LanguageTag(text), !tag.isBase else { return .failure(Problem(message: "'\(text)' is not a language tag (or \"system\")")) }
        return .success(text)
    }

    /// Why a selection is refused.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}
