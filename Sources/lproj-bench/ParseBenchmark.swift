import Foundation
import LprojCommandLine
import LprojFormats
import LprojTables

/// `lproj-bench parse`: LprojFormats vs PropertyListSerialization on the same bytes.
enum ParseBenchmark {
    struct Result: Encodable {
        var name: String
        var files: Int
        var bytes: Int
        var lprojdMegabytesPerSecond: Double
        var foundationMegabytesPerSecond: Double
        var ratio: Double
        /// LprojFormats with every key and value then made a `String`, as a
        /// client's materialized table makes them when every key is looked up once.
        var materializedMegabytesPerSecond: Double
        var materializedRatio: Double
        /// The floor: one pass over the same bytes finding every `"` and `\` (16 bytes at a time).
        var floorMegabytesPerSecond: Double
        var floorRatio: Double
        /// Files whose values are identical between both (of those Foundation accepts).
        var identicalFiles: Int
        var comparedFiles: Int
    }

    static func run(_ argv: [String]) {
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json", "profile-lprojd"], options: ["generate", "rounds"])
        } catch {
            Console.usage("\(program) parse", error)
        }
        if arguments.has("help") { Console.out(help); return }
        let rounds = Int(arguments.value("rounds") ?? "25") ?? 0
        guard rounds > 0 else { Console.usage("\(program) parse", UsageError("--rounds must be a positive whole number")) }

        var sets: [(name: String, files: [Data])] = []
        if let sizes = arguments.value("generate") {
            for text in sizes.split(separator: ",") {
                guard let count = Int(text), count > 0 else {
                    Console.usage("\(program) parse", UsageError("--generate takes key counts like 1000,10000, not '\(text)'"))
                }
                sets.append(("generated \(count) keys", [generatedTable(keys: count)]))
            }
        }
        if !arguments.operands.isEmpty {
            var files: [Data] = []
            for operand in arguments.operands {
                for path in stringsFiles(under: operand) {
                    guard let data = FileManager.default.contents(atPath: path) else {
                        Console.fail(program, "cannot read \(path)", status: 2)
                    }
                    files.append(data)
                }
            }
            guard !files.isEmpty else { Console.fail(program, "no .strings files under \(arguments.operands.joined(separator: " "))", status: 2) }
            sets.insert((arguments.operands.joined(separator: " "), files), at: 0)
        }
        guard !sets.isEmpty else { Console.usage("\(program) parse", UsageError("give PATH... or --generate N,...")) }

