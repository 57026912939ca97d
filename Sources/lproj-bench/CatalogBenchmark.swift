import Foundation
import LprojCatalog
import LprojCommandLine
import LprojTables

/// `lproj-bench catalog`: compiling a String Catalog into every language's
/// `.strings` and `.stringsdict` bytes (`CatalogCompilation`: parse, checks,
/// tables written out) beside parsing it alone (`StringCatalogFile`), and
/// Foundation's JSONSerialization reading the same bytes as the floor, in
/// alternating rounds.
enum CatalogBenchmark {
    static func run(_ argv: [String]) {
        let command = "\(program) catalog"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json"], options: ["rounds"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        guard let rounds = Int(arguments.value("rounds") ?? "15"), rounds > 0 else { Console.usage(command, UsageError("--rounds takes a positive number")) }
        let path = arguments.operands.first ?? "../shared/corpus/Whisky-App+Whisky/Whisky/Localizable.xcstrings"
        guard let data = FileManager.default.contents(atPath: path) else { Console.fail(program, "cannot read \(path)", status: 2) }
        let bytes = Array(data)
        let compiled: CatalogCompilation
        do {
            compiled = try CatalogCompilation(bytes: bytes, path: path)
        } catch {
            Console.fail(program, "\(path) does not compile: \(error.messages.joined(separator: "; "))", status: 1)
        }
        var parse = Double.infinity, compile = Double.infinity, json = Double.infinity
        for _ in 0..<rounds {
            json = min(json, Measure.secondsPerCall { (try? JSONSerialization.jsonObject(with: data)) as Any })
            parse = min(parse, Measure.secondsPerCall { StringCatalogFile(bytes: bytes, path: path) })
            compile = min(compile, Measure.secondsPerCall { (try? CatalogCompilation(bytes: bytes, path: path)) as Any })
        }
        let languages = compiled.languages.count
        let files = compiled.languages.values.reduce(0) { $0 + ($1.strings == nil ? 0 : 1) + ($1.stringsDict == nil ? 0 : 1) }
        if arguments.has("json") {
            struct Report: Encodable {
                var path: String; var bytes: Int; var languages: Int; var files: Int
                var jsonSerializationMs: Double; var parseMs: Double; var compileMs: Double; var compileToParse: Double
            }
            Console.out((try? CanonicalJSON.text(encoding: Report(path: path, bytes: bytes.count, languages: languages, files: files,
                                                                  jsonSerializationMs: json * 1e3, parseMs: parse * 1e3, compileMs: compile * 1e3,
                                                                  compileToParse: compile / parse))) ?? "{}")
        } else {
            Console.out("""
                catalog \(path): \(bytes.count) bytes, \(languages) languages, \(files) files (best of \(rounds) rounds, CPU time)
                  JSONSerialization alone   \(Measure.format(json * 1e3, 2)) ms
                  parse (StringCatalogFile) \(Measure.format(parse * 1e3, 2)) ms
                  compile (checks + tables) \(Measure.format(compile * 1e3, 2)) ms   \(Measure.format(compile / parse, 2))× the parse (goal ≤ 3×)
                """)
        }
    }
}
