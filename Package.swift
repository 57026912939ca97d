// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "lprojd",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "LprojPaths", targets: ["LprojPaths"]),
        .library(name: "LprojTables", targets: ["LprojTables"]),
        .library(name: "LprojFormats", targets: ["LprojFormats"]),
        .library(name: "LprojLanguages", targets: ["LprojLanguages"]),
        .library(name: "LprojBundles", targets: ["LprojBundles"]),
        .library(name: "LprojEditing", targets: ["LprojEditing"]),
        .library(name: "LprojExchange", targets: ["LprojExchange"]),
        .library(name: "LprojProtocol", targets: ["LprojProtocol"]),
        .library(name: "LprojWatch", targets: ["LprojWatch"]),
        .library(name: "LprojDaemon", targets: ["LprojDaemon"]),
        .library(name: "LprojClient", targets: ["LprojClient"]),
        .executable(name: "lprojd", targets: ["lprojd"]),
        .executable(name: "lprojctl", targets: ["lprojctl"]),
        .executable(name: "lproj-bench", targets: ["lproj-bench"]),
        .executable(name: "lproj-demo", targets: ["lproj-demo"]),
        .executable(name: "lproj-notify", targets: ["lproj-notify"]),
        .executable(name: "lproj-catalog-compile", targets: ["lproj-catalog-compile"]),
        // Add to a target that has .xcstrings resources: they are compiled into .lproj tables in its bundle.
        .plugin(name: "LprojCatalogPlugin", targets: ["LprojCatalogPlugin"]),
    ],
    targets: [
        // Paths: names compared as bytes, links, listings, temporaries, exclusions, and where a table file belongs.
        .target(name: "LprojPaths", dependencies: ["CLinux"]),
        // Tables: entries, tables and their storage, shared images, diffs, diagnostics. No format, no path rule.
        .target(name: "LprojTables", dependencies: ["LprojPaths", "CLinux"]),
        // The formats: each one's reader beside its editor (Strings/, PropertyList/, StringCatalog/), and what they share.
        .target(name: "LprojFormats", dependencies: ["LprojPaths", "LprojTables", "CLinux", "CByteScan"]),
        // The .strings parser's scan with AVX2 where the processor has it (Swift's vectors are SSE2's).
        .target(name: "CByteScan"),
        // ICU behind a C surface: likely subtags, parent locales, plural rules.
        .target(
            name: "CICUShim",
            linkerSettings: [.linkedLibrary("icui18n"), .linkedLibrary("icuuc")]
        ),
        // Languages: tags, Apple's matching, plurals, formatting, pseudolanguages.
        .target(name: "LprojLanguages", dependencies: ["LprojTables", "CICUShim"]),
        // Bundles: listing, layers, the search plan, the lookup, the development localization, checks, coverage.
        .target(name: "LprojBundles", dependencies: ["LprojPaths", "LprojTables", "LprojFormats", "LprojLanguages"]),
        // Changing a table on disk: the one writer, its gate and locks, atomic replace, versions.
        .target(name: "LprojEditing", dependencies: ["LprojPaths", "LprojTables", "LprojFormats", "LprojLanguages", "LprojBundles"]),
        // Interchange: XLIFF, unit ids, export and import, the source scanner, String Catalog compile, sync and migration.
        .target(name: "LprojExchange", dependencies: ["LprojPaths", "LprojTables", "LprojFormats", "LprojLanguages", "LprojBundles", "LprojEditing"]),
        // libinotifytools, owned by LprojWatch's one thread.
        .systemLibrary(name: "CInotifyTools"),
        // inotify turned into coalesced, normalised file events.
        .target(name: "LprojWatch", dependencies: ["CInotifyTools", "CLinux", "LprojPaths"]),
        // The wire protocol: one Codable type per message, and the line framing. No I/O.
        .target(name: "LprojProtocol", dependencies: ["LprojTables", "LprojFormats"]),
        // libinih and libsystemd, as Debian ships them.
        .systemLibrary(name: "CInih", pkgConfig: "inih"),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd"),
        // epoll, eventfd, signalfd, accept4, SO_PEERCRED: what Glibc's module leaves out.
        .target(name: "CLinux"),
        // The daemon: event loop, catalog, subscriptions, history, selections, config.
        .target(name: "LprojDaemon", dependencies: ["LprojLanguages", "LprojPaths", "LprojTables", "LprojFormats", "LprojBundles", "LprojProtocol", "LprojWatch", "CInih", "CSystemd", "CLinux",
                                                   "CHTTP"]),
        // Talking to lprojd from a client process; LiveBundle.
        .target(name: "LprojClient", dependencies: ["LprojLanguages", "LprojPaths", "LprojProtocol", "LprojTables", "LprojFormats", "LprojBundles", "CLinux"]),
        // Small command-line plumbing shared by the executables.
        .target(name: "LprojCommandLine", dependencies: ["LprojFormats"]),
        // libmicrohttpd behind a small C surface (its API is variadic): HTTP for the studio and the daemon's metrics.
        .target(name: "CHTTP", linkerSettings: [.linkedLibrary("microhttpd")]),
        // The translator's workbench: an HTTP server over lprojd and the one writer, and its page.
        .target(name: "LprojStudio", dependencies: ["LprojLanguages", "LprojPaths", "CHTTP", "LprojBundles", "LprojEditing", "LprojClient", "LprojProtocol", "LprojTables", "LprojFormats"]),
        .executableTarget(name: "lprojd", dependencies: ["LprojDaemon", "LprojCommandLine"]),
        .executableTarget(name: "lprojctl", dependencies: ["LprojLanguages", "LprojPaths", "LprojTables", "LprojFormats", "LprojBundles", "LprojEditing", "LprojExchange", "LprojClient", "LprojProtocol", "LprojCommandLine",
                                                           "LprojStudio"]),
        // The catalog plugin's tool: a String Catalog compiled into exactly the .lproj tables the plugin declared.
        .executableTarget(name: "lproj-catalog-compile", dependencies: ["LprojPaths", "LprojExchange", "LprojTables", "LprojFormats", "LprojCommandLine"]),
        .plugin(name: "LprojCatalogPlugin", capability: .buildTool(), dependencies: ["lproj-catalog-compile"]),
        .executableTarget(name: "lproj-demo", dependencies: ["LprojClient", "LprojCommandLine"]),
        // An example service: per-recipient messages from each one's Accept-Language, live.
        .executableTarget(name: "lproj-notify", dependencies: ["LprojClient", "LprojCommandLine"], path: "Examples/NotificationWorker"),
        // Counts heap allocations (lproj-bench lookup: "no allocation on a hit").
        .target(name: "CAllocationCounter"),
        .executableTarget(name: "lproj-bench", dependencies: ["LprojPaths", "LprojTables", "LprojFormats", "LprojBundles", "LprojEditing", "LprojExchange", "LprojProtocol", "LprojClient", "LprojCommandLine",
                                                              "LprojStudio", "LprojWatch", "CAllocationCounter", "CLinux"]),
        // What the test targets share: a seeded generator.
        .target(name: "LprojTestSupport", path: "Tests/Support"),
        // What the tests of the built programs share: a daemon on a temp dir, programs run to their end, other users' processes.
        .target(name: "LprojProcessTesting", dependencies: ["LprojClient", "LprojProtocol", "LprojBundles", "LprojPaths", "LprojTables"],
                 path: "Tests/ProcessSupport"),
        .testTarget(name: "LprojTablesTests", dependencies: ["LprojPaths", "LprojTables", "LprojFormats", "LprojTestSupport", "CLinux", "CByteScan"]),
        .testTarget(name: "LprojLanguagesTests", dependencies: ["LprojLanguages", "LprojTables", "LprojFormats"]),
        .testTarget(name: "LprojBundlesTests", dependencies: ["LprojBundles", "LprojLanguages", "LprojTables", "LprojFormats", "LprojPaths"]),
        .testTarget(name: "LprojExchangeTests", dependencies: ["LprojExchange", "LprojBundles", "LprojLanguages", "LprojTables", "LprojFormats",
                                                               "LprojPaths"]),
        .testTarget(name: "LprojProtocolTests", dependencies: ["LprojProtocol", "LprojTables", "LprojTestSupport"]),
        .testTarget(name: "LprojWatchTests", dependencies: ["LprojPaths", "LprojWatch", "LprojTables"]),
        .testTarget(name: "lprojctlTests", dependencies: ["LprojPaths", "LprojTables", "LprojFormats", "LprojTestSupport", "LprojProcessTesting", "LprojClient", "LprojProtocol"]),
        // The daemon: its core in process, and the built lprojd on temp dirs, real sockets and real inotify.
        .testTarget(name: "LprojDaemonTests", dependencies: ["LprojDaemon", "LprojClient", "LprojProtocol", "LprojBundles", "LprojLanguages",
                                                             "LprojFormats", "LprojTables", "LprojPaths", "LprojWatch", "LprojTestSupport",
                                                             "LprojProcessTesting", "CLinux"]),
        // LiveBundle against the built lprojd: live changes, shared table images, a worker service.
        .testTarget(name: "LiveBundleTests", dependencies: ["LprojClient", "LprojProtocol", "LprojBundles", "LprojFormats", "LprojTables",
                                                            "LprojPaths", "LprojTestSupport", "LprojProcessTesting", "CLinux"]),
        // The studio: its HTTP API, its attacks, and its page in a real browser.
        .testTarget(name: "LprojStudioTests", dependencies: ["LprojClient", "LprojProtocol", "LprojTables", "LprojPaths", "LprojProcessTesting", "LprojStudio"]),
        // The installed tree, the Debian package, the units, the manual pages, the deploy manifests.
        .testTarget(name: "PackagingTests", dependencies: ["LprojDaemon", "LprojWatch", "CInotifyTools", "LprojClient", "LprojProtocol", "LprojTables", "LprojPaths", "LprojProcessTesting"]),
        .testTarget(name: "LprojClientTests", dependencies: ["LprojPaths", "LprojClient", "LprojBundles", "LprojExchange", "LprojProtocol", "LprojTables", "LprojFormats"]),
    ],
    swiftLanguageModes: [.v6]
)

// The protocol fuzzer (`make fuzz`): a libFuzzer entry point over the daemon's core, built only when asked for
// (it has no `main` of its own: libFuzzer brings one).
if Context.environment["LPROJ_FUZZ"] != nil {
    package.targets.append(.executableTarget(name: "lprojd-fuzz-protocol", dependencies: ["LprojDaemon", "LprojProtocol", "LprojTables", "LprojFormats"],
                                             path: "Fuzz/Protocol"))
}
