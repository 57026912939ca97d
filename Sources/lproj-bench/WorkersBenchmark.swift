import Foundation
import LprojBundles
import LprojClient
import LprojCommandLine
import LprojTables

/// `lproj-bench workers`: N worker processes of one service start at once
/// on a bundle of many localizations, each serving a few languages. Three
/// ways, in one run: every worker parsing the whole bundle (what each did
/// when a bundle was read whole: the floor), LiveBundle reading only what
/// its views need from the files, and LiveBundle mapping the images a real
/// lprojd shares. Measured: each worker's first lookup from its start, its
/// memory from `/proc/PID/smaps_rollup` (Pss, and what is its own) while
/// all N run, lookups in its tables, and for shared images, a save until
/// every worker has the new value.
enum WorkersBenchmark {
    static func run(_ argv: [String]) {
        let command = "\(program) workers"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json"], options: ["workers", "languages", "keys", "rounds", "serves", "saves", "worker", "bundle", "socket"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        guard let serves = Int(arguments.value("serves") ?? "4"), (1...served.count).contains(serves) else {
            Console.usage(command, UsageError("--serves takes 1 to \(served.count)"))
        }
        if let mode = arguments.value("worker").flatMap(Mode.init(rawValue:)), let bundle = arguments.value("bundle") {
            return Worker.run(mode: mode, bundle: bundle, socket: arguments.value("socket"), serves: Array(served.prefix(serves)))
        }
        guard let workers = Int(arguments.value("workers") ?? "16"), workers > 0,
              let languageCount = Int(arguments.value("languages") ?? "50"), (4...languages.count).contains(languageCount),
              let keys = Int(arguments.value("keys") ?? "2000"), keys > 0,
              let rounds = Int(arguments.value("rounds") ?? "3"), rounds > 0,
              let saves = Int(arguments.value("saves") ?? "2"), saves > 0 else {
            Console.usage(command, UsageError("--workers, --keys, --rounds and --saves take positive numbers, --languages 4 to \(languages.count)"))
        }
        let daemon = DaemonUnderTest()
        // A service's resources, as deployed: for every user to read (lprojd publishes only such tables' images).
        chmod(daemon.directory, 0o755)
        for language in languages.prefix(languageCount) {
            let text = (0..<keys).map { "\"screen\($0 % 50).label_\($0)\" = \"\(language) text for label \($0) of the screen\";" }
            try? FileManager.default.createDirectory(atPath: daemon.root + "/App/\(language).lproj", withIntermediateDirectories: true)
            daemon.save("App/\(language).lproj/Localizable.strings", Array(text.joined(separator: "\n").utf8), atomically: false)
        }
        let bundleBytes = languages.prefix(languageCount).reduce(0) { total, language in
            total + ((try? FileManager.default.attributesOfItem(atPath: daemon.root + "/App/\(language).lproj/Localizable.strings")[.size] as? Int) ?? 0)
        }
        daemon.start()
        defer { daemon.stop() }
        var results: [Mode: [Round]] = [:]
        for round in 0..<rounds {
            for mode in Mode.allCases {
                // A restart empties lprojd's images directory; what it remembers publishing it publishes again before it is ready.
                if mode == .restarted || mode == .firstStart {
                    daemon.stop()
                    if mode == .firstStart { unlink(daemon.directory + "/state/published-images") }
                    daemon.start()
                }
                results[mode, default: []].append(Round.run(mode: mode, workers: workers, bundle: daemon.root + "/App", socket: daemon.socket,
                                                            daemon: daemon, marker: round, serves: serves, saves: saves))
            }
        }
        report(results, workers: workers, languages: languageCount, keys: keys, bundleBytes: bundleBytes, serves: Array(served.prefix(serves)),
               json: arguments.has("json"))
    }

    /// How a worker gets its tables.
    enum Mode: String, CaseIterable, Encodable {
        /// Parses every localization at start and materializes it (the floor).
        case whole
        /// LiveBundle without a daemon: the localizations its views need, parsed.
        case files
        /// LiveBundle following lprojd without its images (sharing off): parsed, and patched by events.
        case unshared
        /// As `shared`, started right after lprojd's first start: nothing is published, the first views read the files.
        case firstStart
        /// As `shared`, started right after lprojd restarted: it published again what it had published before.
        case restarted
        /// LiveBundle with lprojd: the localizations its views need, mapped from the daemon's images.
        case shared
    }

    /// The languages a generated bundle has, `en` (development) first.
    static let languages = ["en", "fr", "de", "ja", "es", "it", "pt-BR", "pt-PT", "zh-Hans", "zh-Hant", "ko", "ar", "he", "ru", "pl", "nl", "sv",
                            "da", "fi", "nb", "tr", "cs", "sk", "hu", "ro", "uk", "el", "bg", "hr", "sr", "sl", "lt", "lv", "et", "vi", "th",
                            "id", "ms", "hi", "bn", "ta", "te", "mr", "ur", "fa", "ca", "eu", "gl", "is", "ga", "cy", "mt", "sq", "mk"]
    /// What a worker serves (`--serves N`: the first N): its own language, then requests in the others.
    static let served = ["fr", "de", "ja", "es", "it", "pt-BR", "ko", "ru"]

    /// One round of one mode: N workers at once.
    struct Round: Encodable {
        var firstLookupSeconds: [Double]
        var lookupNanoseconds: [Double]
        /// Per worker: Pss and its own (private) memory grown while it read its tables.
        var pssBytes: [Int]
        var privateBytes: [Int]
        /// Following lprojd: for each save, save → the last worker has the new value.
        var saveSeconds: [Double]
        /// CPU seconds lprojd spent from "go" until every worker had looked up.
        var daemonSeconds: Double

        static func run(mode: Mode, workers count: Int, bundle: String, socket: String, daemon: DaemonUnderTest, marker: Int, serves: Int,
                        saves saveCount: Int) -> Round {
            let workers = (0..<count).map { _ in WorkerProcess(mode: mode, bundle: bundle, socket: socket, serves: serves) }
            for worker in workers { _ = worker.readLine(expecting: "started") }
            let before = workers.map { Memory(pid: $0.pid) }
            let daemonBefore = cpuSeconds(of: daemon.pid)
            for worker in workers { worker.send("go") }
            var first: [Double] = [], lookups: [Double] = []
            for worker in workers { first.append(Double(worker.readLine(expecting: "loaded").split(separator: " ")[1]) ?? .nan) }
            let after = workers.map { Memory(pid: $0.pid) }
            let daemonSeconds = cpuSeconds(of: daemon.pid) - daemonBefore
            // One worker at a time: lookups are timed on a quiet machine.
            for worker in workers {
                worker.send("lookups")
                lookups.append(Double(worker.readLine(expecting: "lookups").split(separator: " ")[1]) ?? .nan)
            }
            var saves: [Double] = []
            if mode == .whole {
                saves = floorSaves(saveCount, workers: workers, bundle: bundle)
            }
            if mode == .shared || mode == .unshared {
                let key = "screen0.label_0"
                let original = (try? String(contentsOfFile: bundle + "/fr.lproj/Localizable.strings", encoding: .utf8)) ?? ""
                // The value is edited in place, as an editor or `lprojctl set` saves it.
                let line = "\"\(key)\" = \"fr text for label 0 of the screen\";"
                guard let place = original.range(of: line) else { Console.fail(program, "no \(key) in fr's table", status: 1) }
                for save in 0..<saveCount {
                    let text = Array(original.replacingCharacters(in: place, with: "\"\(key)\" = \"changed \(marker).\(save)\";").utf8)
                    let saved = Measure.now()
                    daemon.save("App/fr.lproj/Localizable.strings", text, atomically: true)
                    let seen = workers.map { Double($0.readLine(expecting: "changed").split(separator: " ")[1]) ?? .nan }
                    saves.append((seen.max() ?? .nan) - saved)
                }
                daemon.save("App/fr.lproj/Localizable.strings", Array(original.utf8), atomically: true)
            }
            for worker in workers { worker.finish() }
            return Round(firstLookupSeconds: first, lookupNanoseconds: lookups, pssBytes: zip(before, after).map { $1.pss - $0.pss },
                         privateBytes: zip(before, after).map { $1.own - $0.own }, saveSeconds: saves, daemonSeconds: daemonSeconds)
        }

        /// The floor of a save reaching every worker: the same table saved the
        /// same way (in a directory of its own, outside lprojd's roots), seen
        /// with inotify, and a line written to each worker by a plain loop;
        /// each worker answers as it does on a change. Per save, until the last worker answered.
        static func floorSaves(_ count: Int, workers: [WorkerProcess], bundle: String) -> [Double] {
            var template = Array("/tmp/lproj-floor-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { Console.fail(program, "cannot make a directory for the floor", status: 1) }
            let directory = String(cString: made)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let original = (try? Data(contentsOf: URL(fileURLWithPath: bundle + "/fr.lproj/Localizable.strings"))) ?? Data()
            let inotify = inotify_init1(Int32(IN_CLOEXEC))
            defer { close(inotify) }
            guard inotify >= 0, inotify_add_watch(inotify, directory, UInt32(IN_MOVED_TO)) >= 0 else {
                Console.fail(program, "cannot watch \(directory)", status: 1)
            }
            var seconds: [Double] = []
            var events = [UInt8](repeating: 0, count: 4096)
            for _ in 0..<count {
                let saved = Measure.now()
                let temporary = directory + "/.save.tmp"
                let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                _ = original.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                close(descriptor)
                rename(temporary, directory + "/Localizable.strings")
                _ = events.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
                for worker in workers { worker.send("ping") }
                let seen = workers.map { Double($0.readLine(expecting: "changed").split(separator: " ")[1]) ?? .nan }
                seconds.append((seen.max() ?? .nan) - saved)
            }
            return seconds
        }

        /// User and system CPU seconds of process `pid` so far (`/proc/PID/stat`).
        static func cpuSeconds(of pid: Int32) -> Double {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = text.lastIndex(of: ")") else { return 0 }
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
            return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }
    }

    /// A process's memory from `/proc/PID/smaps_rollup`.
    struct Memory {
        var pss = 0
        /// Private_Clean + Private_Dirty: pages no other process maps.
        var own = 0

        init(pid: Int32) {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { return }
            for line in text.split(separator: "\n") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count >= 2, let kilobytes = Int(fields[1]) else { continue }
                switch fields[0] {
                case "Pss:": pss = kilobytes * 1024
                case "Private_Clean:", "Private_Dirty:": own += kilobytes * 1024
                default: break
                }
            }
        }
    }

    /// What runs in a worker process.
    enum Worker {
        static func run(mode: Mode, bundle path: String, socket: String?, serves served: [String]) {
            let keys = (0..<2000).map { "screen\($0 % 50).label_\($0)" }
            warmUp()
            say("started")
            guard Swift.readLine() == "go" else { return }
            let start = Measure.now()
            var sink = 0
            let lookups: () -> Double
            var bundle: LiveBundle?
            // Kept until the worker ends: the memory is measured while it runs.
            var tables: [String: [String: Table]] = [:]
            switch mode {
            case .whole:
                guard let whole = try? LocalizedBundle.load(path: path) else { Console.fail(program, "cannot read \(path)", status: 1) }
                tables = whole.tables.mapValues { $0.mapValues { $0.materialized() } }
                sink &+= tables["fr"]?["Localizable"]?[keys[0]]?.text?.utf8.count ?? 0
                let first = Measure.now() - start
                for language in served {
                    for key in keys.prefix(200) { sink &+= tables[language]?["Localizable"]?[key]?.text?.utf8.count ?? 0 }
                }
                let table = tables["fr"]?["Localizable"] ?? Table()
                lookups = { perLookup(keys) { table[$0]?.text?.utf8.count ?? 0 } }
                say("loaded \(first)")
            case .files, .unshared, .firstStart, .restarted, .shared:
                var options = LiveBundle.Options()
                options.connects = mode != .files
                options.sharesTables = mode == .shared || mode == .firstStart || mode == .restarted
                options.socketPath = socket
                options.reportsMisses = false
                options.environment = ["LANG": "fr_FR.UTF-8", "LANGUAGE": "fr", "XDG_CONFIG_HOME": "/nonexistent"]
                guard let live = try? LiveBundle(path: path, options: options) else { Console.fail(program, "cannot read \(path)", status: 1) }
                sink &+= live.localizedString(forKey: keys[0], value: nil, table: nil).utf8.count
                let first = Measure.now() - start
                // Following lprojd, the first tables (read from the files) are read again once connected — from the
                // images when shared: the memory measured is the state a worker runs in.
                if options.connects { awaitConnection(of: live) }
                for language in served {
                    let view = live.localization(acceptLanguage: language)
                    for key in keys.prefix(200) { sink &+= view.localizedString(forKey: key, value: nil, table: nil).utf8.count }
                }
                lookups = { perLookup(keys) { live.localizedString(forKey: $0, value: nil, table: nil).utf8.count } }
                bundle = live
                say("loaded \(first)")
            }
            let observed = bundle
            let token = observed?.observe { _ in
                if observed?.localizedString(forKey: keys[0], value: nil, table: nil).hasPrefix("changed") == true { say("changed \(Measure.now())") }
            }
            withExtendedLifetime(sink) {}
            while let line = Swift.readLine() {
                if line == "lookups" { say("lookups \(lookups())") }
                // The floor of a save: told by a plain line instead of by a change.
                if line == "ping" { say("changed \(Measure.now())") }
            }
            token?.cancel()
            withExtendedLifetime(tables) {}
        }

        /// Returns once `bundle` follows lprojd (the benchmark stops after 60 s without).
        private static func awaitConnection(of bundle: LiveBundle) {
            let connected = DispatchSemaphore(value: 0)
            let token = bundle.observeConnection { if $0 { connected.signal() } }
            defer { token.cancel() }
            if !bundle.isConnected, connected.wait(timeout: .now() + 60) == .timedOut {
                Console.fail(program, "a worker did not connect to lprojd within 60 s", status: 1)
            }
        }

        /// Writes a line to the benchmark at once (standard output unbuffered).
        private static func say(_ line: String) {
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        }

        /// Foundation, ICU and the lookup code touched once on a bundle of one key, so the memory measured is the tables'.
        private static func warmUp() {
            var template = Array("/tmp/lproj-worker-XXXXXX".utf8CString)
            let directory = String(cString: mkdtemp(&template)!)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try? FileManager.default.createDirectory(atPath: directory + "/en.lproj", withIntermediateDirectories: true)
            try? Data("\"k\" = \"v\";".utf8).write(to: URL(fileURLWithPath: directory + "/en.lproj/Localizable.strings"))
            var options = LiveBundle.Options()
            options.connects = false
            options.environment = ["LANG": "fr_FR.UTF-8"]
            if let bundle = try? LiveBundle(path: directory, options: options) {
                _ = bundle.localization(acceptLanguage: "de").localizedString(forKey: "k", value: nil, table: nil)
            }
            _ = try? LocalizedBundle.load(path: directory)
        }

        /// Nanoseconds per lookup of every key, in rounds (best of 5).
        private static func perLookup(_ keys: [String], _ lookup: (String) -> Int) -> Double {
            var best = Double.infinity
            var sink = 0
            for _ in 0..<5 {
                let start = Measure.threadCPUTime()
                for _ in 0..<50 { for key in keys { sink &+= lookup(key) } }
                best = min(best, (Measure.threadCPUTime() - start) / Double(50 * keys.count))
            }
            withExtendedLifetime(sink) {}
            return best * 1e9
        }
    }

    private static func report(_ results: [Mode: [Round]], workers: Int, languages: Int, keys: Int, bundleBytes: Int, serves served: [String],
                               json: Bool) {
        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
        }
        struct Summary: Encodable {
            var mode: Mode
            var firstLookupMedianSeconds: Double
            var lookupNanoseconds: Double
            var pssPerWorkerBytes: Double
            var ownPerWorkerBytes: Double
            var saveToAllWorkersSeconds: [Double]
            var daemonSeconds: Double
        }
        let summaries = Mode.allCases.map { mode -> Summary in
            let rounds = results[mode] ?? []
            return Summary(mode: mode, firstLookupMedianSeconds: median(rounds.flatMap(\.firstLookupSeconds)),
                           lookupNanoseconds: median(rounds.flatMap(\.lookupNanoseconds)),
                           pssPerWorkerBytes: median(rounds.flatMap { $0.pssBytes.map(Double.init) }),
                           ownPerWorkerBytes: median(rounds.flatMap { $0.privateBytes.map(Double.init) }),
                           saveToAllWorkersSeconds: rounds.flatMap(\.saveSeconds),
                           daemonSeconds: median(rounds.map(\.daemonSeconds)))
        }
        if json {
            Console.out((try? CanonicalJSON.text(encoding: summaries)) ?? "[]")
            return
        }
        let whole = summaries[0], files = summaries[1], unshared = summaries[2], firstStart = summaries[3], restarted = summaries[4]
        let shared = summaries[5]
        func megabytes(_ bytes: Double) -> String { Measure.format(bytes / 1_048_576, 2) + " MB" }
        var lines = ["workers: \(workers) processes at once on \(languages) localizations × \(keys) keys (\(megabytes(Double(bundleBytes))) of .strings); "
                     + "each serves \(served.joined(separator: ", ")) (the first its own, then a request view each); medians of \(results[.whole]?.count ?? 0) rounds"]
        for summary in summaries {
            let name = ["whole": "parse the whole bundle (floor)", "files": "LiveBundle, files, what views need",
                        "unshared": "LiveBundle + lprojd, sharing off", "firstStart": "images, lprojd's first start", "restarted": "images, lprojd restarted",
                        "shared": "LiveBundle + lprojd's images"][summary.mode.rawValue]!
            lines.append("  \(name.padding(toLength: 36, withPad: " ", startingAt: 0)) first lookup \(Measure.format(summary.firstLookupMedianSeconds * 1000, 1)) ms"
                         + " (\(Measure.format(summary.firstLookupMedianSeconds / whole.firstLookupMedianSeconds, 3))×) | per worker: Pss +\(megabytes(summary.pssPerWorkerBytes)),"
                         + " own +\(megabytes(summary.ownPerWorkerBytes)) | lookup \(Measure.format(summary.lookupNanoseconds, 1)) ns"
                         + (summary.mode == .whole ? " (a bare table)" : " (\(Measure.format(summary.lookupNanoseconds / files.lookupNanoseconds, 2))× the parsed tables')"))
        }
        func saves(_ summary: Summary) -> String {
            let sorted = summary.saveToAllWorkersSeconds.sorted()
            guard !sorted.isEmpty else { return "none" }
            return "median \(Measure.format(sorted[sorted.count / 2] * 1000, 1)) ms, max \(Measure.format(sorted[sorted.count - 1] * 1000, 1)) ms"
        }
        func median(of summary: Summary) -> Double {
            let sorted = summary.saveToAllWorkersSeconds.sorted()
            return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
        }
        let floorMedian = median(of: whole)
        lines.append("  save → every worker has the new value (\(shared.saveToAllWorkersSeconds.count) saves): images \(saves(shared)) "
                     + "(\(Measure.format(median(of: shared) / floorMedian, 2))× the floor's median); sharing off \(saves(unshared)) "
                     + "(\(Measure.format(median(of: unshared) / floorMedian, 2))×); floor (the save seen with inotify, a line to each "
                     + "worker) \(saves(whole))")
        func ratio(_ summary: Summary) -> String {
            "\(Measure.format(summary.firstLookupMedianSeconds * 1000, 2)) ms (\(Measure.format(summary.firstLookupMedianSeconds / files.firstLookupMedianSeconds, 3))×)"
        }
        lines.append("  first lookup beside the files' \(Measure.format(files.firstLookupMedianSeconds * 1000, 2)) ms: mapping what lprojd published "
                     + "\(ratio(shared)); right after it restarted (it published again what it had) \(ratio(restarted)); "
                     + "right after its first start (nothing published: the files) \(ratio(firstStart))")
        lines.append("  lprojd's CPU while the workers started: images \(Measure.format(shared.daemonSeconds * 1000, 0)) ms, "
                     + "restarted \(Measure.format(restarted.daemonSeconds * 1000, 0)) ms, first start \(Measure.format(firstStart.daemonSeconds * 1000, 0)) ms, sharing off \(Measure.format(unshared.daemonSeconds * 1000, 0)) ms")
        let met = shared.ownPerWorkerBytes <= 1_048_576 && shared.firstLookupMedianSeconds <= 0.2 * whole.firstLookupMedianSeconds
            && shared.lookupNanoseconds <= 1.05 * files.lookupNanoseconds
        lines.append("  goal: own memory per worker ≤ 1 MB, first lookup ≤ 0.2× the floor's, lookups ≤ 1.05× parsed tables' — \(met ? "met" : "NOT met")")
        Console.out(lines.joined(separator: "\n"))
    }

    static let help = """
        Usage: lproj-bench workers [--workers N] [--languages N] [--keys N] [--serves N] [--rounds N] [--saves N] [--json]

        Generates a bundle of N localizations (default 50) of N keys (default
        2,000) and starts a real lprojd on it; then, in each of --rounds rounds
        (default 3), starts --workers processes (default 16) at once six
        ways: each parsing the whole bundle (the floor), LiveBundle reading
        from the files only what its views need (no daemon), LiveBundle
        following lprojd with sharing off, and LiveBundle with lprojd's
        shared images: right after lprojd's first start (its state
        directory's published-images removed: nothing is published, its
        first views read the files), right after lprojd restarted (it
        published again what it had published), and while lprojd runs
        (its first views map what lprojd published for the workers before).
        The bundle's directories are for every user to read, as deployed
        resources are (lprojd publishes only such tables). Every worker
        serves the first --serves (default 4) of fr, de, ja, es, it, pt-BR,
        ko, ru: fr its own language, the others through a request's view
        each. Prints the median first lookup from a worker's start, its Pss
        and own (private) memory grown while reading its tables (from
        /proc/PID/smaps_rollup, all workers running), lookups in its tables
        (one worker at a time), and, following lprojd, --saves saves a round
        (default 2), each timed until every worker has the new value, beside
        the floor: the same save in a directory of its own seen with inotify
        and a line written to each worker (the whole-bundle workers) by a
        plain loop, each answering as on a change.
        """
}
