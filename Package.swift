// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "lprojd",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "LprojTables", targets: ["LprojTables"]),
        .library(name: "LprojCatalog", targets: ["LprojCatalog"]),
        .library(name: "LprojProtocol", targets: ["LprojProtocol"]),
        .library(name: "LprojWatch", targets: ["LprojWatch"]),
        .executable(name: "lprojctl", targets: ["lprojctl"]),
        .executable(name: "lproj-bench", targets: ["lproj-bench"]),
    ],
    targets: [
        // Parse, diagnose, diff and write .strings / .stringsdict / .xcstrings.
        .target(name: "LprojTables"),
        // ICU behind a C surface: likely subtags, parent locales, plural rules.
        .target(
            name: "CICUShim",
            linkerSettings: [.linkedLibrary("icui18n"), .linkedLibrary("icuuc")]
        ),
        // Languages: tags, Apple-compatible matching, fallback, plurals, formatting, lookup.
        .target(name: "LprojCatalog", dependencies: ["LprojTables", "CICUShim"]),
        // libinotifytools, owned by LprojWatch's one thread.
        .systemLibrary(name: "CInotifyTools"),
        // inotify turned into coalesced, normalised file events.
        .target(name: "LprojWatch", dependencies: ["CInotifyTools"]),
        // The wire protocol: one Codable type per message, and the line framing. No I/O.
        .target(name: "LprojProtocol", dependencies: ["LprojTables"]),
        // Small command-line plumbing shared by the executables.
        .target(name: "LprojCommandLine"),
        .executableTarget(name: "lprojctl", dependencies: ["LprojTables", "LprojCatalog", "LprojCommandLine"]),
        .executableTarget(name: "lproj-bench", dependencies: ["LprojTables", "LprojCommandLine"]),
        .testTarget(name: "LprojTablesTests", dependencies: ["LprojTables"]),
        .testTarget(name: "LprojCatalogTests", dependencies: ["LprojCatalog"]),
        .testTarget(name: "LprojProtocolTests", dependencies: ["LprojProtocol"]),
        .testTarget(name: "LprojWatchTests", dependencies: ["LprojWatch"]),
        .testTarget(name: "lprojctlTests", dependencies: ["LprojTables"]),
    ],
    swiftLanguageModes: [.v6]
)
