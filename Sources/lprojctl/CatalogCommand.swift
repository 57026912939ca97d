import Foundation
import LprojBundles
import LprojCommandLine
import LprojExchange
import LprojFormats
import LprojPaths
import LprojTables

/// `lprojctl catalog`: String Catalogs on Linux.
enum CatalogCommand {
    static let help = """
        Usage: lprojctl catalog compile CATALOG... --output DIR [--states STATE,...]
               lprojctl catalog sync SOURCE... --catalog FILE [--macro NAME]... [--localizable NAME:LABEL]...
                             [--dry-run | --check | --explain | --json]
               lprojctl catalog export (--catalog FILE | --bundle DIR)... --output DIR [--language TAG]...
                                       [--table NAME]...
               lprojctl catalog import XCLOC_OR_XLIFF... [--root DIR] [--dry-run] [--force]
               lprojctl catalog migrate BUNDLE --table NAME [--output FILE]

        compile   writes, for each language of each String Catalog (.xcstrings),
                  DIR/LANGUAGE.lproj/TABLE.strings with its plain strings and
                  TABLE.stringsdict with its plural, device and substitution
                  variations — what Xcode's build makes of a catalog — so that
                  Foundation's Bundle and older tools read the values LiveBundle
                  reads from the catalog itself. A key the source language has no
                  text for is its own text there. Every unit is compiled whatever its
                  state; --states (new, translated, needs_review, stale) keeps only
                  those. A catalog with errors or an unknown sourceLanguage is
                  named with file, line and column, and nothing is written; a
                  plural form its language's CLDR rules never select is compiled,
                  with a warning at its place (as Xcode builds it).

        sync      does what Xcode's extraction does on every build: the keys the
                  sources use — literals Swift gives a localizable type: SwiftUI's,
                  Foundation's and App Intents' LocalizedStringKey and
                  LocalizedStringResource parameters, the sources' own functions,
                  initializers and declarations of those types (read as lprojctl
                  scan reads them) — that the catalog lacks are added, with the source's comment, and with its default
                  text (defaultValue:, value:) as the source language's "new" unit;
                  keys no source uses are marked "stale", never deleted; a stale key
                  used again is extracted again; translations are kept; keys added by
                  hand ("manual") are left alone, "migrated" ones are not marked stale.
                  Only keys of the catalog's own table (its file name) count. A
                  missing catalog is made. --dry-run prints the changes and writes
                  nothing; --check does the same and exits 1 when there are any (CI);
                  --explain says for each key where it is used and why, or why it is
                  stale (--json: the same as JSON).

        export    writes one DIR/LANGUAGE.xcloc per language, as Xcode's "Export
                  Localizations" does: contents.json and Localized Contents/
                  LANGUAGE.xliff (XLIFF 1.2, a <file> per table named by its path from
                  here, notes from comments). A catalog's variations are units
                  KEY|==|plural.one, KEY|==|substitutions.VAR.plural.one,
                  KEY|==|device.mac; a .stringsdict's are /KEY:dict/VAR:dict/one:dict/
                  :string; plural forms are the target language's CLDR categories.
                  Stale catalog keys and keys not to translate are left out. Without
                  --language, every language that has translations but the source
                  language; --table narrows a bundle to those tables. Run it where
                  every table is below (the project's directory): import finds them
                  by these paths.

        import    writes the targets of XLIFF files (an .xcloc's, or given
                  directly) into the tables their <file original> names (found from
                  here, or from --root, and never outside it): catalogs and
                  .strings/.stringsdict alike,
                  through the same writer as lprojctl set (format kept, locked,
                  atomic, checked unless --force), each file written once, and reports
                  units added, changed and unchanged per table. Everything is checked
                  first: a document that is not well-formed XLIFF 1.2, a <file> that
                  names no table or has another source-language, a unit id Xcode does
                  not write or for a key the table lacks, a plural form the
                  language never selects, or a translation that reads its arguments
                  otherwise than its source (%d for %@, a variable the source does not
                  name) is one message with file and line, and nothing is written.
                  Importing an unedited export changes no byte. Device variations
                  import into catalogs, not into a .stringsdict.

        migrate   makes one String Catalog of a table's .strings and .stringsdict
                  files in every localization of BUNDLE, as Xcode's "Migrate to String
                  Catalog" does: values, plural rules and substitutions intact, the
                  development language's comments, every key "migrated"; Base.lproj's
                  keys go into the development language where it lacks them (named
                  on standard error). Writes BUNDLE/NAME.xcstrings (or --output
                  FILE), never over an existing file; the old files stay (lprojd
                  serves the catalog over them).

        Options:
          --output DIR|FILE       compile, export: where to write (required);
                                  migrate: the catalog to write
          --states STATE,...      compile only units in these states
          --catalog FILE          sync: the catalog (required); export: a catalog to export
          --bundle DIR            export: a bundle's tables
          --macro NAME            sync: a macro that takes a key first; repeat for more
          --localizable NAME:LABEL
                                  sync: a call position that takes a localizable literal
                                  (MyView:_, .badge:_, @Option:title); repeat for more
          --explain               sync: each key, where it is used and why, or why it is
                                  stale; writes nothing
          --json                  sync: --explain as JSON
          --source-language TAG   sync: the language of a catalog made anew (default en)
          --language TAG          export: this language (repeat for more)
          --table NAME            export: only this table of a bundle; migrate: the table
          --root DIR              import: where <file original> paths start (default .)
          --dry-run               sync, import: say what would change, write nothing
          --check                 sync: --dry-run, exit 1 when the catalog is behind
          --force                 import: write what the checks refuse

        Exit status: 0 done, 1 a catalog, source or XLIFF has a problem (nothing
        written; sync --check: changes are due), 2 usage error or a file that
        cannot be read or written.
        """

