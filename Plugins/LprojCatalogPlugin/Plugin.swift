import Foundation
import PackagePlugin

/// Compiles a target's String Catalogs (`.xcstrings`) into `.lproj` tables in
/// its resource bundle, as Xcode's build does, so that
/// `Bundle.module.localizedString(forKey:value:table:)` finds translations
/// with Foundation alone on Linux (where SwiftPM copies a catalog as it is).
///
/// SwiftPM asks for the outputs only when it plans the build — when the
/// package changes, not a catalog's contents —, so the tool follows a
/// catalog whose languages changed since: it writes them, and has the next
/// build planned again (`lproj-catalog-compile --replan`).
@main
struct LprojCatalogPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "lproj-catalog-compile")
        let output = context.pluginWorkDirectoryURL.appending(path: "Localizations")
        let catalogs = target.sourceFiles.filter { $0.url.pathExtension == "xcstrings" }
        let tables = catalogs.map { $0.url.deletingPathExtension().lastPathComponent }
        // Where SwiftPM copies the target's resources on Linux: outputs no longer made are removed from there too.
        let bundle = "\(context.package.displayName)_\(target.name).resources"
        return try catalogs.map { file in
            let table = file.url.deletingPathExtension().lastPathComponent
            // A catalog that cannot be read still gets a command (with outputs for "en"): the tool fails the build
            // with its file, line and column, where a command with no outputs would never run.
            let found = try Self.languages(of: file.url)
            let languages = found.isEmpty ? ["en"] : found
            // The outputs are declared beforehand: every language gets both tables (empty where it has nothing).
            let outputs = languages.flatMap { language in
                [".strings", ".stringsdict"].map { output.appending(path: "\(language).lproj/\(table)\($0)") }
            }
            return .buildCommand(displayName: "Compiling \(file.url.lastPathComponent) into .lproj tables",
                                 executable: tool.url,
                                 arguments: [file.url.path, "--output", output.path, "--languages", languages.joined(separator: ","),
                                             "--tables", tables.joined(separator: ","), "--bundle", bundle,
                                             // Languages added or removed after this plan: the tool has SwiftPM plan again.
                                             "--replan", context.package.directoryURL.appending(path: "Package.swift").path],
                                 inputFiles: [file.url], outputFiles: outputs)
        }
    }

    /// The catalog's source language and every language it has a localization in.
    private static func languages(of url: URL) throws -> [String] {
        // A catalog that is not JSON is the tool's to report, with its line and column.
        guard let root = (try? JSONSerialization.jsonObject(with: Data(contentsOf: url))) as? [String: Any] else { return [] }
        var languages = Set<String>()
        if let source = root["sourceLanguage"] as? String, !source.isEmpty { languages.insert(source) }
        for case let item as [String: Any] in (root["strings"] as? [String: Any] ?? [:]).values {
            languages.formUnion((item["localizations"] as? [String: Any] ?? [:]).keys)
        }
        return languages.sorted()
    }
}
