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
    Usage: lproj-catalog-compile CATALOG --output DIR --languages TAG,... [--tables NAME,...]
                                 [--replan MANIFEST] [--bundle NAME]

    Compiles the String Catalog CATALOG as `lprojctl catalog compile` does, and
    writes DIR/TAG.lproj/TABLE.strings and TABLE.stringsdict for the languages
    listed — a file with nothing to hold is an empty table — so a build system
    knows the outputs beforehand. A file whose bytes would not change is left
    alone. A catalog with problems is named with file, line and column; exit 1,
    nothing written.

    The list is what the build planned. When the catalog's languages are no
    longer those (one was added or removed since), the catalog's own are
    written too, a warning says so, and --replan renews MANIFEST's
    modification time (its bytes untouched): SwiftPM plans a plugin's outputs
    again only when the package changes, so the next build has the catalog's
    languages. A language removed is written as the source language's tables
    until then.

    Files of a language or a table (--tables: every table compiled into DIR)
    no longer compiled are removed from DIR, and from each resource bundle
    NAME (--bundle) of the build's configurations, where SwiftPM copied them
    and never removes them.
    """

let arguments: Arguments
do {
    arguments = try Arguments(Array(CommandLine.arguments.dropFirst()), flags: ["help"], options: ["output", "languages", "replan", "tables", "bundle"])
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
let planned = list.split(separator: ",").map(String.init)
// Without --tables, other tables in DIR are not this run's to judge.
let tables = arguments.value("tables").map { $0.split(separator: ",").map(String.init) }
let existing = ((try? FileManager.default.subpathsOfDirectory(atPath: output)) ?? []).filter { OutputPlan.parts(of: $0) != nil }
let plan = OutputPlan(compilation: compilation, planned: planned, tables: tables, existing: existing)
if !plan.added.isEmpty || !plan.removed.isEmpty {
    var change: [String] = []
    if !plan.added.isEmpty { change.append("added \(plan.added.joined(separator: ", "))") }
    if !plan.removed.isEmpty { change.append("removed \(plan.removed.joined(separator: ", "))") }
    var message = "\(path): warning: the catalog's languages changed since this build was planned (\(change.joined(separator: "; ")))"
    if let manifest = arguments.value("replan") {
        // The manifest's time, not its bytes: what makes SwiftPM plan again.
        if utimes(manifest, nil) == 0 {
            message += "; the next build has them (\(manifest) marked changed for SwiftPM to plan again)"
        } else {
            message += "; touch \(manifest) for the next build to have them (\(String(cString: strerror(errno))))"
        }
    }
    Console.error(message)
}
for (relative, contents) in plan.writes {
    let file = output + "/" + relative
    if let existing = FileManager.default.contents(atPath: file), Array(existing) == contents { continue }
    do {
        try FileManager.default.createDirectory(atPath: String(file[..<file.lastIndex(of: "/")!]), withIntermediateDirectories: true)
        try Data(contents).write(to: URL(fileURLWithPath: file), options: .atomic)
    } catch {
        Console.fail(program, "cannot write \(file): \(error)", status: 2)
    }
}
// Stale files go from here and from every resource bundle of the build they were copied into.
let bundles = arguments.value("bundle").map { ResourceBundles.find(named: $0, output: output) } ?? []
for relative in plan.stale {
    for directory in [output] + bundles {
        let file = directory + "/" + relative
        guard unlink(file) == 0 || errno == ENOENT else {
            Console.error("\(program): warning: cannot remove \(file): \(String(cString: strerror(errno)))")
            continue
        }
        // An emptied localization directory goes too (rmdir leaves one with anything else in it).
        rmdir(String(file[..<file.lastIndex(of: "/")!]))
    }
}
// So are copies of catalogs the target no longer has (a renamed table), which LiveBundle would still read.
for bundle in bundles where tables != nil {
    for name in (try? FileManager.default.contentsOfDirectory(atPath: bundle)) ?? []
    where name.hasSuffix(".xcstrings") && tables?.contains(String(name.dropLast(".xcstrings".count))) == false {
        unlink(bundle + "/" + name)
    }
}
