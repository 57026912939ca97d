import Foundation
import LprojCommandLine
import LprojPaths
import LprojStudio

/// `lprojctl studio`: the translator's workbench in the browser.
enum StudioCommand {
    static let help = """
        Usage: lprojctl studio [--listen ADDRESS:PORT] [--socket PATH] [BUNDLE...]

        Starts a local web server over the running lprojd and prints, on the first
        line of standard output, the address to open with its access token:
        http://127.0.0.1:PORT/?token=... The page shows every bundle the daemon
        serves (or the BUNDLEs named) with each language's coverage, runtime misses
        and problems; a table's keys side by side with the development text, to
        filter, search and edit in place (Enter saves, Shift+Enter a new line,
        Escape cancels). A save goes through the same writer as lprojctl set
        (every other byte kept, locked, versioned, refused with the problem when
        the checks fail), with your own permissions; an edit made anywhere shows
        in every open page at once. Runs until interrupted (Ctrl-C).

        Security: it listens on loopback unless --listen names another address
        (then a warning); every request needs the token; requests for another host
        name, and changes from another origin, are refused.

        Options:
          --listen ADDRESS:PORT   where to listen (default 127.0.0.1:0, a free port;
                                  IPv6 as [::1]:PORT)
        \(LiveDaemon.socketHelp)

        Exit status: 0 after an interrupt, 2 usage error or the address cannot be used.
        """

    static func run(_ argv: [String]) {
        let command = "\(program) studio"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help"], options: ["listen", "socket"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        let (host, port) = listenAddress(arguments.value("listen") ?? "127.0.0.1:0", command: command)
        if host != "127.0.0.1", host != "::1" {
            Console.error("\(program): warning: the studio listens on \(host), not loopback: anyone who reaches it and has the token can edit tables")
        }
        var bundles: [String]?
        if !arguments.operands.isEmpty {
            bundles = arguments.operands.map { PathText.tidy(PathText.absolute($0)) }
        }
        let studio: Studio
        do {
            studio = try Studio(host: host, port: port, socket: arguments.value("socket"), bundles: bundles)
        } catch {
            Console.fail(program, "studio: \(error)", status: 2)
        }
        Console.out(studio.address)
        // Until SIGINT or SIGTERM.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        var received: Int32 = 0
        sigwait(&signals, &received)
        studio.stop()
        exit(0)
    }

    /// `ADDRESS:PORT`, `[IPv6]:PORT`; a usage error otherwise.
    static func listenAddress(_ text: String, command: String) -> (String, UInt16) {
        var host = text, portText = ""
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = String(text[close...].dropFirst().drop { $0 == ":" })
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = String(text[text.index(after: colon)...])
        }
        guard !host.isEmpty, let port = UInt16(portText) else {
            Console.usage(command, UsageError("--listen takes ADDRESS:PORT (127.0.0.1:8080, [::1]:0), not '\(text)'"))
        }
        return (host, port)
    }
}
