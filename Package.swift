// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "lprojd",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "LprojTables", targets: ["LprojTables"]),
        .executable(name: "lprojctl", targets: ["lprojctl"]),
        .executable(name: "lproj-bench", targets: ["lproj-bench"]),
    ],
    targets: [
        // Parse, diagnose, diff and write .strings / .stringsdict / .xcstrings.
        .target(name: "LprojTables"),
        // Small command-line plumbing shared by the executables.
        .target(name: "LprojCommandLine"),
        .executableTarget(name: "lprojctl", dependencies: ["LprojTables", "LprojCommandLine"]),
        .executableTarget(name: "lproj-bench", dependencies: ["LprojTables", "LprojCommandLine"]),
        .testTarget(name: "LprojTablesTests", dependencies: ["LprojTables"]),
        .testTarget(name: "lprojctlTests", dependencies: ["LprojTables"]),
    ],
    swiftLanguageModes: [.v6]
)
