import CAllocationCounter
import Foundation
import LprojClient
import LprojCommandLine

/// `lproj-bench requests`: a service's request — resolve the request's
/// `Accept-Language` to a view, then 5 lookups in it — beside the same 5
/// lookups on `bundle.current`, over 1,000 distinct headers, once the
/// header cache is warm. Counts allocations per request.
enum RequestsBenchmark {
    static func run(_ argv: [String]) {
        let command = "\(program) requests"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json"], options: ["headers", "rounds"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        guard let headerCount = Int(arguments.value("headers") ?? "1000"), headerCount > 0,
              let rounds = Int(arguments.value("rounds") ?? "15"), rounds > 0 else {
            Console.usage(command, UsageError("--headers and --rounds take positive numbers"))
        }
        var template = Array("/tmp/lproj-requests-XXXXXX".utf8CString)
        let directory = String(cString: mkdtemp(&template)!)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let resources = directory + "/Resources"
        let localizations = ["en", "en-GB", "fr", "fr-CA", "de", "es", "es-419", "it", "ja", "ko", "pt-BR", "pt-PT", "zh-Hans", "zh-Hant",
                             "ar", "he", "ru", "pl", "nl", "sv"]
        let keys = (0..<2000).map { "notification.kind\($0 % 40).line_\($0)" }
        for localization in localizations {
            let text = keys.enumerated().map { "\"\($0.element)\" = \"\(localization) text \($0.offset)\";" }.joined(separator: "\n")
            try? FileManager.default.createDirectory(atPath: resources + "/\(localization).lproj", withIntermediateDirectories: true)
            try? Data(text.utf8).write(to: URL(fileURLWithPath: resources + "/\(localization).lproj/Localizable.strings"))
        }
        var options = LiveBundle.Options()
        options.connects = false
        options.environment = ["LANG": "en_US.UTF-8", "XDG_CONFIG_HOME": directory + "/config"]
        guard let bundle = try? LiveBundle(path: resources, options: options) else {
            Console.fail(program, "cannot open the generated bundle", status: 1)
        }
        // 1,000 distinct headers, as browsers send them.
        let regions = ["US", "GB", "CA", "FR", "DE", "CH", "AT", "ES", "MX", "AR", "BR", "PT", "JP", "KR", "CN", "TW", "HK", "IL", "RU", "PL"]
        let languages = ["en", "fr", "de", "es", "it", "ja", "ko", "pt", "zh", "ar", "he", "ru", "pl", "nl", "sv"]
        var random = SplitMix(seed: 42)
        var headers: [String] = []
        var seen = Set<String>()
        while headers.count < headerCount {
            let first = languages[random.next(languages.count)], second = languages[random.next(languages.count)]
            let header = "\(first)-\(regions[random.next(regions.count)]), \(first);q=0.9, \(second);q=0.\(1 + random.next(8)), *;q=0.1"
            if seen.insert(header).inserted { headers.append(header) }
        }
        // Five lookups a request: a notification's title, body and three lines.
        let requestKeys = (0..<headerCount).map { index in (0..<5).map { keys[(index * 7 + $0 * 131) % keys.count] } }
        // Warm: every header resolved once.
        for header in headers { _ = bundle.localization(acceptLanguage: header) }

        var best = (requests: Double.infinity, plain: Double.infinity, resolving: Double.infinity, sameViews: Double.infinity)
        // The views each request gets, for the same lookups without resolving (what the languages cost, apart from the header).
        let views = headers.map { bundle.localization(acceptLanguage: $0) }
        for _ in 0..<rounds {
            best.resolving = min(best.resolving, perRequest(headers.count) { index in
                bundle.localization(acceptLanguage: headers[index]).searchList.count
            })
            best.sameViews = min(best.sameViews, perRequest(headers.count) { index in
                let view = views[index]
                var length = 0
                for key in requestKeys[index] { length &+= view.localizedString(forKey: key, value: nil, table: nil).utf8.count }
                return length
            })
            best.requests = min(best.requests, perRequest(headers.count) { index in
                let view = bundle.localization(acceptLanguage: headers[index])
                var length = 0
                for key in requestKeys[index] { length &+= view.localizedString(forKey: key, value: nil, table: nil).utf8.count }
                return length
            })
            best.plain = min(best.plain, perRequest(headers.count) { index in
                let view = bundle.current
                var length = 0
                for key in requestKeys[index] { length &+= view.localizedString(forKey: key, value: nil, table: nil).utf8.count }
                return length
            })
        }
        var sink = 0
        let before = lproj_allocation_count()
        for index in headers.indices {
            let view = bundle.localization(acceptLanguage: headers[index])
            for key in requestKeys[index] { sink &+= view.localizedString(forKey: key, value: nil, table: nil).utf8.count }
        }
        let allocations = Double(lproj_allocation_count() - before) / Double(headers.count)
        withExtendedLifetime(sink) {}
        let ratio = best.requests / best.plain
        // What resolving the header costs on top of the same lookups in the same views (issue 24: ≤ 1.15×).
        let resolutionRatio = best.requests / best.sameViews
        let distinct = Set(headers.map { bundle.localization(acceptLanguage: $0).language ?? "" }).count
        struct Result: Encodable { var headers: Int; var languagesChosen: Int; var requestNanoseconds: Double; var plainNanoseconds: Double
            var ratio: Double; var sameViewsNanoseconds: Double; var resolutionRatio: Double; var allocationsPerRequest: Double }
        let result = Result(headers: headers.count, languagesChosen: distinct, requestNanoseconds: best.requests * 1e9,
                            plainNanoseconds: best.plain * 1e9, ratio: ratio, sameViewsNanoseconds: best.sameViews * 1e9,
                            resolutionRatio: resolutionRatio, allocationsPerRequest: allocations)
        if arguments.has("json") {
            Console.out((try? CanonicalJSON.text(encoding: result)) ?? "{}")
            return
        }
        let met = ratio <= 1.5 && resolutionRatio <= 1.15 && allocations == 0
        Console.out("""
            requests: \(headers.count) distinct Accept-Language headers (\(distinct) localizations chosen), 5 lookups each, \
            CPU time per request (best of \(rounds) rounds, header cache warm)
              per-request view + 5 lookups: \(Measure.format(best.requests * 1e9, 0)) ns | 5 lookups on bundle.current: \
            \(Measure.format(best.plain * 1e9, 0)) ns | \(Measure.format(ratio, 2))× | \(Measure.format(allocations, 2)) allocations per request
              of which: resolving the header alone \(Measure.format(best.resolving * 1e9, 0)) ns; the 5 lookups in each request's own \
            view, already resolved, \(Measure.format(best.sameViews * 1e9, 0)) ns (requests \(Measure.format(resolutionRatio, 2))× that)
              goal: ≤ 1.5× the plain lookups, ≤ 1.15× the same lookups already resolved, no allocation per request on a \
            cached header — \(met ? "met" : "NOT met")
            """)
    }

    /// CPU seconds per request over every header (at least 0.2 s).
    private static func perRequest(_ count: Int, _ body: (Int) -> Int) -> Double {
        var sink = 0
        let seconds = Measure.secondsPerCall(minimum: 0.2) {
            for index in 0..<count { sink &+= body(index) }
            return sink
        }
        return seconds / Double(count)
    }

    /// The headers made from a seed: the same run every time.
    private struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    static let help = """
        Usage: lproj-bench requests [--headers N] [--rounds N] [--json]

        Generates a bundle of 20 localizations of 2,000 keys and N distinct
        Accept-Language headers (default 1,000). Times a request — the header
        resolved to a view (bundle.localization(acceptLanguage:)), then 5
        lookups in it — beside the same 5 lookups on bundle.current, and beside
        the same 5 lookups in the same views resolved before timing (what
        resolving costs apart from the languages), with the header cache warm;
        counts heap allocations per request.
        """
}
