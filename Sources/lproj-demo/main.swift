import Foundation
import LprojClient
import LprojCommandLine

/// lproj-demo: the seed app's screen in a terminal, redrawn the moment a
/// table is saved or the app's language is selected.
let program = "lproj-demo"

let help = """
    Usage: lproj-demo [--bundle PATH] [--app ID] [--name NAME] [--plain] [--socket PATH]

    Shows the demo app's screen — tab titles, a title, a welcome with a name,
    an item count with plural rules, today's date and a number — from the
    bundle at PATH (default: Examples/Demo/Resources), in the language
    selected for the app ID (default: com.example.lproj-demo), else the
    system's. It follows lprojd when one runs: saving a table, or
    `lprojctl select --app ID zh-Hant`, redraws the screen at once.

    Keys: 1-9 select a language, 0 follows the system again, + and - change
    the item count, q quits. `lprojctl select --app ID en-XA` (or en-XD,
    en-XE, ar-XB) shows a pseudolanguage, derived from the development one.

    Options:
      --bundle PATH   the bundle directory
      --app ID        the app identifier languages are selected for
      --name NAME     the name in the welcome (default: Ada)
      --plain         no full-screen drawing: print the screen as plain lines
                      after every change, read keys as lines from standard input
      --socket PATH   lprojd's socket (default: the usual rule)
      -h, --help      show this help
      --version       print the version
    """

let arguments: Arguments
do {
    arguments = try Arguments(Array(CommandLine.arguments.dropFirst()), flags: ["help", "version", "plain"],
                              options: ["bundle", "app", "name", "socket"])
} catch {
    Console.usage(program, error)
}
if arguments.has("help") { Console.out(help); exit(0) }
if arguments.has("version") { Console.out("\(program) \(Console.version)"); exit(0) }
if let operand = arguments.operands.first { Console.usage(program, UsageError("unexpected argument '\(operand)'")) }

var options = LiveBundle.Options()
options.socketPath = arguments.value("socket")
let bundle: LiveBundle
do {
    bundle = try LiveBundle(path: arguments.value("bundle") ?? "Examples/Demo/Resources",
                            app: arguments.value("app") ?? "com.example.lproj-demo", options: options)
} catch {
    Console.fail(program, error.description, status: 2)
}
let screen = DemoScreen(bundle: bundle, name: arguments.value("name") ?? "Ada", plain: arguments.has("plain"))
screen.run()
