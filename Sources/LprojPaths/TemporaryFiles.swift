/// Names editors and sync tools give their temporary files, which are never tables.
public enum TemporaryFiles {
    /// Whether a file name is an editor or tool temporary: `name~`, vim's
    /// `.name.swp` / `.swx` / `4913`, emacs' `.#name` and `#name#`, rsync's
    /// `.name.XXXXXX`, `*.tmp`.
    public static func isTemporary(_ name: String) -> Bool {
        if name.hasSuffix("~") || name.hasSuffix(".tmp") || name == "4913" { return true }
        if name.hasPrefix(".#") || (name.hasPrefix("#") && name.hasSuffix("#")) { return true }
        if name.hasPrefix("."), name.hasSuffix(".swp") || name.hasSuffix(".swx") || name.hasSuffix(".swo") { return true }
        // rsync: ".Localizable.strings.Ab12Cd" — a dot, the real name, a dot, six characters.
        if name.hasPrefix("."), let dot = name.lastIndex(of: "."), dot != name.startIndex {
            let suffix = name[name.index(after: dot)...]
            if suffix.count == 6, suffix.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }),
               name[name.index(after: name.startIndex)..<dot].contains(".") {
                return true
            }
        }
        return false
    }
}
