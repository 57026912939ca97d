import Foundation
import LprojCommandLine
import LprojLanguages
import LprojProtocol

/// `lprojctl select`: choose the language an app shows, for all its processes.
enum SelectCommand {
    static let help = """
        Usage: lprojctl select --app ID LANGUAGE|system [--socket PATH]

        Selects LANGUAGE (a tag such as zh-Hant or pt-BR) for the app ID
        (e.g. com.example.demo). The daemon persists the choice and every
        running process of that app switches at once; "system" clears the
        choice, and the app follows its environment (LANGUAGE, LANG, ...) again.

        Options:
          --app ID        the app's identifier (required)
        \(LiveDaemon.socketHelp)

        Exit status: 0 selected, 1 the daemon refused (bad tag, not allowed),
        2 usage error, 3 no daemon answers.
        """

    static func run(_ argv: [String]) {
        let command = "\(program) select"
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, flags: ["help"], options: ["app", "socket"])
        } catch {
            Console.usage(command, error)
        }
        if arguments.has("help") { Console.out(help); return }
        guard let app = arguments.value("app") else { Console.usage(command, UsageError("--app is required")) }
        guard arguments.operands.count == 1, let language = arguments.operands.first else {
            Console.usage(command, UsageError(arguments.operands.isEmpty ? "no LANGUAGE given (a tag, or system)" : "select takes one LANGUAGE"))
        }
        if let problem = LanguageSelection.problem(withApp: app) { Console.usage(command, UsageError("--app: \(problem)")) }
        if case .failure(let problem) = LanguageSelection.language(language) { Console.usage(command, UsageError(problem.message)) }
        let (connection, _) = LiveDaemon.connect(arguments, client: "lprojctl select")
        let reply = LiveDaemon.send(SelectLanguage(app: app, language: language), on: connection)
        Console.out("\(reply.app): \(reply.language ?? "system (follows the environment)")")
    }
}
