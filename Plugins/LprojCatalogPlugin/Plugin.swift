import Foundation
import PackagePlugin

/// Compiles a target's String Catalogs (`.xcstrings`) into `.lproj` tables in
/// its resource bundle, as Xcode's build does, so that
/// `Bundle.module.localizedString(forKey:value:table:)` finds translations
/// with Foundation alone on Linux (where SwiftPM copies a catalog as it is).
@main
struct LprojCatalogPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "lproj-catalog-compile")
        let output = context.pluginWorkDirectoryURL.appending(path: "Localizations")
        return try target.sourceFiles.filter { $0.url.pathExtension == "xcstrings" }.map { file in
            let table = file.url.deletingPathExtension().lastPathComponent
            let languages = try Self.languages(of: file.url)
            // The outputs are declared beforehand: every language gets both tables (empty where it has nothing).
            let outputs = languages.flatMap { language in
                [".strings", ".stringsdict"].map { output.appending(path: "\(language).lproj/\(table)\($0)") }
            }
            return .buildCommand(displayName: "Compiling \(file.url.lastPathComponent) into .lproj tables",
                                 executable: tool.url,
                                 arguments: [file.url.path, "--output", output.path, "--languages", languages.joined(separator: ",")],
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
