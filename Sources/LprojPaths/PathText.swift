import Foundation

/// Paths as people and configuration name them, tidied without touching the
/// disk: symbolic links are kept (a root or bundle reached through a link is
/// served under the path that names it).
public enum PathText {
    /// `path` with `//` collapsed, `.` components dropped and no trailing
    /// slash (`/` stays `/`); `..` is left for the caller to refuse or resolve.
    public static func tidy(_ path: String) -> String {
        let components = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        return (path.hasPrefix("/") ? "/" : "") + components.joined(separator: "/")
    }

    /// `path` made absolute against the current directory (not tidied).
    public static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// `path` (absolute, tidy) as seen from the directory `base` (absolute,
    /// tidy): `Sources/App/Localizable.xcstrings`, `../shared/en.lproj/…`.
    public static func relative(_ path: String, to base: String) -> String {
        let target = path.split(separator: "/"), from = base.split(separator: "/")
        var common = 0
        while common < target.count, common < from.count, target[common] == from[common] { common += 1 }
        let parts = Array(repeating: "..", count: from.count - common) + target[common...].map(String.init)
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }
}
