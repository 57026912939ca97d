import Foundation
import LprojLanguages

/// An app's selected language kept on this machine without a daemon:
/// `$XDG_CONFIG_HOME/lprojd/<app>.language` (default `~/.config`), one tag.
struct LanguageChoice: Sendable {
    let file: String?

    init(app: String?, environment: [String: String]) {
        guard let app, LanguageSelection.problem(withApp: app) == nil else {
            file = nil
            return
        }
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        file = base + "/lprojd/" + app + ".language"
    }

    /// The persisted tag, nil when none (or unreadable, or not a tag).
    func load() -> String? {
        guard let file, let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        guard case .success(let language?) = LanguageSelection.language(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            return nil
        }
        return language
    }

    /// Persists `language` (nil: remove the choice): temporary file, then rename.
    func save(_ language: String?) throws {
        guard let file else { return }
        if let language {
            let directory = (file as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data((language + "\n").utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
        } else if FileManager.default.fileExists(atPath: file) {
            try FileManager.default.removeItem(atPath: file)
        }
    }
}
