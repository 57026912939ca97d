import Foundation
import LprojBundles
import LprojCommandLine
import LprojStudio

/// `lproj-bench overview`: the studio's overview of a large bundle, beside
/// counting the bundle's coverage from its files (what `lprojctl coverage`
/// does, without starting a process), in one run.
enum OverviewBenchmark {
    static let help = """
        Usage: lproj-bench overview [--languages N] [--tables N] [--keys N] [--rounds N] [--json]

        A real lprojd serves one bundle of N languages (default 34) × N tables
        (default 137) × N keys (default 20), each language missing a few; a
        studio runs in this process. Times, alternating, for --rounds rounds
        (default 20): GET /api/bundles as a page asks it; the same right after a
        save of one table has reached a page's event stream (the overview counts
        that table again); and Coverage(bundle:) — lprojctl coverage's count from
        the files. The goal: the overview within 0.25× the count from the files.
        """

    static func run(_ argv: [String]) {
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json"], options: ["languages", "tables", "keys", "rounds"])
        } catch {
            Console.usage("\(program) overview", error)
        }
        if arguments.has("help") { Console.out(help); return }
        let languageCount = Int(arguments.value("languages") ?? "34") ?? 34
        let tableCount = Int(arguments.value("tables") ?? "137") ?? 137
        let keys = Int(arguments.value("keys") ?? "20") ?? 20
        let rounds = Int(arguments.value("rounds") ?? "20") ?? 20
        let daemon = DaemonUnderTest()
        let languages = ["en"] + (1..<languageCount).map { "l\($0)" }
        for (index, language) in languages.enumerated() {
            try? FileManager.default.createDirectory(atPath: daemon.root + "/App/\(language).lproj", withIntermediateDirectories: true)
            for table in 0..<tableCount {
                // Each language lacks its own few keys.
                let text = (0..<keys).filter { language == "en" || ($0 + index + table) % 7 != 0 }
                    .map { "\"k\($0)\" = \"\(language) text \($0) of table \(table)\";\n" }.joined()
                daemon.save("App/\(language).lproj/T\(table).strings", Array(text.utf8), atomically: false)
            }
        }
        let bundle = daemon.root + "/App"
        daemon.start()
        defer { daemon.stop() }
        let studio = StudioBenchmark.studio(socket: daemon.socket)
        defer { studio.stop() }
        guard var page = StudioBenchmark.EventPage(port: studio.port, token: studio.access.token),
              var browser = StudioBenchmark.KeptConnection(port: studio.port, token: studio.access.token) else {
            Console.fail(program, "cannot reach the studio", status: 1)
        }
        func overview() -> Double {
            let start = Measure.now()
            let answer = browser.exchange("GET", "/api/bundles")
            guard answer.status == 200, answer.body.count > 1000 else { Console.fail(program, "the overview did not answer (\(answer.status))", status: 1) }
            return Measure.now() - start
        }
        _ = overview()
        var warm: [Double] = [], afterSave: [Double] = [], files: [Double] = []
        for round in 0..<rounds {
            warm.append(overview())
            let text = (0..<keys).map { "\"k\($0)\" = \"l1 text \($0), round \(round)\";\n" }.joined()
            daemon.save("App/l1.lproj/T0.strings", Array(text.utf8), atomically: true)
            guard page.arrive("round \(round)") else { Console.fail(program, "the save of round \(round) never reached the page", status: 1) }
            afterSave.append(overview())
            let start = Measure.now()
            withExtendedLifetime(try? Coverage(bundle: bundle)) {}
            files.append(Measure.now() - start)
        }
        let warmResult = Distribution(seconds: warm), savedResult = Distribution(seconds: afterSave), filesResult = Distribution(seconds: files)
        let warmRatio = warmResult.p50 / filesResult.p50, savedRatio = savedResult.p50 / filesResult.p50
        if arguments.has("json") {
            struct Report: Encodable { var files: Int; var overview: Distribution; var afterSave: Distribution; var coverage: Distribution; var ratio: Double; var afterSaveRatio: Double }
            Console.out((try? CanonicalJSON.text(encoding: Report(files: languageCount * tableCount, overview: warmResult, afterSave: savedResult,
                                                                   coverage: filesResult, ratio: warmRatio, afterSaveRatio: savedRatio))) ?? "{}")
            return
        }
        let met = max(warmRatio, savedRatio) <= 0.25
        Console.out("""
            overview: one bundle of \(languageCount) languages × \(tableCount) tables × \(keys) keys, \(rounds) rounds
              GET /api/bundles:                          \(warmResult.text)
              GET /api/bundles after a table's save:     \(savedResult.text)
              Coverage(bundle:) from the files:          \(filesResult.text)
              p50 ratios: \(Measure.format(warmRatio, 3))×, after a save \(Measure.format(savedRatio, 3))× — goal ≤ 0.25×: \(met ? "met" : "NOT met")
            """)
    }
}
