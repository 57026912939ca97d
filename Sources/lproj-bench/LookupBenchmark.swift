import CAllocationCounter
import Foundation
import LprojClient
import LprojCommandLine

/// `lproj-bench lookup`: ns per lookup, LiveBundle beside Foundation.Bundle
/// (and a bare dictionary) on the same 10,000-key table, in one run.
enum LookupBenchmark {
    static func run(_ argv: [String]) {
        let command = "\(program) lookup"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json"], options: ["keys", "rounds"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        guard let keyCount = Int(arguments.value("keys") ?? "10000"), keyCount > 0,
              let rounds = Int(arguments.value("rounds") ?? "15"), rounds > 0 else {
            Console.usage(command, UsageError("--keys and --rounds take positive numbers"))
        }
        // Under a real lprojd's root: the same bundle is also looked up through its shared images.
        let daemon = DaemonUnderTest()
        let directory = daemon.directory
        let resources = daemon.root + "/Resources"
        var keys: [String] = []
        var english = "", chinese = ""
        for index in 0..<keyCount {
            let key = "screen.section\(index % 50).label_\(index)"
            keys.append(key)
            english += "\"\(key)\" = \"Label number \(index) of the app\";\n"
            chinese += "\"\(key)\" = \"应用的第 \(index) 个标签\";\n"
        }
        for (language, text) in [("en", english), ("zh-Hans", chinese)] {
            try? FileManager.default.createDirectory(atPath: resources + "/\(language).lproj", withIntermediateDirectories: true)
            try? Data(text.utf8).write(to: URL(fileURLWithPath: resources + "/\(language).lproj/Localizable.strings"))
        }
        // The reference: a bare dictionary holding strings of its own made in file order, as a parsed table's are
        // (not the very strings looked up, whose storage `==` would recognise, nor laid out in lookup order).
        let dictionary = Dictionary(uniqueKeysWithValues: keys.enumerated().map {
            (String(decoding: Array($0.element.utf8), as: UTF8.self), "Label number \($0.offset) of the app")
        })
        keys.shuffle()
        daemon.start()
        defer { daemon.stop() }

        struct Row: Encodable { var language: String; var liveBundleNanoseconds: Double; var foundationNanoseconds: Double
            var dictionaryNanoseconds: Double; var ratio: Double; var allocationsPerHit: Double
            /// LiveBundle over lprojd's images (mapped) beside it over the parsed files.
            var mappedNanoseconds: Double; var mappedRatio: Double }
        var rows: [Row] = []
        for (language, environment, foundationPath) in [("en", "en_US.UTF-8", resources), ("zh-Hans", "zh_CN.UTF-8", resources + "/zh-Hans.lproj")] {
            var options = LiveBundle.Options()
            options.connects = false
            options.environment = ["LANG": environment, "XDG_CONFIG_HOME": directory + "/config"]
            var sharing = options
            sharing.connects = true
            sharing.reportsMisses = false
            sharing.socketPath = daemon.socket
            guard let live = try? LiveBundle(path: resources, options: options), live.language == language,
                  let mapped = try? LiveBundle(path: resources, options: sharing), mapped.language == language,
                  let foundation = Bundle(path: foundationPath) else {
                Console.fail(program, "cannot open the generated bundle for \(language)", status: 1)
            }
            // Same answers first.
            for key in keys.prefix(100) where live.localizedString(forKey: key, value: nil, table: nil)
                != foundation.localizedString(forKey: key, value: nil, table: nil)
                || mapped.localizedString(forKey: key, value: nil, table: nil) != live.localizedString(forKey: key, value: nil, table: nil) {
                Console.fail(program, "LiveBundle (files or images) and Foundation disagree on \(key) (\(language))", status: 1)
            }
            var best = (live: Double.infinity, foundation: Double.infinity, dictionary: Double.infinity, mapped: Double.infinity)
            for _ in 0..<rounds {
                best.live = min(best.live, perLookup(keys) { live.localizedString(forKey: $0, value: nil, table: nil) })
                best.mapped = min(best.mapped, perLookup(keys) { mapped.localizedString(forKey: $0, value: nil, table: nil) })
                best.foundation = min(best.foundation, perLookup(keys) { foundation.localizedString(forKey: $0, value: nil, table: nil) })
                best.dictionary = min(best.dictionary, perLookup(keys) { dictionary[$0]! })
            }
            // Allocations on hits: counted over one pass of every key.
            var sink = 0
            let before = lproj_allocation_count()
            for key in keys { sink &+= live.localizedString(forKey: key, value: nil, table: nil).utf8.count }
            for key in keys { sink &+= mapped.localizedString(forKey: key, value: nil, table: nil).utf8.count }
            let allocations = Double(lproj_allocation_count() - before) / Double(2 * keys.count)
            mapped.close()
            withExtendedLifetime(sink) {}
            rows.append(Row(language: language, liveBundleNanoseconds: best.live * 1e9, foundationNanoseconds: best.foundation * 1e9,
                            dictionaryNanoseconds: best.dictionary * 1e9, ratio: best.foundation / best.live, allocationsPerHit: allocations,
                            mappedNanoseconds: best.mapped * 1e9, mappedRatio: best.mapped / best.live))
        }
        if arguments.has("json") {
            Console.out((try? CanonicalJSON.text(encoding: rows)) ?? "[]")
            return
        }
        var lines = ["lookup: \(keyCount)-key table, every key in random order, CPU time per lookup (best of \(rounds) rounds)"]
        for row in rows {
            lines.append("  \(row.language): LiveBundle \(Measure.format(row.liveBundleNanoseconds, 0)) ns | Foundation.Bundle "
                         + "\(Measure.format(row.foundationNanoseconds, 0)) ns | [String: String] \(Measure.format(row.dictionaryNanoseconds, 0)) ns"
                         + " | \(Measure.format(row.ratio))× faster | \(Measure.format(row.allocationsPerHit, 2)) allocations per hit"
                         + " | over lprojd's images \(Measure.format(row.mappedNanoseconds, 0)) ns (\(Measure.format(row.mappedRatio, 2))×)")
        }
        let met = rows.allSatisfy { $0.ratio >= 5 && $0.allocationsPerHit == 0 && $0.mappedRatio <= 1.05 }
        lines.append("  goal: ≥ 5× Foundation, no allocation on a hit, over images ≤ 1.05× over parsed files — \(met ? "met" : "NOT met")")
        Console.out(lines.joined(separator: "\n"))
    }

    /// CPU seconds per call over every key (at least 0.2 s).
    private static func perLookup(_ keys: [String], _ body: (String) -> String) -> Double {
        var sink = 0
        let seconds = Measure.secondsPerCall(minimum: 0.2) {
            for key in keys { sink &+= body(key).utf8.count }
            return sink
        }
        return seconds / Double(keys.count)
    }

    static let help = """
        Usage: lproj-bench lookup [--keys N] [--rounds N] [--json]

        Generates en.lproj and zh-Hans.lproj tables of N keys (default 10,000) and
        times a lookup of every key, in random order: LiveBundle (no daemon),
        LiveBundle mapping a real lprojd's shared images of the same tables, Foundation.Bundle (the bundle for en, the zh-Hans.lproj directory for
        zh-Hans), and a bare [String: String]. Counts heap allocations on hits.
        """
}
