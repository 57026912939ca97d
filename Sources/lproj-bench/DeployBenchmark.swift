import Foundation
import LprojClient
import LprojCommandLine
import LprojProtocol

/// `lproj-bench deploy`: what following deploys costs on the crawl's tree
/// (50,000 tables) — a poll of a polled root (`Poll=on`), in CPU time,
/// beside `find` listing the same metadata; and a release swap (`current`
/// renamed over to the next release, 1% of its tables edited) until every
/// change is published, beside a restart of the daemon on the new release.
enum DeployBenchmark {
    static func run(_ argv: [String]) {
        guard let (arguments, bundles, rounds) = CrawlBenchmark.treeArguments(argv, command: "\(program) deploy", help: help) else { return }
        let daemon = DaemonUnderTest()
        let releases = daemon.directory + "/releases"
        let (paths, _) = CrawlBenchmark.generateTree(in: releases + "/1", bundles: bundles)
        let edited = Set(stride(from: 0, to: paths.count, by: 100))
        _ = CrawlBenchmark.generateTree(in: releases + "/2", bundles: bundles, edited: edited)
        let current = daemon.directory + "/current"
        symlink("releases/1", current)

        // Polling: lprojd's main thread's CPU time per poll, beside find(1)'s for one listing of the same metadata.
        let config = daemon.directory + "/poll.conf"
        try? Data("[Watch]\nPoll=on \(releases)/1\nPollInterval=300ms\n".utf8).write(to: URL(fileURLWithPath: config))
        daemon.start(extraArguments: ["--root", releases + "/1", "--config", config])
        var pollSeconds = Double.infinity
        var findSeconds = Double.infinity
        for _ in 0..<rounds {
            findSeconds = min(findSeconds, childCPUSeconds("/usr/bin/find", [releases + "/1", "-printf", "%i %s %T@ %C@\n"]))
            let (polls, cpu) = (self.polls(daemon), mainThreadCPUSeconds(daemon.pid))
            var now = polls
            while now < polls + 3 {
                usleep(50_000)
                now = self.polls(daemon)
            }
            pollSeconds = min(pollSeconds, (mainThreadCPUSeconds(daemon.pid) - cpu) / Double(now - polls))
        }
        daemon.stop()

        // A release swap, published, beside a restart on the new release.
        var swapSeconds: [Double] = []
        var restartSeconds = Double.infinity
        var changes = 0
        for round in 0..<rounds {
            restartSeconds = min(restartSeconds, daemon.start(extraArguments: ["--root", current]))
            guard let connection = try? DaemonConnection(path: daemon.socket),
                  (try? connection.send(Hello(client: "lproj-bench deploy"))) != nil,
                  (try? connection.send(Subscribe(name: "all"))) != nil else {
                Console.fail(program, "cannot subscribe", status: 1)
            }
            let next = round % 2 == 0 ? "releases/2" : "releases/1"
            unlink(daemon.directory + "/current.tmp")
            symlink(next, daemon.directory + "/current.tmp")
            let started = Measure.now()
            rename(daemon.directory + "/current.tmp", current)
            guard (try? connection.send(Sync(), timeout: .seconds(120))) != nil else { Console.fail(program, "sync failed", status: 1) }
            swapSeconds.append(Measure.now() - started)
            changes = 0
            while let event = try? connection.nextEvent(timeout: .milliseconds(1)) {
                if event.name == TableChanged.name { changes += 1 }
            }
            daemon.stop()
            // The next restart runs on the release the link leads to now.
        }
        let swap = swapSeconds.min()!
        if arguments.has("json") {
            struct Report: Encodable {
                var tables: Int; var pollCPUSeconds: Double; var findCPUSeconds: Double; var pollRatio: Double
                var swapSeconds: Double; var restartSeconds: Double; var swapRatio: Double; var tablesChanged: Int
            }
            Console.out((try? CanonicalJSON.text(encoding: Report(tables: paths.count, pollCPUSeconds: pollSeconds, findCPUSeconds: findSeconds,
                                                                  pollRatio: pollSeconds / findSeconds, swapSeconds: swap,
                                                                  restartSeconds: restartSeconds, swapRatio: swap / restartSeconds,
                                                                  tablesChanged: changes))) ?? "{}")
        } else {
            Console.out("""
                deploy: \(paths.count) tables, best of \(rounds)
                  one poll of the polled root (CPU):    \(Measure.format(pollSeconds * 1000, 1)) ms (\(Measure.format(pollSeconds / findSeconds, 2))× find listing the same metadata: \(Measure.format(findSeconds * 1000, 1)) ms)
                  release swap → every change published: \(Measure.format(swap * 1000, 0)) ms for \(changes) changed tables (\(Measure.format(swap / restartSeconds, 2))× a restart on the new release: \(Measure.format(restartSeconds * 1000, 0)) ms)
                """)
        }
    }

    /// The daemon's `polls` counter.
    private static func polls(_ daemon: DaemonUnderTest) -> UInt64 {
        guard let connection = try? DaemonConnection(path: daemon.socket),
              let status = try? connection.send(Status()) else { Console.fail(program, "no status", status: 1) }
        return status.counters["polls"] ?? 0
    }

    /// CPU time of the main thread of `pid` (where lprojd polls), from /proc/PID/task/PID/schedstat (nanoseconds).
    private static func mainThreadCPUSeconds(_ pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/schedstat", encoding: .utf8),
              let nanoseconds = Double(text.split(separator: " ").first ?? "") else { return 0 }
        return nanoseconds / 1e9
    }

    /// User and system CPU time of running `executable` once (output discarded).
    private static func childCPUSeconds(_ executable: String, _ arguments: [String]) -> Double {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        var child: pid_t = 0
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let spawned = posix_spawn(&child, executable, &actions, nil, argv, environ)
        posix_spawn_file_actions_destroy(&actions)
        for pointer in argv { free(pointer) }
        guard spawned == 0 else { Console.fail(program, "cannot run \(executable)", status: 1) }
        var status: Int32 = 0
        var usage = rusage()
        wait4(child, &status, 0, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    static let help = """
        Usage: lproj-bench deploy [--bundles N] [--rounds N] [--json]

        On the crawl's tree (N bundles, default 500: 50,000 tables) measures
        the CPU time of one poll of a root with Poll=on (lprojd's main thread,
        over polls every 300 ms) beside find(1) printing the same metadata
        (inode, size, times), and a release swap (current renamed over to the
        other release, 1% of whose tables differ) until a sync after it is
        answered, beside a restart of lprojd on that release; best of
        --rounds (default 5).
        """
}
