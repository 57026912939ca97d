import LprojCommandLine

/// lproj-bench: lprojd's speed goals, each measured beside its peer in the same run.
let program = "lproj-bench"

let help = """
    Usage: lproj-bench BENCHMARK [OPTIONS]

    Benchmarks (each runs lprojd's code and its peer side by side, in one run):
      parse [--json] [--rounds N] PATH...          parse .strings files (or directories of them)
      parse [--json] [--rounds N] --generate N,... parse generated tables of N keys
            with LprojFormats and with Foundation's PropertyListSerialization, in
            N alternating rounds (default 25) of at least 0.3 s CPU time each;
            prints the best round's MB/s for both, the ratio, whether the
            values are identical, and LprojFormats' rate when every key and
            value is also made a String (as a client's table looked up once each).
            --profile-lprojd runs only LprojFormats for 5 s (for perf), printing nothing.
      latency [--saves N] [--keys N] [--interval-ms MS] [--json]
            save → subscriber latency of a real lprojd beside inotifywait -m
      fanout [--subscribers N,...] [--saves N] [--json]
            save → the last of N subscribers has the event
      lookup [--keys N] [--json]
            ns per lookup: LiveBundle (over parsed files, and over lprojd's images) beside
            Foundation.Bundle and a bare dictionary
      requests [--headers N] [--rounds N] [--threads N] [--json]
            a request's Accept-Language resolved to a view + 5 lookups, beside 5 lookups on bundle.current
            and beside the same 5 lookups in the same views already resolved
      crawl [--bundles N] [--json]
            time to ready and memory on 50,000 tables, beside a plain read of the files
      edit [--keys N] [--rounds N] [--saves N] [--json]
            a set through the one writer beside a plain rewrite of the whole file;
            save → subscriber for both
      studio [--keys N] [--saves N] [--json]
            a page's PUT until a second page has the event, beside lprojctl set until a subscriber has it
      catalog [--rounds N] [--json] [CATALOG]
            compiling a String Catalog (default: the corpus's) into every language's
            tables, beside parsing it, and JSONSerialization reading it
      workers [--workers N] [--languages N] [--keys N] [--serves N] [--rounds N] [--saves N] [--json]
            N processes of one service starting at once: each parsing the whole bundle,
            LiveBundle reading what its views need, LiveBundle mapping lprojd's images
      history [--saves N] [--keys N] [--bytes SIZE] [--json]
            the daemon's memory with its event history full, beside it keeping none
      overview [--languages N] [--tables N] [--keys N] [--rounds N] [--json]
            the studio's overview of a large bundle (and after a save), beside counting its coverage from the files
      tableview [--keys N] [--languages N] [--rounds N] [--json]
            the studio's view and search of a 2 MB catalog's table in 30 columns, beside lprojctl dump of it
      memory [--units N] [--queries N] [--json]
            the studio's translation memory's suggestions for a source text among N units,
            beside a plain scan comparing it with every unit's
      deploy [--bundles N] [--json]
            on those 50,000 tables: a poll's CPU time beside find(1); a release
            swap until published, beside a restart on the new release

    Soak (outside make test; make soak runs it for an hour):
      soak [--minutes N] [--processes N] [--seed N]
            lprojd and N LiveBundle processes under random saves, batches, rollbacks,
            stopped clients, kill -9 and restart, ENOSPC and descriptor exhaustion;
            after each step every process shows the files once wait answers

    Options:
      -h, --help   show this help
      --version    print the version

    Build with `swift build -c release`; figures are in docs/BENCHMARKS.md.
    """

Subcommands.run(program, help: help, noun: "benchmark", commands: ["parse": ParseBenchmark.run, "latency": LatencyBenchmark.run,
                                                                          "fanout": FanoutBenchmark.run, "crawl": CrawlBenchmark.run,
                                                                          "lookup": LookupBenchmark.run, "requests": RequestsBenchmark.run,
                                                                          "deploy": DeployBenchmark.run, "edit": EditBenchmark.run,
                                                                          "studio": StudioBenchmark.run, "catalog": CatalogBenchmark.run,
                                                                          "workers": WorkersBenchmark.run, "history": HistoryBenchmark.run, "memory": MemoryBenchmark.run, "overview": OverviewBenchmark.run, "tableview": TableViewBenchmark.run, "soak": Soak.run,
                                                                          "soak-client": SoakClient.serve])
