import Foundation
import LprojCommandLine
import LprojExchange
import LprojFormats
import LprojPaths
import LprojTables

// The build plugin's tool (LprojCatalogPlugin): one String Catalog compiled
// into LANGUAGE.lproj tables, the files the plugin declared and no others.

let program = "lproj-catalog-compile"
let help = """
    Usage: lproj-catalog-compile CATALOG --output DIR --languages TAG,...

    Compiles the String Catalog CATALOG as `lprojctl catalog compile` does, and
    writes DIR/TAG.lproj/TABLE.strings and TABLE.stringsdict for exactly the
    languages listed — a file with nothing to hold is an empty table — so a
    build system knows the outputs beforehand. A file whose bytes would not
    change is left alone. A catalog with problems is named with file, line and
    column; exit 1, nothing written.
    """

let arguments: Arguments
do {
    arguments = try Arguments(Array(CommandLine.arguments.dropFirst()), flags: ["help"], options: ["output", "languages"])
} catch {
    Console.usage(program, error)
}
if arguments.has("help") {
    Console.out(help)
    exit(0)
}
guard arguments.operands.count == 1, let output = arguments.value("output"), let list = arguments.value("languages") else {
    Console.usage(program, UsageError("give one CATALOG, --output DIR and --languages TAG,..."))
}
let path = arguments.operands[0]
let bytes: [UInt8]
do {
    guard let read = try TableFile.readBytes(path: path, limit: 64 << 20) else { Console.fail(program, "\(path): larger than 64 MiB", status: 2) }
    bytes = read
} catch {
    Console.fail(program, "cannot read \(error)", status: 2)
}
let compilation: CatalogCompilation
do {
    compilation = try CatalogCompilation(bytes: bytes, path: path)
} catch {
    for message in error.messages { Console.error(message) }
    Console.fail(program, "nothing was written", status: 1)
}
// Warnings as the compiler's, so that a build shows them at their place.
for warning in compilation.warnings { Console.error(warning) }
let languages = list.split(separator: ",").map(String.init)
if let unlisted = compilation.languages.keys.sorted().first(where: { !languages.contains($0) }) {
    Console.fail(program, "\(path): the catalog has \(unlisted), which --languages does not list", status: 2)
}
let emptyStrings = Array("/* Nothing of this table in this language. */\n".utf8)
let emptyRules = Array("""
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict/>
    </plist>

    """.utf8)
for language in languages {
    let directory = TablePlace.directory(of: language, in: output)
    let files = compilation.languages[language]
    let paths = TablePlace.files(of: compilation.table, localization: language, in: output)
    for (file, contents) in [(paths.strings, files?.strings ?? emptyStrings), (paths.stringsdict, files?.stringsDict ?? emptyRules)] {
        if let existing = FileManager.default.contents(atPath: file), Array(existing) == contents { continue }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(contents).write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            Console.fail(program, "cannot write \(file): \(error)", status: 2)
        }
    }
}
