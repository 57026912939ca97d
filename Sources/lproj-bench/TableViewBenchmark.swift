import Foundation
import LprojCommandLine
import LprojFormats
import LprojStudio

/// `lproj-bench tableview`: the studio's view and search of a large String
/// Catalog's table, every language a column, beside dumping that table
/// (`lprojctl dump`: the file parsed, each language printed), in one run.
enum TableViewBenchmark {
    static let help = """
        Usage: lproj-bench tableview [--keys N] [--languages N] [--rounds N] [--json]

        A real lprojd serves one bundle holding a generated Localizable.xcstrings of
        N keys (default 640) in N languages (default 30: about 2 MB), one key in
        ten a plural; a studio runs in this process. Times, alternating, for
        --rounds rounds (default 10): GET /api/table of its first page (200 keys)
        with every language but the source a column; the same searching for a
        word; and what lprojctl dump does for each language (the catalog read
        and parsed, each language's table printed as JSON). Goal: the view and
        the search within 2× the dumps.
        """

    static func run(_ argv: [String]) {
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json"], options: ["keys", "languages", "rounds"])
        } catch {
            Console.usage("\(program) tableview", error)
        }
        if arguments.has("help") { Console.out(help); return }
        let keys = Int(arguments.value("keys") ?? "640") ?? 640
        let languageCount = Int(arguments.value("languages") ?? "30") ?? 30
        let rounds = Int(arguments.value("rounds") ?? "10") ?? 10
        let languages = ["en"] + (1..<languageCount).map { "l\($0)" }
        let daemon = DaemonUnderTest()
        try? FileManager.default.createDirectory(atPath: daemon.root + "/App", withIntermediateDirectories: true)
        let catalog = CatalogBenchmark.generatedCatalog(keys: keys, languages: languages)
        daemon.save("App/Localizable.xcstrings", catalog, atomically: false)
        let bundle = daemon.root + "/App"
        daemon.start()
        defer { daemon.stop() }
        let studio = StudioBenchmark.studio(socket: daemon.socket)
        defer { studio.stop() }
        guard var browser = StudioBenchmark.KeptConnection(port: studio.port, token: studio.access.token) else {
            Console.fail(program, "cannot reach the studio", status: 1)
        }
        let columns = languages.dropFirst().joined(separator: ",")
        let view = "/api/table?bundle=\(bundle)&table=Localizable&limit=200&languages=\(columns)"
        func timed(_ path: String) -> Double {
            let start = Measure.now()
            let answer = browser.exchange("GET", path)
            guard answer.status == 200 else { Console.fail(program, "\(path) answered \(answer.status)", status: 1) }
            return Measure.now() - start
        }
        _ = timed(view)
        var views: [Double] = [], searches: [Double] = [], dumps: [Double] = []
        for round in 0..<rounds {
            views.append(timed(view))
            searches.append(timed(view + "&q=number%20\(round)7"))
            let start = Measure.now()
            guard let file = try? TableFile.read(path: bundle + "/Localizable.xcstrings"), case .catalog(let read) = file.contents else {
                Console.fail(program, "the catalog does not read", status: 1)
            }
            for language in languages { withExtendedLifetime(try? CanonicalJSON.text(encoding: read.tables[language]?.entries ?? [:])) {} }
            dumps.append(Measure.now() - start)
        }
        let viewResult = Distribution(seconds: views), searchResult = Distribution(seconds: searches), dumpResult = Distribution(seconds: dumps)
        let viewRatio = viewResult.p50 / dumpResult.p50, searchRatio = searchResult.p50 / dumpResult.p50
        if arguments.has("json") {
            struct Report: Encodable { var bytes: Int; var view: Distribution; var search: Distribution; var dump: Distribution; var viewRatio: Double; var searchRatio: Double }
            Console.out((try? CanonicalJSON.text(encoding: Report(bytes: catalog.count, view: viewResult, search: searchResult, dump: dumpResult,
                                                                   viewRatio: viewRatio, searchRatio: searchRatio))) ?? "{}")
            return
        }
        Console.out("""
            tableview: a \(Measure.format(Double(catalog.count) / 1_048_576, 2)) MB catalog, \(keys) keys × \(languageCount) languages, \(rounds) rounds
              GET /api/table, 200 keys × \(languageCount - 1) columns:  \(viewResult.text)
              the same, searching:                   \(searchResult.text)
              lprojctl dump of every language:       \(dumpResult.text)
              p50 ratios: view \(Measure.format(viewRatio, 2))×, search \(Measure.format(searchRatio, 2))× — goal ≤ 2×: \(max(viewRatio, searchRatio) <= 2 ? "met" : "NOT met")
            """)
    }
}
