/// The `PROGRAM COMMAND [ARGUMENTS]` shape every lprojd tool has: `--help`,
/// `--version`, and a usage error (status 2) for a missing or unknown command.
public enum Subcommands {
    /// Runs the command named by the first argument with the remaining ones.
    public static func run(_ program: String, help: String, noun: String = "command",
                           arguments: [String] = Array(CommandLine.arguments.dropFirst()),
                           commands: [String: ([String]) -> Void]) {
        guard let name = arguments.first else {
            Console.usage(program, UsageError("missing \(noun)"))
        }
        switch name {
        case "-h", "--help", "help":
            Console.out(help)
        case "--version":
            Console.out("\(program) \(Console.version)")
        default:
            guard let command = commands[name] else {
                Console.usage(program, UsageError("unknown \(noun) '\(name)'"))
            }
            command(Array(arguments.dropFirst()))
        }
    }
}
