import LprojExchange
import LprojPaths

/// What one run of the tool writes and removes, decided from the build's
/// plan and the catalog as it is now (no I/O here).
///
/// SwiftPM plans a plugin's outputs only when the package changes, so the
/// languages it declared may be older than the catalog: a language added
/// since is written as well (the next build, planned again, declares it),
/// and one removed since is written as the source language's tables for
/// this one build (what its users see once it is gone). Files of a language
/// or a table no longer compiled are stale: removed from the tool's
/// directory and from the resource bundles they were copied into, which
/// SwiftPM never prunes.
struct OutputPlan {
    /// Relative path (`de.lproj/Localizable.strings`) → bytes.
    let writes: [(path: String, bytes: [UInt8])]
    let added: [String]
    let removed: [String]
    /// Relative paths of files no longer compiled.
    let stale: [String]

    /// - Parameters:
    ///   - planned: the languages the build declared outputs for.
    ///   - tables: every table compiled into the same directory (the target's catalogs); nil: only this one is known.
    ///   - existing: relative paths of the `.strings` and `.stringsdict` files the directory holds.
    init(compilation: CatalogCompilation, planned: [String], tables: [String]?, existing: [String]) {
        let current = Set(compilation.languages.keys).union([compilation.sourceLanguage])
        added = current.filter { !planned.contains($0) }.sorted()
        removed = planned.filter { !current.contains($0) }
        let source = compilation.languages[compilation.sourceLanguage]
        var writes: [(String, [UInt8])] = []
        for language in planned + added {
            let files = compilation.languages[language] ?? source
            let place = TablePlace.files(of: compilation.table, localization: language, in: "")
            writes.append((String(place.strings.dropFirst()), files?.strings ?? Self.emptyStrings))
            writes.append((String(place.stringsdict.dropFirst()), files?.stringsDict ?? Self.emptyRules))
        }
        self.writes = writes
        let kept = Set(planned + added)
        stale = existing.filter { path in
            guard let (language, table) = Self.parts(of: path) else { return false }
            return table == compilation.table ? !kept.contains(language) : tables?.contains(table) == false
        }.sorted()
    }

    /// `de.lproj/Localizable.strings` → (`de`, `Localizable`).
    static func parts(of path: String) -> (language: String, table: String)? {
        let components = path.split(separator: "/")
        guard components.count == 2, components[0].hasSuffix(".lproj") else { return nil }
        let file = components[1]
        for suffix in [".stringsdict", ".strings"] where file.hasSuffix(suffix) {
            return (String(components[0].dropLast(".lproj".count)), String(file.dropLast(suffix.count)))
        }
        return nil
    }

    static let emptyStrings = Array("/* Nothing of this table in this language. */\n".utf8)
    static let emptyRules = Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict/>
        </plist>

        """.utf8)
}
