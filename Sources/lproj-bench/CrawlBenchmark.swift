import CLinux
import Foundation
import LprojCommandLine
import LprojWatch

/// `lproj-bench crawl`: a big tree (5,000 .lproj directories, 50,000 tables)
/// from start to ready, and the daemon's memory, beside a plain read of every file.
enum CrawlBenchmark {
    static func run(_ argv: [String]) {
        guard let (arguments, bundles, rounds) = treeArguments(argv, command: "\(program) crawl", help: help) else { return }
        let daemon = DaemonUnderTest()
        let (paths, totalBytes) = generateTree(in: daemon.root, bundles: bundles)
        let languages = Self.languages
        // Rounds alternate the peer (open and read every file, cache warm as
        // it is for the daemon) and the daemon, so that both meet the
        // machine's drift alike; the best round of each counts.
        var plains: [Double] = [], floors: [Double] = [], readies: [Double] = []
        var resident = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        for _ in 0..<rounds {
            var start = Measure.now()
            for path in paths {
                let descriptor = open(path, O_RDONLY | O_CLOEXEC)
                while read(descriptor, &buffer, buffer.count) > 0 {}
                close(descriptor)
            }
            plains.append(Measure.now() - start)
            start = Measure.now()
            watchAndRead(daemon.root, &buffer)
            floors.append(Measure.now() - start)
            readies.append(daemon.start())
            resident = max(resident, daemon.residentBytes)
            daemon.stop()
        }
        // The best round of the plain read (as before), and the medians the watcher's goal is set on.
        let plain = plains.min() ?? .infinity, ready = readies.min() ?? .infinity
        let medianReady = median(readies), medianFloor = median(floors)
        let megabytes = Double(totalBytes) / 1e6
        if arguments.has("json") {
            struct Report: Encodable {
                var localizations: Int; var tables: Int; var bytes: Int
                var plainReadSeconds: Double; var readySeconds: Double; var readyRatio: Double
                var floorMedianSeconds: Double; var readyMedianSeconds: Double; var floorRatio: Double
                var residentBytes: Int; var residentRatio: Double
            }
            Console.out((try? CanonicalJSON.text(encoding: Report(localizations: bundles * languages.count, tables: paths.count, bytes: totalBytes,
                                                                  plainReadSeconds: plain, readySeconds: ready, readyRatio: ready / plain,
                                                                  floorMedianSeconds: medianFloor, readyMedianSeconds: medianReady,
                                                                  floorRatio: medianReady / medianFloor,
                                                                  residentBytes: resident, residentRatio: Double(resident) / Double(totalBytes)))) ?? "{}")
        } else {
            Console.out("""
                crawl: \(bundles * languages.count) .lproj directories, \(paths.count) tables, \(Measure.format(megabytes)) MB (best of \(rounds))
                  plain read of every file:  \(Measure.format(plain * 1000, 0)) ms
                  lprojd start → ready:      \(Measure.format(ready * 1000, 0)) ms (\(Measure.format(ready / plain, 2))× the plain read)
                  the floor (the same read, and the watcher's directory listings and inotify watches), median: \(Measure.format(medianFloor * 1000, 0)) ms
                  lprojd start → ready, median: \(Measure.format(medianReady * 1000, 0)) ms: \(Measure.format(medianReady / medianFloor, 2))× the floor — goal ≤ 1.3×: \(met(medianReady <= 1.3 * medianFloor))
                  lprojd resident memory:    \(Measure.format(Double(resident) / 1e6)) MB (\(Measure.format(Double(resident) / Double(totalBytes), 2))× the files)
                  goals: ready ≤ 2× the plain read — \(met(ready <= 2 * plain)), ≤ 1.3× (issue 24) — \(met(ready <= 1.3 * plain)); \
                memory ≤ 2× the files — \(met(Double(resident) <= 2 * Double(totalBytes))), ≤ 1.5× (issue 24) — \(met(Double(resident) <= 1.5 * Double(totalBytes)))
                """)
        }
    }

    private static func met(_ goal: Bool) -> String { goal ? "met" : "NOT met" }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .infinity : sorted[sorted.count / 2]
    }

    /// What no watcher can avoid: every directory listed and given an inotify watch (the daemon's mask),
    /// every file read — the floor the crawl is measured against.
    private static func watchAndRead(_ root: String, _ buffer: inout [UInt8]) {
        let inotify = inotify_init1(Int32(IN_CLOEXEC))
        defer { close(inotify) }
        let mask = WatchedTree.inotifyMask
        var directories = [root]
        while let directory = directories.popLast() {
            _ = inotify_add_watch(inotify, directory, mask)
            guard let listing = opendir(directory) else { continue }
            while let entry = readdir(listing) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name == "." || name == ".." { continue }
                let path = directory + "/" + name
                if entry.pointee.d_type == UInt8(DT_DIR) {
                    directories.append(path)
                } else {
                    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
                    while read(descriptor, &buffer, buffer.count) > 0 {}
                    close(descriptor)
                }
            }
            closedir(listing)
        }
    }

    /// `--bundles N --rounds N --json --help`, as the benchmarks on the crawl's
    /// tree take them; nil when help was printed.
    static func treeArguments(_ argv: [String], command: String, help: String) -> (arguments: Arguments, bundles: Int, rounds: Int)? {
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json"], options: ["bundles", "rounds"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") {
            Console.out(help)
            return nil
        }
        guard let bundles = Int(arguments.value("bundles") ?? "500"), bundles > 0,
              let rounds = Int(arguments.value("rounds") ?? "5"), rounds > 0 else {
            Console.usage(command, UsageError("--bundles and --rounds take positive numbers"))
        }
        return (arguments, bundles, rounds)
    }

    /// The languages of each generated bundle.
    static let languages = ["en", "fr", "de", "es", "it", "ja", "ko", "zh-Hans", "zh-Hant", "ar"]

    /// Writes the crawl's tree under `root`: `bundles` bundles of 10
    /// localizations of 10 tables of 20 keys; a table whose number is in
    /// `edited` says so in its first value. Returns the files and their bytes.
    static func generateTree(in root: String, bundles: Int, edited: Set<Int> = []) -> (paths: [String], bytes: Int) {
        var paths: [String] = []
        var totalBytes = 0
        for bundle in 0..<bundles {
            for language in languages {
                let directory = root + "/b\(bundle)/Resources/\(language).lproj"
                try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                for table in 0..<10 {
                    var text = "/* Bundle \(bundle), \(language), table \(table) */\n"
                    for key in 0..<20 {
                        let label = key == 0 && edited.contains(paths.count) ? "Edited label" : "Label"
                        text += "\"screen\(table)_label_\(key)\" = \"\(label) \(key) of screen \(table) in \(language) for bundle \(bundle)\";\n"
                    }
                    let path = directory + "/Table\(table).strings"
                    try? Data(text.utf8).write(to: URL(fileURLWithPath: path))
                    paths.append(path)
                    totalBytes += text.utf8.count
                }
            }
        }
        return (paths, totalBytes)
    }

    static let help = """
        Usage: lproj-bench crawl [--bundles N] [--rounds N] [--json]

        Generates N bundles (default 500) of 10 localizations with 10 tables of 20
        keys each (default: 5,000 .lproj directories, 50,000 tables), then
        measures a plain open+read of every file; the floor a watcher cannot go
        below — the same read that also lists every directory and adds each an
        inotify watch with the daemon's mask; and a real lprojd's start → ready
        (it detaches when it serves) and its resident memory, in alternating
        rounds (default 5): the best round against the plain read, the medians
        against the floor (goal ≤ 1.3×).
        """
}
