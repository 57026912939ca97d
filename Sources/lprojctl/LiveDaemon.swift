import Foundation
import LprojClient
import LprojCommandLine
import LprojProtocol

/// What the live commands share: reaching the daemon and reporting failures.
enum LiveDaemon {
    /// The `--socket` option every live command takes.
    static let socketHelp = """
          --socket PATH   the daemon's socket (default: $LPROJD_SOCKET, else
                          /run/lprojd/lprojd.sock for root, else
                          $XDG_RUNTIME_DIR/lprojd.sock, else /tmp/lprojd-$UID/lprojd.sock)
        """

    /// Exit status when no daemon answers.
    static let unreachableStatus: Int32 = 3

    /// The arguments of a live command that takes no operands: `--help`
    /// (printed, then exit 0) and `--socket` come with every one.
    static func arguments(_ argv: [String], command: String, help: String, flags: Set<String> = [], options: Set<String> = []) -> Arguments {
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: flags.union(["help"]), options: options.union(["socket"]))
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") {
            Console.out(help)
            exit(0)
        }
        if let operand = arguments.operands.first { Console.usage(command, UsageError("unexpected argument '\(operand)'")) }
        return arguments
    }

    /// A connection that has said hello, or an exit naming the socket (status 3).
    static func connect(_ arguments: Arguments, client: String, app: String? = nil) -> (DaemonConnection, Hello.Reply) {
        do {
            let connection = try DaemonConnection(path: arguments.value("socket"))
            let hello = try connection.send(Hello(client: client, app: app))
            return (connection, hello)
        } catch {
            if case .refused = error { Console.fail(program, error.description, status: 1) }
            Console.fail(program, error.description, status: unreachableStatus)
        }
    }

    /// Sends `request`, or exits: 1 when the daemon refused it, 3 when it went away.
    static func send<R: Request>(_ request: R, on connection: DaemonConnection) -> R.Reply {
        do {
            return try connection.send(request)
        } catch {
            if case .refused = error { Console.fail(program, error.description, status: 1) }
            Console.fail(program, error.description, status: unreachableStatus)
        }
    }

    /// An entry for people: a plain string quoted, a rule as compact JSON.
    static func describe(_ entry: (some Encodable)?) -> String {
        guard let entry, let text = try? CanonicalJSON.text(encoding: entry) else { return "(none)" }
        return text
    }
}
