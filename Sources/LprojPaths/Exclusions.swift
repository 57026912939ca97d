#if canImport(Glibc)
import Glibc
#endif

/// The `Exclude=` patterns of the configuration, matched against paths
/// under the roots: a pattern without `/` matches any one name in the path
/// (`.git`, `*.bak`); a pattern with `/` matches the path relative to its
/// root and everything below it (`build/*`, `vendor/old.lproj`).
public struct Exclusions: Sendable {
    public let patterns: [String]
    private let roots: [String]

    public init(patterns: [String], roots: [String]) {
        self.patterns = patterns
        self.roots = roots
    }

    /// Whether `path` (absolute, under a root) is excluded.
    public func excludes(_ path: String) -> Bool {
        guard !patterns.isEmpty else { return false }
        guard let root = roots.first(where: { ExactName(path).isWithin($0) && !path.hasSameBytes(as: $0) }) else { return false }
        let relative = String(path.dropFirst(root.count + 1))
        let names = relative.split(separator: "/")
        for pattern in patterns {
            if pattern.contains("/") {
                if fnmatch(pattern, relative, FNM_PATHNAME | fnmLeadingDirectory) == 0 { return true }
            } else if names.contains(where: { fnmatch(pattern, String($0), 0) == 0 }) {
                return true
            }
        }
        return false
    }
}

/// GNU's FNM_LEADING_DIR (the Glibc module leaves it out): a match may be
/// followed by `/` and anything.
private let fnmLeadingDirectory: Int32 = 1 << 3
