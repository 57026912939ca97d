import Foundation
import LprojCommandLine
import LprojPaths
import LprojProtocol

/// `lprojctl wait`: a barrier for deploys — returns once every process following the bundles shows their generation.
enum WaitCommand {
    static let help = """
        Usage: lprojctl wait [--bundle PATH]... [--generation N] [--timeout SECONDS] [--json] [--socket PATH]

        Waits until every process following the bundles (every bundle served,
        without --bundle) shows generation N of each (default: the current
        one, once every change made before the command is published) — its
        tables swapped in, acknowledged to the daemon — and exits 0.
        A process follows a bundle with a subscription that covers it
        (LiveBundle acknowledges with no code in the app); one that never
        acknowledges (an older client) is listed, not waited on. At the
        timeout it exits 1 and lists each process that lags: pid, app, the
        generation it shows and for how long, or why it could not take it.

        Every save (or batch of saves the daemon publishes together) makes a
        bundle's next generation; lprojctl list shows each bundle's.

        Options:
          --bundle PATH        a bundle to wait for (repeat for more)
          --generation N       the generation to wait for (default: the current one)
          --timeout SECONDS    give up after this long (default 30, at most 86400)
          --json               print the daemon's reply as JSON
        \(LiveDaemon.socketHelp)

        Exit status: 0 every process shows it, 1 the timeout passed (or the
        daemon refused: an unknown bundle), 2 usage error, 3 no daemon answers.
        """

    static func run(_ argv: [String]) {
        let command = "\(program) wait"
        let arguments = LiveDaemon.arguments(argv, command: command, help: help, flags: ["json"], options: ["bundle", "generation", "timeout"])
        var generation: UInt64?
        if let text = arguments.value("generation") {
            guard let number = UInt64(text), number > 0 else { Console.usage(command, UsageError("--generation: '\(text)' is not a generation (1 or more)")) }
            generation = number
        }
        var timeout = 30.0
        if let text = arguments.value("timeout") {
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 86_400 else {
                Console.usage(command, UsageError("--timeout: '\(text)' is not 0 to 86400 seconds"))
            }
            timeout = seconds
        }
        let bundles = arguments.values("bundle").map { PathText.tidy(PathText.absolute($0)) }
        let (connection, _) = LiveDaemon.connect(arguments, client: "lprojctl wait")
        // Every change made before this command is published first: "the current generation" then includes the files a
        // deploy just wrote (the watcher may not have read them yet).
        _ = LiveDaemon.send(Sync(), on: connection)
        let reply: Wait.Reply
        do {
            reply = try connection.send(Wait(bundles: bundles.isEmpty ? nil : bundles, generation: generation, timeout: timeout),
                                        timeout: .milliseconds(Int64(timeout * 1000)) + .seconds(10))
        } catch {
            if case .refused = error { Console.fail(program, error.description, status: 1) }
            Console.fail(program, error.description, status: LiveDaemon.unreachableStatus)
        }
        if arguments.has("json") {
            Console.out((try? CanonicalJSON.text(encoding: reply)) ?? "{}")
        } else {
            let targets = reply.generations.map { "\($0.bundle) generation \($0.generation)" }
            if reply.done {
                Console.out("shown everywhere: " + (targets.isEmpty ? "no bundle is served" : targets.joined(separator: ", ")))
            } else {
                Console.out("timed out after \(Self.seconds(timeout)) waiting for " + targets.joined(separator: ", "))
            }
            for follower in reply.lagging {
                let target = reply.generations.first { Array($0.bundle.utf8) == Array(follower.bundle.utf8) }?.generation
                Console.out("  " + Self.describe(follower, target: target))
            }
        }
        exit(reply.done ? 0 : 1)
    }

    /// One lagging process, for people.
    static func describe(_ follower: Wait.Follower, target: UInt64?) -> String {
        let who = "pid \(follower.pid)" + (follower.uid.map { " uid \($0)" } ?? "") + (follower.app.map { " (\($0))" } ?? "")
            + (follower.client.map { " \($0)" } ?? "")
        guard follower.acknowledges else { return "\(who): follows \(follower.bundle) but does not acknowledge generations (not waited on)" }
        if let refused = follower.refused {
            return "\(who): could not take generation \(follower.generation ?? 0) of \(follower.bundle): \(refused)"
        }
        guard let shown = follower.generation else { return "\(who): has acknowledged no generation of \(follower.bundle) yet" }
        let since = follower.seconds.map { " for \(Self.seconds($0))" } ?? ""
        return "\(who): shows generation \(shown) of \(follower.bundle)\(since)" + (target.map { ", not \($0)" } ?? "")
    }

    static func seconds(_ value: Double) -> String {
        value < 10 ? String(format: "%.1f s", value) : "\(Int(value)) s"
    }
}
