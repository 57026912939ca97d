import LprojCommandLine

/// lprojctl: lint and inspect string tables; talk to a running lprojd.
let program = "lprojctl"

let help = """
    Usage: lprojctl COMMAND [OPTIONS] [ARGUMENTS]

    Check and inspect Apple localization tables (.strings, .stringsdict, .xcstrings).

    Commands:
      lint [--format gcc|json] PATH...   report every problem in tables or directories of them
      dump PATH [--language TAG]         print one table as canonical JSON
      match --available TAG,... [--prefer TAG,...] [--development TAG]
                                         the localizations preferences choose, best first
      get KEY --bundle PATH [--language TAG]... [--table NAME] [--arg VALUE]...
                                         a key's text in a bundle on disk, and how it was found

    Options:
      -h, --help     show this help (also after a command: lprojctl lint --help)
      --version      print the version

    Exit status: 0 success, 1 a table has errors, 2 usage error or unreadable path.
    """

Subcommands.run(program, help: help, commands: ["lint": LintCommand.run, "dump": DumpCommand.run, "match": MatchCommand.run, "get": GetCommand.run])
