import Foundation
import LprojFormats
import LprojLanguages
import LprojTables

/// A bundle's development localization — the last resort of every lookup —
/// decided as CFBundle decides it, in one place for `lprojctl get`, the
/// daemon's `lookup`, `LiveBundle`, `check`, coverage, export and the studio:
///
/// 1. the `CFBundleDevelopmentRegion` of the bundle's `Info.plist` (beside
///    the bundle, or one level up: a macOS bundle's `Contents/`), as the
///    localization Apple's matching chooses for it among those the bundle has;
/// 2. else English, as CFBundle falls back to it: `en`, a legacy `English`,
///    or `en-US`, the first the bundle has;
/// 3. else none: a miss is the key itself.
public enum DevelopmentLocalization {
    /// The localization of `bundle` its lookups end with.
    public static func of(_ bundle: LocalizedBundle) -> String? {
        choose(region: region(ofBundleAt: bundle.path), among: bundle.localizations)
    }

    /// The region the `Info.plist` of the bundle at `path` names, nil when there is none.
    public static func region(ofBundleAt path: String) -> String? {
        guard let region = infoPlist(ofBundleAt: path)?["CFBundleDevelopmentRegion"] as? String, !region.isEmpty else { return nil }
        return region
    }

    /// The localization among `localizations` that `region` (an Info.plist's
    /// value) means, else English's, else nil.
    public static func choose(region: String?, among localizations: [String]) -> String? {
        if let region {
            if localizations.contains(region) { return region }
            if let tag = LanguageTag(region), let same = localizations.first(where: { LanguageTag($0)?.identifier == tag.identifier }) {
                return same
            }
            if let chosen = LanguageMatcher.match(preferences: [region], available: localizations).first { return chosen }
        }
        return ["en", "English", "en-US"].first(where: localizations.contains)
    }

    /// The bundle's `Info.plist` (beside it, else one level up), read as Foundation reads it.
    public static func infoPlist(ofBundleAt bundlePath: String) -> [String: Any]? {
        for path in [bundlePath + "/Info.plist", (bundlePath as NSString).deletingLastPathComponent + "/Info.plist"] {
            guard let data = FileManager.default.contents(atPath: path),
                  let plist = PropertyListTable.decode(data, path: path, limits: TableLimits()).0 as? [String: Any] else { continue }
            return plist
        }
        return nil
    }
}
