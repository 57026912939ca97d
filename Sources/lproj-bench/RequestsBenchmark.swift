import CAllocationCounter
import Foundation
import LprojClient
import LprojCommandLine
@_spi(LprojInternals) import LprojPaths
import LprojTables

/// `lproj-bench requests`: a service's request — resolve the request's
/// `Accept-Language` to a view, then 5 lookups in it — beside the same 5
/// lookups on `bundle.current`, over 1,000 distinct headers, once the
/// header cache is warm. Counts allocations per request. The loops run
/// one after another in each round, and each ratio is the median of
/// the rounds' own ratios: this machine's speed moves more between runs
/// (and within one) than the differences measured.
enum RequestsBenchmark {
    static func run(_ argv: [String]) {
        let command = "\(program) requests"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json"], options: ["headers", "rounds", "threads"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        guard let headerCount = Int(arguments.value("headers") ?? "1000"), headerCount > 0,
              let rounds = Int(arguments.value("rounds") ?? "31"), rounds > 0,
              let threads = Int(arguments.value("threads") ?? "\(max(2, sysconf(Int32(_SC_NPROCESSORS_ONLN))))"), threads > 0 else {
            Console.usage(command, UsageError("--headers, --rounds and --threads take positive numbers"))
        }
        var template = Array("/tmp/lproj-requests-XXXXXX".utf8CString)
        let directory = String(cString: mkdtemp(&template)!)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let resources = directory + "/Resources"
        let localizations = ["en", "en-GB", "fr", "fr-CA", "de", "es", "es-419", "it", "ja", "ko", "pt-BR", "pt-PT", "zh-Hans", "zh-Hant",
                             "ar", "he", "ru", "pl", "nl", "sv"]
        let keys = (0..<2000).map { "notification.kind\($0 % 40).line_\($0)" }
        for localization in localizations {
            // Two values in three are sentences, stored apart from their `String` (as most translations are); a third fit inline.
            let text = keys.enumerated().map { offset, key in
                let value = offset % 3 == 0 ? "\(localization) text \(offset)" : "\(localization): notification \(offset), a sentence as long as most"
                return "\"\(key)\" = \"\(value)\";"
            }.joined(separator: "\n")
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
        var ratios: (plain: [Double], sameViews: [Double], hashedSameViews: [Double]) = ([], [], [])
        // The views each request gets, for the same lookups without resolving (what the languages cost, apart from the header).
        let views = headers.map { bundle.localization(acceptLanguage: $0) }
        for _ in 0..<rounds {
            best.resolving = min(best.resolving, perRequest(headers.count) { index in
                bundle.localization(acceptLanguage: headers[index]).searchList.count
            })
            let sameViews = perRequest(headers.count) { index in
                let view = views[index]
                var length = 0
                for key in requestKeys[index] { length &+= view.localizedString(forKey: key, value: nil, table: nil).utf8.count }
                return length
            }
            // The floor of any cache keyed by the header's bytes: the same lookups, and the header hashed.
            let hashedSameViews = perRequest(headers.count) { index in
                let view = views[index]
                var length = Int(truncatingIfNeeded: ByteHash.hash(headers[index]))
                for key in requestKeys[index] { length &+= view.localizedString(forKey: key, value: nil, table: nil).utf8.count }
                return length
            }
            let requests = perRequest(headers.count) { index in
                let view = bundle.localization(acceptLanguage: headers[index])
                var length = 0
                for key in requestKeys[index] { length &+= view.localizedString(forKey: key, value: nil, table: nil).utf8.count }
                return length
            }
            let plain = perRequest(headers.count) { index in
                let view = bundle.current
                var length = 0
                for key in requestKeys[index] { length &+= view.localizedString(forKey: key, value: nil, table: nil).utf8.count }
                return length
            }
            best.sameViews = min(best.sameViews, sameViews)
            best.requests = min(best.requests, requests)
            best.plain = min(best.plain, plain)
            ratios.plain.append(requests / plain)
            ratios.sameViews.append(requests / sameViews)
            ratios.hashedSameViews.append(hashedSameViews / sameViews)
        }
        var sink = 0
        let before = lproj_allocation_count()
        for index in headers.indices {
            let view = bundle.localization(acceptLanguage: headers[index])
            for key in requestKeys[index] { sink &+= view.localizedString(forKey: key, value: nil, table: nil).utf8.count }
        }
        let allocations = Double(lproj_allocation_count() - before) / Double(headers.count)
        withExtendedLifetime(sink) {}
        // Requests on several threads at once, as a service's request threads share one bundle: throughput beside one thread's.
        // Each thread has its own copies of the headers and keys (a request's header is its own; keys in code are literals,
        // whose strings are never counted): what the threads share is the bundle alone.
        let passes = max(1, Int(0.3 / (best.requests * Double(headers.count))))
        let requestsTogether = scaling(threads: threads, passes: passes, count: headers.count, headers: headers, keys: requestKeys,
                                       bundle: { bundle }) { bundle, header in bundle.localization(acceptLanguage: header) }
        let plainTogether = scaling(threads: threads, passes: passes, count: headers.count, headers: headers, keys: requestKeys,
                                    bundle: { bundle }) { bundle, _ in bundle.current }
        // The floor: the same requests, each thread with a bundle of its own (its own tables: nothing shared but the machine).
        let ownOptions = options
        let ownTogether = scaling(threads: threads, passes: passes, count: headers.count, headers: headers, keys: requestKeys, bundle: {
            (try? LiveBundle(path: resources, options: ownOptions)) ?? bundle
        }) { bundle, header in bundle.localization(acceptLanguage: header) }
        let floorTogether = computeScaling(threads: threads, passes: passes, count: headers.count)
        let ratio = median(ratios.plain)
        // What resolving the header costs on top of the same lookups in the same views (issue 24: ≤ 1.15×).
        let resolutionRatio = median(ratios.sameViews)
        let hashingRatio = median(ratios.hashedSameViews)
        let distinct = Set(headers.map { bundle.localization(acceptLanguage: $0).language ?? "" }).count
        struct Result: Encodable { var headers: Int; var languagesChosen: Int; var requestNanoseconds: Double; var plainNanoseconds: Double
            var ratio: Double; var sameViewsNanoseconds: Double; var resolutionRatio: Double; var resolvingNanoseconds: Double
            var hashingRatio: Double; var allocationsPerRequest: Double; var threads: Int; var requestsPerSecondOneThread: Double
            var requestsPerSecondThreads: Double; var threadScaling: Double; var plainLookupScaling: Double; var computeScaling: Double }
        let result = Result(headers: headers.count, languagesChosen: distinct, requestNanoseconds: best.requests * 1e9,
                            plainNanoseconds: best.plain * 1e9, ratio: ratio, sameViewsNanoseconds: best.sameViews * 1e9,
                            resolutionRatio: resolutionRatio, resolvingNanoseconds: best.resolving * 1e9, hashingRatio: hashingRatio,
                            allocationsPerRequest: allocations, threads: threads, requestsPerSecondOneThread: requestsTogether.alone,
                            requestsPerSecondThreads: requestsTogether.together, threadScaling: requestsTogether.scaling,
                            plainLookupScaling: plainTogether.scaling, computeScaling: floorTogether)
        if arguments.has("json") {
            Console.out((try? CanonicalJSON.text(encoding: result)) ?? "{}")
            return
        }
        let met = ratio <= 1.5 && resolutionRatio <= 1.15 && allocations == 0 && requestsTogether.scaling >= 1.8 && plainTogether.scaling >= 1.8
        Console.out("""
            requests: \(headers.count) distinct Accept-Language headers (\(distinct) localizations chosen), 5 lookups each, \
            CPU time per request (best of \(rounds) rounds, header cache warm; ratios: the rounds' median)
              per-request view + 5 lookups: \(Measure.format(best.requests * 1e9, 0)) ns | 5 lookups on bundle.current: \
            \(Measure.format(best.plain * 1e9, 0)) ns | \(Measure.format(ratio, 2))× | \(Measure.format(allocations, 2)) allocations per request
              of which: resolving the header alone \(Measure.format(best.resolving * 1e9, 0)) ns; the 5 lookups in each request's own \
            view, already resolved, \(Measure.format(best.sameViews * 1e9, 0)) ns (requests \(Measure.format(resolutionRatio, 2))× that; \
            the same lookups with the header hashed, the floor of a cache keyed by it: \(Measure.format(hashingRatio, 2))×)
              \(threads) threads at once (wall time, median of 3 rounds): \(Measure.format(requestsTogether.together / 1e6, 2)) million \
            requests a second, \(Measure.format(requestsTogether.scaling, 2))× one thread's \
            \(Measure.format(requestsTogether.alone / 1e6, 2)) million; 5 lookups on bundle.current: \
            \(Measure.format(plainTogether.scaling, 2))×; each thread with a bundle of its own (the floor): \
            \(Measure.format(ownTogether.scaling, 2))×; a plain compute loop: \(Measure.format(floorTogether, 2))×
              goal: ≤ 1.5× the plain lookups, ≤ 1.15× the same lookups already resolved, no allocation per request on a \
            cached header, ≥ 1.8× one thread's requests and lookups on \(threads) threads — \(met ? "met" : "NOT met")
            """)
    }

    /// CPU seconds per request over every header (at least 0.1 s).
    private static func perRequest(_ count: Int, _ body: (Int) -> Int) -> Double {
        var sink = 0
        let seconds = Measure.secondsPerCall(minimum: 0.1) {
            for index in 0..<count { sink &+= body(index) }
            return sink
        }
        return seconds / Double(count)
    }

    /// Requests a second (wall time) of one thread and of `threads` threads
    /// at once, each making `passes` passes over every header with its own
    /// copies of the headers and keys: a request is `view(bundle, header)`
    /// then its 5 lookups. Alternated over 3 rounds; the median round's
    /// scaling (`together` ÷ `alone`).
    private static func scaling(threads: Int, passes: Int, count: Int, headers: [String], keys: [[String]],
                                bundle: @escaping @Sendable () -> LiveBundle,
                                view: @escaping @Sendable (LiveBundle, String) -> LiveBundle.Localization)
        -> (alone: Double, together: Double, scaling: Double) {
        let work: @Sendable (Int) -> @Sendable () -> Void = { thread in
            {
                // Copies made on the thread: their counts are this thread's alone.
                let ownHeaders = headers.map { String(decoding: Array($0.utf8), as: UTF8.self) }
                let ownKeys = keys.flatMap { $0.map { String(decoding: Array($0.utf8), as: UTF8.self) } }
                let bundle = bundle()
                for step in 0..<count {
                    for key in ownKeys[(step * 5)..<(step * 5 + 5)] { _ = view(bundle, ownHeaders[step]).localizedString(forKey: key, value: nil, table: nil) }
                }
                return {
                    var sink = 0
                    for _ in 0..<passes {
                        // Each thread starts at another header: they do not ask for the same view at the same moment.
                        for step in 0..<count {
                            let index = (step + thread * 97) % count
                            let localization = view(bundle, ownHeaders[index])
                            for key in ownKeys[(index * 5)..<(index * 5 + 5)] {
                                sink &+= localization.localizedString(forKey: key, value: nil, table: nil).utf8.count
                            }
                        }
                    }
                    withExtendedLifetime(sink) {}
                }
            }()
        }
        var rounds: [(alone: Double, together: Double)] = []
        for _ in 0..<3 {
            let alone = Double(passes * count) / wallSeconds(threads: 1, work)
            let together = Double(threads * passes * count) / wallSeconds(threads: threads, work)
            rounds.append((alone, together))
        }
        let median = rounds.sorted { $0.together / $0.alone < $1.together / $1.alone }[1]
        return (median.alone, median.together, median.together / median.alone)
    }

    /// The floor: how this machine scales a loop that shares nothing (each
    /// thread hashing its own copies of the headers), median of 3 rounds.
    private static func computeScaling(threads: Int, passes: Int, count: Int) -> Double {
        let work: @Sendable (Int) -> @Sendable () -> Void = { thread in
            let text = (0..<count).map { "en-US, en;q=0.9, fr;q=0.\($0 % 9), *;q=0.1 \(thread)" }
            return {
                var sink: UInt64 = 0
                for _ in 0..<(passes * 6) { for header in text { sink &+= ByteHash.hash(header) } }
                withExtendedLifetime(sink) {}
            }
        }
        var ratios: [Double] = []
        for _ in 0..<3 {
            let alone = 1 / wallSeconds(threads: 1, work)
            ratios.append(Double(threads) / wallSeconds(threads: threads, work) / alone)
        }
        return median(ratios)
    }

    /// Wall seconds for `threads` threads to each run what `work` makes for
    /// it (made before the clock starts), started together.
    private static func wallSeconds(threads: Int, _ work: @escaping @Sendable (Int) -> @Sendable () -> Void) -> Double {
        let ready = DispatchGroup(), start = DispatchSemaphore(value: 0), done = DispatchGroup()
        for thread in 0..<threads {
            ready.enter()
            done.enter()
            Thread.detachNewThread {
                let body = work(thread)
                ready.leave()
                start.wait()
                body()
                done.leave()
            }
        }
        ready.wait()
        let began = Measure.now()
        for _ in 0..<threads { start.signal() }
        done.wait()
        return Measure.now() - began
    }

    private static func median(_ values: [Double]) -> Double {
        values.sorted()[values.count / 2]
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
        Usage: lproj-bench requests [--headers N] [--rounds N] [--threads N] [--json]

        Generates a bundle of 20 localizations of 2,000 keys and N distinct
        Accept-Language headers (default 1,000). Times a request — the header
        resolved to a view (bundle.localization(acceptLanguage:)), then 5
        lookups in it — beside the same 5 lookups on bundle.current, beside
        the same 5 lookups in the same views resolved before timing (what
        resolving costs apart from the languages), and beside those with the
        header hashed (the floor of any cache keyed by the header's bytes),
        with the header cache warm; counts heap allocations per request.
        Each of --rounds rounds (default 31) runs the loops one after another
        for at least 0.1 s of CPU each; times are the best round's, ratios
        the median of the rounds' own. Then --threads threads (default: the
        processors online, at least 2) make requests at once: requests a
        second in wall time, beside one thread doing the same.
        """
}
