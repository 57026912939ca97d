import LprojTables

/// `table-invalid`: a saved file has errors. The served table does not
/// change: `kept` says what is served instead (`last-good`, or `none` when
/// the file never parsed).
public struct TableInvalid: Event {
    public static let name = "table-invalid"

    public enum Kept: String, Codable, Sendable {
        case lastGood = "last-good"
        case none
    }

    public var clock: Clock
    public var file: String
    public var bundle: String
    /// nil for a String Catalog (`.xcstrings`), which holds every language.
    public var language: String?
    public var table: String
    public var diagnostics: [Diagnostic]
    public var kept: Kept

    public init(clock: Clock, file: String, bundle: String, language: String?, table: String, diagnostics: [Diagnostic], kept: Kept) {
        self.clock = clock
        self.file = file
        self.bundle = bundle
        self.language = language
        self.table = table
        self.diagnostics = diagnostics
        self.kept = kept
    }
}