    static func run(_ argv: [String]) {
        guard let verb = argv.first, !verb.hasPrefix("-") else {
            if argv.first == "--help" || argv.first == "-h" { Console.out(help); return }
            Console.usage("\(program) catalog", UsageError("missing what to do (compile, sync, export, import, migrate)"))
        }
        switch verb {
        case "compile": compile(Array(argv.dropFirst()))
        case "migrate": migrate(Array(argv.dropFirst()))
        case "sync": CatalogSyncCommand.run(Array(argv.dropFirst()))
        case "export": CatalogExchangeCommand.export(Array(argv.dropFirst()))
        case "import": CatalogExchangeCommand.import(Array(argv.dropFirst()))
        default: Console.usage("\(program) catalog", UsageError("unknown catalog command '\(verb)'"))
        }
    }

    private static func compile(_ argv: [String]) {
        let command = "\(program) catalog compile"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help"], options: ["output", "states"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        guard !arguments.operands.isEmpty else { Console.usage(command, UsageError("no CATALOG given")) }
        guard let output = arguments.value("output") else { Console.usage(command, UsageError("--output is required")) }
        var states: Set<TranslationState>?
        if let list = arguments.value("states") {
            var chosen = Set<TranslationState>()
            for name in list.split(separator: ",") {
                guard let state = TranslationState(rawValue: String(name)) else {
                    Console.usage(command, UsageError("--states: '\(name)' is not a state (new, translated, needs_review, stale)"))
                }
                chosen.insert(state)
            }
            states = chosen
        }
        // Every catalog read and compiled before anything is written.
        var compilations: [CatalogCompilation] = []
        var problems: [String] = []
        for operand in arguments.operands {
            let path = PathText.absolute(operand)
            guard path.hasSuffix(".xcstrings") else { Console.usage(command, UsageError("\(operand) is not a .xcstrings file")) }
            let bytes = Self.contents(of: path, limit: 64 << 20)
            do {
                compilations.append(try CatalogCompilation(bytes: bytes, path: operand, states: states))
            } catch {
                problems += error.messages
            }
        }
        guard problems.isEmpty else {
            for problem in problems { Console.error(problem) }
            Console.fail(program, "nothing was written", status: 1)
        }
        for warning in compilations.flatMap(\.warnings) { Console.error(warning) }
        var written = 0
        for compilation in compilations {
            for (language, files) in compilation.languages.sorted(by: { $0.key < $1.key }) {
                let paths = TablePlace.files(of: compilation.table, localization: language, in: PathText.absolute(output))
                let directory = TablePlace.directory(of: language, in: PathText.absolute(output))
                do {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                    if let strings = files.strings {
                        try Data(strings).write(to: URL(fileURLWithPath: paths.strings))
                        written += 1
                    }
                    if let rules = files.stringsDict {
                        try Data(rules).write(to: URL(fileURLWithPath: paths.stringsdict))
                        written += 1
                    }
                } catch {
                    Console.fail(program, "cannot write \(directory): \(error)", status: 2)
                }
            }
        }
        Console.error("\(written) file\(written == 1 ? "" : "s") written under \(output)")
    }

