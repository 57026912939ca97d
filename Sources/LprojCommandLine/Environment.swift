#if canImport(Glibc)
import Glibc
#endif

/// The process environment and working directory, read without Foundation.
public enum Environment {
    /// Every environment variable.
    public static var current: [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }

    /// The working directory ("/" when it cannot be read).
    public static var currentDirectory: String {
        guard let path = getcwd(nil, 0) else { return "/" }
        defer { free(path) }
        return String(cString: path)
    }
}
