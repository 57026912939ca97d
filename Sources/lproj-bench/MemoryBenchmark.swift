import Foundation
import LprojCommandLine
import LprojStudio

/// `lproj-bench memory`: the studio's translation memory answering an
/// editor — the suggestions for a source text among 50,000 units — beside
/// the plain way (comparing the text with every unit's), in one run.
enum MemoryBenchmark {
    static let help = """
        Usage: lproj-bench memory [--units N] [--queries N] [--json]

        Fills a TranslationMemory with N units (default 50,000): generated English
        source texts of 2 to 12 words from a 3,000-word vocabulary (common words
        more often), each with a French translation. Then asks it for the
        suggestions of Q source texts (default 1,000): a third the same as a
        unit's, a third with one word changed, a third with one word added —
        reporting each answer's time (p50, p99, the slowest) beside a plain scan
        computing the same similarity with every unit's source (timed on 20 of
        the texts). The goal: a suggestion within 50 ms of opening an editor.
        """

    static func run(_ argv: [String]) {
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json"], options: ["units", "queries"])
        } catch {
            Console.usage("\(program) memory", error)
        }
        if arguments.has("help") { Console.out(help); return }
        let units = Int(arguments.value("units") ?? "50000") ?? 50_000
        let queries = Int(arguments.value("queries") ?? "1000") ?? 1000
        var random = SplitMix(seed: 42)
        let vocabulary = (0..<3000).map { index in word(index, &random) }
        func phrase() -> [String] {
            (0..<Int.random(in: 2...12, using: &random)).map { _ in
                // Common words more often: the index squared, as word frequencies fall.
                let x = Double.random(in: 0..<1, using: &random)
                return vocabulary[Int(x * x * Double(vocabulary.count))]
            }
        }
        var sources: [String] = []
        var memory = TranslationMemory()
        let building = Measure.now()
        for index in 0..<units {
            let words = phrase()
            var text = words.joined(separator: " ")
            text = text.prefix(1).uppercased() + text.dropFirst()
            let unit = TranslationMemory.Unit(bundle: "/srv/app\(index % 50)", table: "Localizable", key: "key.\(index)")
            memory.setSource(text, of: unit)
            memory.setTranslation("fr: " + words.reversed().joined(separator: " "), of: unit, language: "fr")
            sources.append(text)
        }
        let built = Measure.now() - building
        var asked: [String] = []
        for index in 0..<queries {
            var words = sources[Int.random(in: 0..<sources.count, using: &random)].split(separator: " ").map(String.init)
            switch index % 3 {
            case 1: words[Int.random(in: 0..<words.count, using: &random)] = vocabulary[Int.random(in: 0..<vocabulary.count, using: &random)]
            case 2: words.insert(vocabulary[Int.random(in: 0..<vocabulary.count, using: &random)], at: Int.random(in: 0...words.count, using: &random))
            default: break
            }
            asked.append(words.joined(separator: " "))
        }
        var times: [Double] = []
        var answered = 0
        for text in asked {
            let start = Measure.now()
            let offers = memory.suggestions(for: text, language: "fr")
            times.append(Measure.now() - start)
            if !offers.isEmpty { answered += 1 }
        }
        times.sort()
        // The plain way: every unit's source compared with the text.
        var scans: [Double] = []
        for text in asked.prefix(20) {
            let start = Measure.now()
            let characters = Array(text.lowercased())
            var best: [(Double, Int)] = []
            for (index, source) in sources.enumerated() {
                let similarity = TranslationMemory.similarity(characters, Array(source.lowercased()))
                if similarity >= TranslationMemory.threshold { best.append((similarity, index)) }
            }
            best.sort { $0.0 > $1.0 }
            withExtendedLifetime(best.prefix(5)) {}
            scans.append(Measure.now() - start)
        }
        scans.sort()
        let p50 = times[times.count / 2], p99 = times[min(times.count - 1, times.count * 99 / 100)], slowest = times.last ?? 0
        let scan = scans[scans.count / 2]
        struct Report: Encodable {
            var units: Int; var queries: Int; var answered: Int; var buildSeconds: Double
            var p50: Double; var p99: Double; var slowest: Double; var scanMedian: Double; var ratio: Double
        }
        if arguments.has("json") {
            Console.out((try? CanonicalJSON.text(encoding: Report(units: units, queries: queries, answered: answered, buildSeconds: built, p50: p50,
                                                                   p99: p99, slowest: slowest, scanMedian: scan, ratio: p50 / scan))) ?? "{}")
            return
        }
        func ms(_ seconds: Double) -> String { Measure.format(seconds * 1000, 2) + " ms" }
        Console.out("""
            memory: \(units) units (built in \(ms(built))), \(queries) source texts asked, \(answered) answered with a suggestion
              the memory: p50 \(ms(p50)), p99 \(ms(p99)), slowest \(ms(slowest)) — goal ≤ 50 ms: \(slowest <= 0.05 ? "met" : "NOT met")
              a plain scan of every unit: median \(ms(scan)) — the memory's p50 is \(Measure.format(p50 / scan, 4))× it
            """)
    }

    /// A made-up word of 2 to 9 letters (index 0 is the shortest, as common words are).
    private static func word(_ index: Int, _ random: inout SplitMix) -> String {
        let letters = Array("abcdefghilmnoprstuvw")
        let length = 2 + min(7, index / 300 + Int.random(in: 0...2, using: &random))
        return String((0..<length).map { _ in letters[Int.random(in: 0..<letters.count, using: &random)] })
    }
}

/// A seeded generator: the same texts every run.
struct SplitMix: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
