import LprojCommandLine

/// lprojctl: lint and inspect string tables; talk to a running lprojd.
let program = "lprojctl"

let help = """
    Usage: lprojctl COMMAND [OPTIONS] [ARGUMENTS]

    Check and inspect Apple localization tables (.strings, .stringsdict, .xcstrings),
    and talk to a running lprojd.

    Commands:
      lint [--format gcc|json] PATH...   report every problem in tables or directories of them
      check [--format gcc|json] BUNDLE...
                                         cross-language checks: missing keys, format specifiers,
                                         plural forms, empty values, .lproj names, InfoPlist
      scan SOURCE... --bundle PATH [--macro NAME]...
                                         keys Swift/Objective-C sources use but the tables lack,
                                         and keys no source uses
      dump PATH [--language TAG]         print one table as canonical JSON
      match --available TAG,... [--prefer TAG,...] [--development TAG]
                                         the localizations preferences choose, best first
      get KEY --bundle PATH [--language TAG]... [--table NAME] [--arg VALUE]...
                                         a key's text in a bundle, and how it was found
                                         (from the files on disk, or with --live from lprojd)
      set KEY VALUE --bundle PATH --language TAG [--plural [VAR:]CATEGORY] [--if-version V]
                                         change one translation, every other byte kept
                                         (atomic, locked, refused when the checks fail)
      rm KEY... --bundle PATH [--language TAG]
                                         remove keys from one or every localization
      mv OLD NEW --bundle PATH           rename a key in every localization
      coverage BUNDLE... [--json]        per language and table: translated, missing, stale,
                                         words to translate, keys missed at runtime
      catalog compile CATALOG... --output DIR
                                         String Catalogs into .lproj tables Foundation reads
      catalog sync SOURCE... --catalog FILE
                                         a catalog's keys made the keys the sources use
      catalog export (--catalog FILE | --bundle DIR)... --output DIR
                                         an .xcloc (XLIFF) per language for translators
      catalog import XCLOC_OR_XLIFF...   translations back into catalogs and tables
      catalog migrate BUNDLE --table NAME
                                         a table's .strings and .stringsdict into one catalog

    Commands for a running lprojd (--socket PATH to choose it):
      status [--json]                    what the daemon is doing: roots, tables, clients, counters
      list [--json]                      bundles, localizations and tables, with their health
      tail [--json] [--bundle PATH] [--language NAME] [--table NAME]
                                         events as they happen: diffs, broken saves, selections
      select --app ID LANGUAGE|system    select the language of every process of an app
      misses [--bundle PATH] [--language TAG] [--app ID]
                                         keys running apps looked up and did not find
      studio [--listen ADDRESS:PORT] [BUNDLE...]
                                         the translator's workbench in the browser, live
      wait [--bundle PATH]... [--generation N] [--timeout SECONDS]
                                         until every process following the bundles shows
                                         their generation (a barrier for deploys)
      batch --bundle PATH... -- COMMAND  a command's changes published as one generation
      metrics                            the daemon's metrics in Prometheus' text format
      rollback --bundle PATH [--to N]    a bundle's tables back to a kept generation, as one

    Languages are tags or .lproj names. Xcode's pseudolanguages en-XA (accented),
    en-XD (double length), en-XE (bounded, [# … #]) and ar-XB (right to left) work
    wherever a language does (get --language, select), derived from the
    development localization, specifiers intact.

    Options:
      -h, --help     show this help (also after a command: lprojctl lint --help)
      --version      print the version

    Exit status: 0 success, 1 a table has errors (or the daemon refused), 2 usage
    error or unreadable path, 3 no daemon answers.
    """

Subcommands.run(program, help: help, commands: ["lint": LintCommand.run, "check": CheckCommand.run, "scan": ScanCommand.run, "dump": DumpCommand.run, "match": MatchCommand.run, "get": GetCommand.run,
                                           "set": SetCommand.run, "rm": RemoveCommand.run, "mv": MoveCommand.run,
                                           "coverage": CoverageCommand.run, "catalog": CatalogCommand.run,
                                           "status": StatusCommand.run, "list": ListCommand.run, "tail": TailCommand.run,
                                           "select": SelectCommand.run, "misses": MissesCommand.run, "studio": StudioCommand.run,
                                           "wait": WaitCommand.run, "batch": BatchCommand.run, "metrics": MetricsCommand.run, "rollback": RollbackCommand.run])