        if arguments.has("profile-lprojd") {
            // Only our parser, for a profiler to look at; no figures.
            let start = Measure.now()
            while Measure.now() - start < 5 {
                for set in sets { for data in set.files { blackHole(StringsFile(bytes: data, path: "p.strings").table.count) } }
            }
            return
        }
        var results: [Result] = []
        for set in sets {
            results.append(measure(name: set.name, files: set.files, rounds: rounds))
            if !arguments.has("json") { Console.out(describe(results.last!)) }
        }
        if arguments.has("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            Console.out(String(decoding: try! encoder.encode(["parse": results]), as: UTF8.self))
        }
    }

    static func measure(name: String, files: [Data], rounds: Int) -> Result {
        // Values first: identical on every file Foundation accepts.
        var identical = 0, compared = 0
        for data in files {
            guard let theirs = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: String]
            else { continue }
            compared += 1
            let ours = StringsFile(bytes: data, path: "bench.strings")
            if !ours.diagnostics.containsErrors, ours.table.entries.compactMapValues(\.text) == theirs { identical += 1 }
        }
        let bytes = files.reduce(0) { $0 + $1.count }
        var oursRates: [Double] = [], theirsRates: [Double] = [], materializedRates: [Double] = [], floorRates: [Double] = []
        for _ in 0..<rounds {
            let floor = Measure.secondsPerCall {
                let sum = files.reduce(0) { $0 &+ quotesAndBackslashes(in: $1) }
                blackHole(sum)
                return sum
            }
            floorRates.append(Double(bytes) / floor / 1e6)
            let ours = Measure.secondsPerCall {
                files.map { StringsFile(bytes: $0, path: "bench.strings").table }
            }
            let materialized = Measure.secondsPerCall {
                files.map { StringsFile(bytes: $0, path: "bench.strings").table.reduce(0) { $0 &+ $1.key.utf8.count &+ ($1.entry.text?.utf8.count ?? 0) } }
            }
            materializedRates.append(Double(bytes) / materialized / 1e6)
            let theirs = Measure.secondsPerCall {
                files.map { (try? PropertyListSerialization.propertyList(from: $0, options: [], format: nil)) as? [String: String] }
            }
            oursRates.append(Double(bytes) / ours / 1e6)
            theirsRates.append(Double(bytes) / theirs / 1e6)
        }
        // The best round of each: on a shared machine noise only ever adds time.
        let oursRate = oursRates.max() ?? 0, theirsRate = theirsRates.max() ?? 0, materializedRate = materializedRates.max() ?? 0
        let floorRate = floorRates.max() ?? 0
        return Result(name: name, files: files.count, bytes: bytes, lprojdMegabytesPerSecond: oursRate,
                      foundationMegabytesPerSecond: theirsRate, ratio: oursRate / theirsRate,
                      materializedMegabytesPerSecond: materializedRate, materializedRatio: materializedRate / theirsRate,
                      floorMegabytesPerSecond: floorRate, floorRatio: floorRate / oursRate,
                      identicalFiles: identical, comparedFiles: compared)
    }

    static func describe(_ result: Result) -> String {
        "\(result.name): \(result.files) files, \(Measure.format(Double(result.bytes) / 1e6, 2)) MB | "
            + "LprojFormats \(Measure.format(result.lprojdMegabytesPerSecond)) MB/s | "
            + "PropertyListSerialization \(Measure.format(result.foundationMegabytesPerSecond)) MB/s | "
            + "ratio \(Measure.format(result.ratio))x | identical values \(result.identicalFiles)/\(result.comparedFiles)"
            + " | with every value made a String: \(Measure.format(result.materializedMegabytesPerSecond)) MB/s, "
            + "\(Measure.format(result.materializedRatio))x"
            + " | floor (every \" and \\ found): \(Measure.format(result.floorMegabytesPerSecond)) MB/s, LprojFormats at "
            + "1/\(Measure.format(result.floorRatio, 2)) of it"
    }

    /// The floor: every `"` and `\\` of the bytes found, in one pass sixteen bytes at a time, each one visited (what
    /// any parser of quoted strings must at least do). Returns the sum of their offsets.
    @inline(never)
    static func quotesAndBackslashes(in data: Data) -> Int {
        data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return 0 }
            let ones: UInt64 = 0x0101_0101_0101_0101, lows: UInt64 = 0x7F7F_7F7F_7F7F_7F7F, highs: UInt64 = 0x8080_8080_8080_8080
            let quotes = ones &* UInt64(UInt8(ascii: "\"")), backslashes = ones &* UInt64(UInt8(ascii: "\\"))
            /// The high bit of every zero byte of `word`, exactly.
            func zeroBytes(_ word: UInt64) -> UInt64 { ~((word & lows) &+ lows | word) & highs }
            var sum = 0, position = 0
            while position + 16 <= raw.count {
                for half in 0..<2 {
                    let word = (base + position + half * 8).loadUnaligned(as: UInt64.self)
                    var found = zeroBytes(word ^ quotes) | zeroBytes(word ^ backslashes)
                    while found != 0 {
                        sum &+= position + half * 8 + found.trailingZeroBitCount / 8
                        found &= found &- 1
                    }
                }
                position += 16
            }
            while position < raw.count {
                let byte = raw[position]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { sum &+= position }
                position += 1
            }
            return sum
        }
    }

    /// A `.strings` table of `keys` entries in the style of real apps:
    /// comments, dotted keys, escapes, format specifiers, non-ASCII text.
    static func generatedTable(keys: Int) -> Data {
        let words = ["Open", "Save", "the file", "Settings", "Größe", "こんにちは", "设置", "Ελληνικά", "%@", "%1$d items", "\\\"quoted\\\"", "line\\nbreak"]
        var text = ""
        text.reserveCapacity(keys * 80)
        for index in 0..<keys {
            if index % 10 == 0 { text += "\n/* Section \(index / 10): shown on screen \(index % 7). */\n" }
            text += "\"screen\(index % 97).item_\(index).title\" = \""
            for word in 0..<(3 + index % 5) { text += (word == 0 ? "" : " ") + words[(index + word * 7) % words.count] }
            text += "\";\n"
        }
        return Data(text.utf8)
    }

    static func stringsFiles(under path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            Console.fail(program, "\(path): no such file or directory", status: 2)
        }
        guard isDirectory.boolValue else { return [path] }
        let enumerator = FileManager.default.enumerator(atPath: path)
        var found: [String] = []
        while let relative = enumerator?.nextObject() as? String {
            if relative.hasSuffix(".strings") { found.append(path + "/" + relative) }
        }
        return found.sorted()
    }
}

/// Keeps the optimizer from removing the measured work.
@inline(never)
func blackHole(_ value: Int) {
    if value == Int.min { Console.error("unreachable") }
}
