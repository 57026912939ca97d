import Foundation
import LprojCommandLine
import LprojExchange
import LprojFormats
import LprojTables

/// `lproj-bench catalog`: compiling a String Catalog into every language's
/// `.strings` and `.stringsdict` bytes (`CatalogCompilation`: parse, checks,
/// tables written out) beside parsing it alone (`StringCatalogFile`), and
/// Foundation's JSONSerialization reading the same bytes as the floor, in
/// alternating rounds. `--keys N,...` measures how parsing grows instead:
/// generated catalogs and `.stringsdict` files of N keys, per key, beside
/// JSONSerialization and PropertyListSerialization reading the same bytes.
enum CatalogBenchmark {
    static func run(_ argv: [String]) {
        let command = "\(program) catalog"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json"], options: ["rounds", "keys"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        guard let rounds = Int(arguments.value("rounds") ?? "15"), rounds > 0 else { Console.usage(command, UsageError("--rounds takes a positive number")) }
        if let list = arguments.value("keys") {
            let counts = list.split(separator: ",").compactMap { Int($0) }
            guard !counts.isEmpty, counts.allSatisfy({ $0 > 0 }) else { Console.usage(command, UsageError("--keys takes numbers of keys, such as 10000,20000,40000")) }
            return scaling(counts, rounds: min(rounds, 3), json: arguments.has("json"))
        }
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

    /// Parsing time per key at each size: linear parsing keeps it flat.
    private static func scaling(_ counts: [Int], rounds: Int, json: Bool) {
        struct Row: Encodable {
            var keys: Int; var catalogBytes: Int; var stringsDictBytes: Int
            var catalogMicrosPerKey: Double; var jsonSerializationMicrosPerKey: Double
            var stringsDictMicrosPerKey: Double; var propertyListSerializationMicrosPerKey: Double
        }
        var rows: [Row] = []
        for count in counts {
            let catalog = generatedCatalog(keys: count), stringsDict = generatedStringsDict(keys: count)
            let catalogData = Data(catalog), stringsDictData = Data(stringsDict)
            var parse = Double.infinity, peer = Double.infinity, dict = Double.infinity, plist = Double.infinity
            for _ in 0..<rounds {
                peer = min(peer, Measure.secondsPerCall(minimum: 0.1) { (try? JSONSerialization.jsonObject(with: catalogData)) as Any })
                parse = min(parse, Measure.secondsPerCall(minimum: 0.1) { StringCatalogFile(bytes: catalog, path: "generated.xcstrings") })
                plist = min(plist, Measure.secondsPerCall(minimum: 0.1) {
                    (try? PropertyListSerialization.propertyList(from: stringsDictData, format: nil)) as Any
                })
                dict = min(dict, Measure.secondsPerCall(minimum: 0.1) { StringsDictFile(bytes: stringsDict, path: "generated.stringsdict") })
            }
            let perKey = 1e6 / Double(count)
            rows.append(Row(keys: count, catalogBytes: catalog.count, stringsDictBytes: stringsDict.count,
                            catalogMicrosPerKey: parse * perKey, jsonSerializationMicrosPerKey: peer * perKey,
                            stringsDictMicrosPerKey: dict * perKey, propertyListSerializationMicrosPerKey: plist * perKey))
        }
        if json {
            Console.out((try? CanonicalJSON.text(encoding: rows)) ?? "[]")
            return
        }
        var lines = ["parsing by size (µs per key, best of \(rounds) rounds, CPU time; linear parsing keeps a column flat)",
                     "        keys   catalog  JSONSerialization   .stringsdict  PropertyListSerialization"]
        for row in rows {
            lines.append("  " + [String(row.keys).leftPadded(10), Measure.format(row.catalogMicrosPerKey, 2).leftPadded(8),
                                 Measure.format(row.jsonSerializationMicrosPerKey, 2).leftPadded(18),
                                 Measure.format(row.stringsDictMicrosPerKey, 2).leftPadded(14),
                                 Measure.format(row.propertyListSerializationMicrosPerKey, 2).leftPadded(26)].joined(separator: " "))
        }
        if let first = rows.first, let last = rows.last, rows.count > 1 {
            lines.append("  per key at \(last.keys) beside \(first.keys): catalog \(Measure.format(last.catalogMicrosPerKey / first.catalogMicrosPerKey, 2))×, "
                         + ".stringsdict \(Measure.format(last.stringsDictMicrosPerKey / first.stringsDictMicrosPerKey, 2))× (goal ≤ 1.5×)")
        }
        Console.out(lines.joined(separator: "\n"))
    }

    /// A catalog of `keys` keys in `languages` (default three), one in ten a plural.
    static func generatedCatalog(keys: Int, languages: [String] = ["de", "en", "fr"]) -> [UInt8] {
        var text = "{\n  \"sourceLanguage\" : \"en\",\n  \"strings\" : {\n"
        for index in 0..<keys {
            let key = "Key number \(index) of the generated catalog"
            var localizations: [String] = []
            for language in languages {
                if index % 10 == 0 {
                    localizations.append("""
                            "\(language)" : { "variations" : { "plural" : {
                              "one" : { "stringUnit" : { "state" : "translated", "value" : "%lld file \(index) \(language)" } },
                              "other" : { "stringUnit" : { "state" : "translated", "value" : "%lld files \(index) \(language)" } } } } }
                    """)
                } else {
                    localizations.append("        \"\(language)\" : { \"stringUnit\" : { \"state\" : \"translated\", \"value\" : \"Text \(index) in \(language)\" } }")
                }
            }
            text += "    \"\(key)\" : {\n      \"localizations\" : {\n" + localizations.joined(separator: ",\n") + "\n      }\n    }"
            text += index == keys - 1 ? "\n" : ",\n"
        }
        text += "  },\n  \"version\" : \"1.0\"\n}\n"
        return Array(text.utf8)
    }

    /// A `.stringsdict` of `keys` entries, each one plural variable.
    private static func generatedStringsDict(keys: Int) -> [UInt8] {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>

            """
        for index in 0..<keys {
            text += """
                <key>%d items \(index)</key><dict>
                <key>NSStringLocalizedFormatKey</key><string>%#@items@</string>
                <key>items</key><dict>
                <key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>
                <key>NSStringFormatValueTypeKey</key><string>d</string>
                <key>one</key><string>%d item \(index)</string>
                <key>other</key><string>%d items \(index)</string>
                </dict></dict>

                """
        }
        return Array((text + "</dict>\n</plist>\n").utf8)
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
