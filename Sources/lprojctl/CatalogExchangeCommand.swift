import Foundation
import LprojCommandLine
import LprojEditing
import LprojExchange
import LprojLanguages
import LprojPaths
import LprojTables

/// `lprojctl catalog export` and `import`: translations to and from
/// translators as Xcode exchanges them (`.xcloc` with XLIFF 1.2).
enum CatalogExchangeCommand {
    static let tool = XLIFFDocument.Tool(id: "org.lprojd.lprojctl", name: "lprojctl", version: Console.version)

    static func export(_ argv: [String]) {
        let command = "\(program) catalog export"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help"], options: ["catalog", "bundle", "output", "language", "table"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(CatalogCommand.help); return }
        guard arguments.operands.isEmpty else { Console.usage(command, UsageError("unexpected '\(arguments.operands[0])': name tables with --catalog or --bundle")) }
        let catalogs = arguments.values("catalog"), bundles = arguments.values("bundle")
        guard !catalogs.isEmpty || !bundles.isEmpty else { Console.usage(command, UsageError("--catalog FILE or --bundle DIR is required")) }
        guard let output = arguments.value("output") else { Console.usage(command, UsageError("--output DIR is required")) }
        for language in arguments.values("language") where LanguageTag(language) == nil {
            Console.usage(command, UsageError("--language: '\(language)' is not a language tag"))
        }
        let base = PathText.tidy(FileManager.default.currentDirectoryPath)
        var sources: [LocalizationExport.Source] = []
        var problems: [String] = []
        for catalog in catalogs {
            guard catalog.hasSuffix(".xcstrings") else { Console.usage(command, UsageError("--catalog \(catalog): not a .xcstrings file")) }
            do {
                sources.append(try LocalizationExport.catalog(at: PathText.tidy(PathText.absolute(catalog)), base: base))
            } catch {
                problems += error.problems
            }
        }
        let tables = arguments.values("table")
        for bundle in bundles {
            do {
                sources += try LocalizationExport.bundle(at: PathText.tidy(PathText.absolute(bundle)), base: base, tables: tables.isEmpty ? nil : tables)
            } catch {
                problems += error.problems
            }
        }
        // `import` finds each table by its path from where it runs, and never outside it.
        for source in sources where source.export.original.hasPrefix("../") {
            problems.append("\(source.export.original): error: outside the current directory; export from a directory that holds every table "
                            + "(the project's), which is where the import runs")
        }
        guard problems.isEmpty else {
            for problem in problems { Console.error(problem) }
            Console.fail(program, "nothing was written", status: 1)
        }
        // Every translation present but the source language's, unless languages are named.
        var languages = arguments.values("language")
        if languages.isEmpty {
            languages = Set(sources.flatMap { source in source.translations.keys.filter { $0 != "Base" && !Self.same($0, source.sourceLanguage) } }).sorted()
        }
        guard !languages.isEmpty else { Console.fail(program, "there is no translation to export: name a language to start with --language", status: 1) }
        var documents: [(language: String, document: XLIFFDocument)] = []
        for language in languages {
            let document = XLIFFDocument(files: sources.map { $0.file(language: language) }.filter { !$0.units.isEmpty })
            for file in document.files {
                for unit in file.units where ![unit.id, unit.source, unit.target ?? "", unit.note ?? ""].allSatisfy(XLIFFDocument.canHold) {
                    problems.append("\(file.original): error: \"\(unit.id)\" holds a control character XML cannot carry; it cannot be exported")
                }
            }
            documents.append((language, document))
        }
        guard problems.isEmpty else {
            for problem in Set(problems).sorted() { Console.error(problem) }
            Console.fail(program, "nothing was written", status: 1)
        }
        let development = sources.first?.sourceLanguage ?? "en"
        for (language, document) in documents {
            let package = PathText.absolute(output) + "/" + language + ".xcloc"
            do {
                try FileManager.default.createDirectory(atPath: package + "/Localized Contents", withIntermediateDirectories: true)
                let contents: [String: Any] = [
                    "developmentRegion": development, "project": (bundles + catalogs).map { ($0 as NSString).lastPathComponent }.joined(separator: ", "),
                    "targetLocale": language, "version": "1.0",
                    "toolInfo": ["toolID": tool.id, "toolName": tool.name, "toolVersion": tool.version, "toolBuildNumber": tool.version],
                ]
                let json = try JSONSerialization.data(withJSONObject: contents, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
                try (json + Data("\n".utf8)).write(to: URL(fileURLWithPath: package + "/contents.json"), options: .atomic)
                try Data(document.rendered(tool: tool)).write(to: URL(fileURLWithPath: package + "/Localized Contents/" + language + ".xliff"), options: .atomic)
            } catch {
                Console.fail(program, "cannot write \(package): \(error)", status: 2)
            }
            let units = document.files.reduce(0) { $0 + $1.units.count }
            let translated = document.files.reduce(0) { $0 + $1.units.filter { $0.target != nil }.count }
            Console.error("\(package): \(units) units in \(document.files.count) file\(document.files.count == 1 ? "" : "s"), \(translated) translated")
        }
    }

    static func `import`(_ argv: [String]) {
        let command = "\(program) catalog import"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "dry-run", "force"], options: ["root"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(CatalogCommand.help); return }
        guard !arguments.operands.isEmpty else { Console.usage(command, UsageError("no XCLOC or XLIFF given")) }
        let root = PathText.tidy(PathText.absolute(arguments.value("root") ?? "."))
        var imports: [LocalizationImport] = []
        var problems: [String] = []
        for operand in arguments.operands {
            for path in xliffFiles(operand) {
                let bytes = CatalogCommand.contents(of: path, limit: 256 << 20)
                do {
                    let planned = LocalizationImport(try XLIFFReader.read(bytes, path: path), path: path, root: root)
                    problems += planned.problems.map(\.description)
                    imports.append(planned)
                } catch {
                    problems.append(error.description)
                }
            }
        }
        guard problems.isEmpty else {
            for problem in problems { Console.error(problem) }
            Console.fail(program, "nothing was written", status: 1)
        }
        var totals = (added: 0, changed: 0, unchanged: 0)
        for plan in imports.flatMap(\.plans) {
            Console.out("\(plan.original) (\(plan.language)): \(plan.added) added, \(plan.changed) changed, \(plan.unchanged) unchanged")
            totals = (totals.added + plan.added, totals.changed + plan.changed, totals.unchanged + plan.unchanged)
        }
        let summary = "\(totals.added) added, \(totals.changed) changed, \(totals.unchanged) unchanged"
        if arguments.has("dry-run") {
            Console.error("\(summary) (nothing written)")
            return
        }
        do {
            for var planned in imports {
                planned.force = arguments.has("force")
                _ = try planned.apply()
            }
        } catch {
            if case .refused(let diagnostics) = error { for diagnostic in diagnostics { Console.error(diagnostic.description) } }
            Console.fail(program, "\(error.isRefusal ? "refused: the checks find problems (--force imports anyway)" : error.description); "
                         + "tables written before this one keep their import", status: error.isRefusal ? 1 : 2)
        }
        Console.error(summary)
    }

    /// The XLIFF files of an operand: an `.xcloc`'s `Localized Contents/*.xliff`, or the file itself.
    private static func xliffFiles(_ operand: String) -> [String] {
        let path = PathText.tidy(PathText.absolute(operand))
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { Console.fail(program, "\(operand): no such file", status: 2) }
        guard isDirectory.boolValue else { return [path] }
        let contents = path + "/Localized Contents"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: contents)) ?? []).filter { $0.hasSuffix(".xliff") }.sorted()
        guard !names.isEmpty else { Console.fail(program, "\(operand): no Localized Contents/*.xliff in it (not an .xcloc)", status: 2) }
        return names.map { contents + "/" + $0 }
    }

    private static func same(_ a: String, _ b: String) -> Bool {
        (LanguageTag(a)?.identifier ?? a) == (LanguageTag(b)?.identifier ?? b)
    }
}

extension TableWriter.Failure {
    /// The input's own problem (exit 1), not the machine's.
    var isRefusal: Bool {
        if case .refused = self { return true }
        return false
    }
}