    private static func migrate(_ argv: [String]) {
        let command = "\(program) catalog migrate"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help"], options: ["table", "output"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        guard arguments.operands.count == 1 else { Console.usage(command, UsageError("migrate takes one BUNDLE")) }
        guard let table = arguments.value("table"), !table.isEmpty, !table.contains("/") else {
            Console.usage(command, UsageError("--table NAME is required"))
        }
        let path = PathText.tidy(PathText.absolute(arguments.operands[0]))
        let output = arguments.value("output").map(PathText.absolute) ?? TablePlace.catalog(table, in: path)
        guard !FileManager.default.fileExists(atPath: output) else { Console.fail(program, "\(output) exists already; nothing was written", status: 1) }
        let bundle: LocalizedBundle
        do {
            bundle = try LocalizedBundle.load(path: path)
        } catch {
            Console.fail(program, "cannot read bundle \(error)", status: 2)
        }
        let broken = bundle.diagnostics.filter { $0.severity == .error && $0.file.hasSuffix("/" + table + ".strings") || $0.severity == .error && $0.file.hasSuffix("/" + table + ".stringsdict") }
        guard broken.isEmpty else {
            for diagnostic in broken { Console.error(diagnostic.description) }
            Console.fail(program, "fix the table's files first; nothing was written", status: 1)
        }
        var found: [String: Table] = [:]
        for localization in bundle.localizations {
            if let held = bundle.table(table, localization: localization) { found[localization] = held }
        }
        guard !found.isEmpty else { Console.fail(program, "\(path) has no \(table) table in any localization", status: 1) }
        let development = DevelopmentLocalization.of(bundle) ?? "en"
        // A catalog has no Base: its keys go into the development language where it lacks them, said, never lost.
        let (tables, carried) = CatalogMigration.carryingBase(found, development: development)
        if !carried.isEmpty {
            let shown = carried.prefix(5).map { "\"\($0)\"" }.joined(separator: ", ") + (carried.count > 5 ? ", …" : "")
            Console.error("\(carried.count) key\(carried.count == 1 ? "" : "s") of Base.lproj/\(table) carried into \(development), which lacked "
                          + "\(carried.count == 1 ? "it" : "them") (a catalog has no Base): \(shown)")
        }
        let comments = (try? TableFile.readBytes(path: TablePlace.files(of: table, localization: development, in: path).strings, limit: 64 << 20))
            .flatMap { $0 }.map { TableComments.of($0, format: .strings) } ?? [:]
        let text = CatalogMigration.catalog(tables: tables, sourceLanguage: development, comments: comments)
        do {
            try Data(text).write(to: URL(fileURLWithPath: output), options: .withoutOverwriting)
        } catch {
            Console.fail(program, "cannot write \(output): \(error)", status: 2)
        }
        Console.error("\(output): \(tables.values.reduce(0) { $0 + $1.count }) units in \(tables.count) languages")
    }

    /// The bytes of an input file (at most `limit`); exits with status 2 when it cannot be read.
    static func contents(of path: String, limit: Int) -> [UInt8] {
        do {
            guard let bytes = try TableFile.readBytes(path: path, limit: limit) else {
                Console.fail(program, "cannot read \(path): it is larger than \(limit >> 20) MiB", status: 2)
            }
            return bytes
        } catch {
            Console.fail(program, "cannot read \(error)", status: 2)
        }
    }
}
