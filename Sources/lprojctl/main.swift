import LprojCommandLine

/// lprojctl: lint and inspect string tables; talk to a running lprojd.
let program = "lprojctl"

let help = """
    Usage: lprojctl COMMAND [OPTIONS] [ARGUMENTS]

    Check and inspect Apple localization tables (.strings, .stringsdict, .xcstrings).

    Commands:
      lint [--format gcc|json] PATH...   report every problem in tables or directories of them
      dump PATH [--language TAG]         print one table as canonical JSON

    Options:
      -h, --help     show this help (also after a command: lprojctl lint --help)
      --version      print the version

    Exit status: 0 success, 1 a table has errors, 2 usage error or unreadable path.
    """

var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    Console.usage(program, UsageError("missing command"))
}
arguments.removeFirst()
switch command {
case "-h", "--help", "help":
    Console.out(help)
case "--version":
    Console.out("\(program) \(Console.version)")
case "lint":
    LintCommand.run(arguments)
case "dump":
    DumpCommand.run(arguments)
default:
    Console.usage(program, UsageError("unknown command '\(command)'"))
}
