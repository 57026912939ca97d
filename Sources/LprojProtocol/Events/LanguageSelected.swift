/// `language-selected`: an app's language was chosen (`select-language`);
/// sent to subscriptions of connections that said `hello` with that app.
public struct LanguageSelected: Event {
    public static let name = "language-selected"

    public var clock: Clock
    public var app: String
    /// nil when the app follows the system again.
    public var language: String?

    public init(clock: Clock, app: String, language: String?) {
        self.clock = clock
        self.app = app
        self.language = language
    }
}
