/// `select-language`: choose the language an app shows, persisted by the
/// daemon and pushed to every subscriber of that app (`language-selected`).
/// `"system"` clears the choice: the app follows its environment again.
public struct SelectLanguage: Request {
    public static let op = "select-language"

    public var app: String
    /// A language tag, or `"system"`.
    public var language: String

    public init(app: String, language: String) {
        self.app = app
        self.language = language
    }

    public struct Reply: Codable, Sendable, Equatable {
        public var app: String
        /// The selected language; nil when the app follows the system.
        public var language: String?
        public var clock: Clock

        public init(app: String, language: String?, clock: Clock) {
            self.app = app
            self.language = language
            self.clock = clock
        }
    }
}
