import Foundation
import LprojCommandLine
import LprojEditing
import LprojFormats
import LprojTables

/// `lproj-bench edit`: a `set` through the one writer (lock, version,
/// checks, format-preserving edit read back, atomic replace) beside a plain
/// rewrite of the whole file (parse, change the value, write every entry
/// again, atomic replace), alternating, on the same table; then save →
/// subscriber latency of a real lprojd for the writer's saves and for the
/// plain rewrites.
enum EditBenchmark {
    static func run(_ argv: [String]) {
        let command = "\(program) edit"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "json"], options: ["keys", "rounds", "saves"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        guard let keys = Int(arguments.value("keys") ?? "10000"), keys > 0,
              let rounds = Int(arguments.value("rounds") ?? "60"), rounds > 0,
              let saves = Int(arguments.value("saves") ?? "100"), saves > 0 else {
            Console.usage(command, UsageError("--keys, --rounds and --saves take positive numbers"))
        }

        // 1. The writer beside the plain rewrite, in this process.
        let daemon = DaemonUnderTest()
        let bundle = daemon.translatedBundle(keys: keys)
        let file = bundle + "/de.lproj/Localizable.strings"
        guard let writer = try? TableWriter(bundle: bundle) else { Console.fail(program, "cannot open the generated bundle", status: 1) }
        var writerTimes: [Double] = [], plainTimes: [Double] = []
        for round in 0..<rounds {
            let value = "save \(round)"
            let start = Measure.now()
            do {
                _ = try writer.set("k0000", to: value, language: "de")
            } catch {
                Console.fail(program, "the writer failed: \(error)", status: 1)
            }
            let middle = Measure.now()
            plainRewrite(file, key: "k0000", value: value + " (plain)")
            let end = Measure.now()
            writerTimes.append(middle - start)
            plainTimes.append(end - middle)
        }
        let writerResult = Distribution(seconds: writerTimes), plainResult = Distribution(seconds: plainTimes)

        // 2. Save → subscriber, both ways, on a real daemon.
        daemon.start()
        guard var subscriber = RawSubscriber(socket: daemon.socket) else { Console.fail(program, "cannot subscribe", status: 1) }
        var setLatencies: [Double] = [], plainLatencies: [Double] = []
        for save in 0..<saves {
            let value = "latency \(save)"
            let start = Measure.now()
            if save % 2 == 0 {
                _ = try? writer.set("k0000", to: value, language: "de")
            } else {
                plainRewrite(file, key: "k0000", value: value)
            }
            let needle = "\"k0000\":\"\(value)\""
            while true {
                guard let line = subscriber.readLine(timeoutMilliseconds: 10_000) else { Console.fail(program, "no event for save \(save)", status: 1) }
                if line.contains(needle) { break }
            }
            (save % 2 == 0 ? { setLatencies.append(Measure.now() - start) } : { plainLatencies.append(Measure.now() - start) })()
        }
        daemon.stop()
        let setResult = Distribution(seconds: setLatencies), plainSaveResult = Distribution(seconds: plainLatencies)
        let ratio = writerResult.p50 / plainResult.p50
        if arguments.has("json") {
            struct Report: Encodable {
                var keys: Int; var writer: Distribution; var plainRewrite: Distribution; var p50Ratio: Double
                var setToSubscriber: Distribution; var plainSaveToSubscriber: Distribution
            }
            Console.out((try? CanonicalJSON.text(encoding: Report(keys: keys, writer: writerResult, plainRewrite: plainResult, p50Ratio: ratio,
                                                                  setToSubscriber: setResult, plainSaveToSubscriber: plainSaveResult))) ?? "{}")
        } else {
            Console.out("""
                edit: set one value of a \(keys)-key de.lproj/Localizable.strings (en beside it), \(rounds) rounds each, alternating
                  plain rewrite (parse, set, write every entry, fsync, rename): \(plainResult.text)
                  TableWriter.set (lock, version, checks, edit in place read back, fsync, rename): \(writerResult.text)
                  p50 ratio writer / plain rewrite: \(Measure.format(ratio, 2))× — goal ≤ 1.2×: \(ratio <= 1.2 ? "met" : "NOT met")
                save → subscriber (a real lprojd), \(saves) saves alternating:
                  TableWriter.set:  \(setResult.text)
                  plain rewrite:    \(plainSaveResult.text)
                """)
        }
    }

    /// What a tool without the writer does: parse the table, change the
    /// value, write every entry again (sorted, UTF-8), replace the file
    /// atomically (temporary, fsync, rename).
    static func plainRewrite(_ path: String, key: String, value: String) {
        guard let data = FileManager.default.contents(atPath: path) else { Console.fail(program, "cannot read \(path)", status: 1) }
        var entries = StringsFile(bytes: data, path: path).table.entries
        entries[key] = Entry(text: value)
        guard let text = try? StringsWriter.text(for: Table(entries)) else { Console.fail(program, "cannot write \(path)", status: 1) }
        let temporary = (path as NSString).deletingLastPathComponent + "/.plain.tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(descriptor, $0.baseAddress, $0.count) }
        fsync(descriptor)
        close(descriptor)
        rename(temporary, path)
        let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY)
        fsync(directory)
        close(directory)
    }

    static let help = """
        Usage: lproj-bench edit [--keys N] [--rounds N] [--saves N] [--json]

        Sets one value of a generated de.lproj/Localizable.strings (default
        10,000 keys, with en beside it as the development table) through
        TableWriter — what lprojctl set and the studio do: lock, version, the
        checks, the edit in place read back, fsync and rename — and by a plain
        rewrite of the whole file (parse, set, write every entry, fsync,
        rename), alternating for N rounds each (default 60); prints p50/p99 wall
        time of both and their ratio (goal ≤ 1.2×). Then a real lprojd (the
        binary beside this one) watches the bundle and --saves (default 100)
        saves alternate between the two, each timed from its start to the
        subscriber's event.
        """
}
