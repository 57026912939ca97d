import Foundation
import LprojClient
import LprojCommandLine
import LprojPaths
import LprojProtocol

/// `lprojctl batch`: a command's changes to bundles published as one generation.
enum BatchCommand {
    static let help = """
        Usage: lprojctl batch --bundle PATH [--bundle PATH]... [--socket PATH] -- COMMAND [ARGUMENT...]

        Runs COMMAND (a deploy script, git checkout, rsync, cp -r …) while
        lprojd holds the bundles' changes back, and publishes every change it
        made under each bundle as one generation when it exits: a process
        following the bundle swaps the new tables in together (one observer
        call), never a mix of old and new files. Prints each bundle's new
        generation (lprojctl wait --generation N waits until every process
        shows it).

        The daemon keeps changes back for at most [Limits] MaxHold= (default
        60 s): a command that runs longer has them published then (the
        daemon's log says so), never wedged. A failing command's changes are
        published all the same, once.

        Options:
          --bundle PATH   a bundle whose changes go together (repeat for more)
        \(LiveDaemon.socketHelp)

        Exit status: COMMAND's own (128 + N for a signal N); 1 the daemon
        refused (a bundle it does not serve, held by another process), 2
        usage error, 3 no daemon answers, 127 COMMAND could not be run.
        """

    static func run(_ argv: [String]) {
        let command = "\(program) batch"
        guard let separator = argv.firstIndex(of: "--") else {
            if argv.contains("--help") || argv.contains("-h") { Console.out(help); exit(0) }
            Console.usage(command, UsageError("give the command after --: lprojctl batch --bundle PATH -- COMMAND"))
        }
        let arguments = LiveDaemon.arguments(Array(argv[..<separator]), command: command, help: help, options: ["bundle"])
        let commandLine = Array(argv[(separator + 1)...])
        guard let executable = commandLine.first else { Console.usage(command, UsageError("no COMMAND after --")) }
        let bundles = arguments.values("bundle").map { PathText.tidy(PathText.absolute($0)) }
        guard !bundles.isEmpty else { Console.usage(command, UsageError("--bundle is required")) }
        let (connection, _) = LiveDaemon.connect(arguments, client: "lprojctl batch")
        for bundle in bundles { _ = LiveDaemon.send(Hold(bundle: bundle), on: connection) }

        let status = Self.runToEnd(executable, Array(commandLine.dropFirst()))
        // Every change the command made is read (and kept back) once `sync` answers: then released together.
        _ = LiveDaemon.send(Sync(), on: connection)
        for bundle in bundles {
            let released = LiveDaemon.send(Release(bundle: bundle), on: connection)
            if let generation = released.generation {
                Console.out("\(bundle): generation \(generation) (\(released.tables) table file\(released.tables == 1 ? "" : "s") read)")
            } else {
                Console.out("\(bundle): nothing changed")
            }
        }
        exit(status)
    }

    /// Runs the command with this process's standard streams; its exit status (128 + N for a signal N, 127 when it cannot run).
    private static func runToEnd(_ executable: String, _ arguments: [String]) -> Int32 {
        var child: pid_t = 0
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let spawned = posix_spawnp(&child, executable, nil, nil, argv, environ)
        guard spawned == 0 else {
            Console.error("\(program) batch: cannot run \(executable): \(String(cString: strerror(spawned)))")
            return 127
        }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
