import Foundation
import LprojCommandLine
import LprojPaths
import LprojStudio

/// `lprojctl studio`: the translator's workbench in the browser.
enum StudioCommand {
    static let help = """
        Usage: lprojctl studio [--listen ADDRESS[:PORT]] [--port PORT] [--new-token] [--socket PATH] [BUNDLE...]

        Starts a local web server over the running lprojd and prints, on the first
        line of standard output, the address to open with its access token:
        http://127.0.0.1:PORT/?token=... The page shows every bundle the daemon
        serves (or the BUNDLEs named) with each language's coverage, runtime misses
        and problems; a table's keys side by side with the development text, to
        filter, search and edit from the keyboard (? lists the keys). A save goes through the same writer as lprojctl set
        (every other byte kept, locked, versioned, refused with the problem when
        the checks fail), with your own permissions; an edit made anywhere shows
        in every open page at once. Runs until interrupted (Ctrl-C).

        Security: it listens on loopback unless --listen names another address
        (then a warning); every request needs the token; requests for another host
        name, and changes from another origin, are refused.

        The address stays the same from run to run, so bookmarks of its views
        keep working: the port and token are kept in $XDG_STATE_HOME/lprojd/studio
        (default ~/.local/state/lprojd/studio, readable only by you). When the kept
        port is taken, a free one is used and kept instead (said on standard error).

        Options:
          --listen ADDRESS[:PORT] where to listen (default 127.0.0.1, on the kept port,
                                  else a free one; IPv6 as [::1]:PORT)
          --port PORT             the port (on loopback unless --listen names an address)
          --new-token             make a new token (every open page and bookmark must
                                  be given the new address)
        \(LiveDaemon.socketHelp)

        Exit status: 0 after an interrupt, 2 usage error or the address cannot be used.
        """

    static func run(_ argv: [String]) {
        let command = "\(program) studio"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help", "new-token"], options: ["listen", "port", "socket"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        var (host, port) = listenAddress(arguments.value("listen") ?? "127.0.0.1:0", command: command)
        if let chosen = arguments.value("port") {
            guard let number = UInt16(chosen), number != 0 else { Console.usage(command, UsageError("--port must be a port number (1 to 65535), not '\(chosen)'")) }
            port = number
        }
        if host != "127.0.0.1", host != "::1" {
            Console.error("\(program): warning: the studio listens on \(host), not loopback: anyone who reaches it and has the token can edit tables")
        }
        var bundles: [String]?
        if !arguments.operands.isEmpty {
            bundles = arguments.operands.map { PathText.tidy(PathText.absolute($0)) }
        }
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let kept = StudioSettings.path()
        let saved = arguments.has("new-token") ? nil : StudioSettings.load(from: kept)
        let token = saved?.token ?? StudioAccess.newToken()
        let studio: Studio
        do {
            studio = try Studio(host: host, port: port != 0 ? port : saved?.port ?? 0, socket: arguments.value("socket"), bundles: bundles, token: token)
        } catch {
            // The kept port may be taken meanwhile: then a free one (a port asked for is not replaced).
            guard port == 0, let saved else { Console.fail(program, "studio: \(error)", status: 2) }
            do {
                studio = try Studio(host: host, port: 0, socket: arguments.value("socket"), bundles: bundles, token: token)
                Console.error("\(program): the studio's port \(saved.port) cannot be used (\(error)): it is on \(studio.port) now")
            } catch {
                Console.fail(program, "studio: \(error)", status: 2)
            }
        }
        do {
            try StudioSettings(port: studio.port, token: token).save(to: kept)
        } catch {
            Console.error("\(program): warning: the studio's address is not kept for the next run: \(error)")
        }
        Console.out(studio.address)
        // Until SIGINT or SIGTERM (blocked from the start, in every thread: one sent at once after the address is waited for too).
        var received: Int32 = 0
        sigwait(&signals, &received)
        studio.stop()
        exit(0)
    }

    /// `ADDRESS:PORT`, `[IPv6]:PORT`, or the address alone (port 0: the kept one, else a free one); a usage error otherwise.
    static func listenAddress(_ text: String, command: String) -> (String, UInt16) {
        var host = text, portText = "0"
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[close...].dropFirst()
            if !rest.isEmpty { portText = rest.hasPrefix(":") ? String(rest.dropFirst()) : String(rest) }
        } else if text.count(where: { $0 == ":" }) == 1, let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = String(text[text.index(after: colon)...])
        }
        guard !host.isEmpty, let port = UInt16(portText) else {
            Console.usage(command, UsageError("--listen takes ADDRESS[:PORT] (127.0.0.1:8080, [::1]:0, 127.0.0.1), not '\(text)'"))
        }
        return (host, port)
    }
}
