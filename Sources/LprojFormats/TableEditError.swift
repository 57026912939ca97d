import LprojTables
/// Why a table file could not be changed: one message that names the file
/// (and the line, where there is one) and says what to do. Nothing was written.
public struct TableEditError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file, as it was named.
    public var path: String
    /// What is wrong, in a translator's words.
    public var message: String
    /// Whether the caller may not change the file (its permissions, not its content).
    public var isForbidden: Bool

    public init(path: String, _ message: String, forbidden: Bool = false) {
        self.path = path
        self.message = message
        isForbidden = forbidden
    }

    public var description: String { "\(path): \(message)" }
}
