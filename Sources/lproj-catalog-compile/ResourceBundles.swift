import Foundation

/// The resource bundles SwiftPM copied the tool's outputs into: named
/// `PACKAGE_TARGET.resources`, in each build configuration's directory of
/// the scratch directory the plugin's outputs are under
/// (`SCRATCH/plugins/outputs/…` → `SCRATCH/TRIPLE/CONFIGURATION/NAME`).
enum ResourceBundles {
    static func find(named name: String, output: String) -> [String] {
        guard !name.contains("/"), let range = output.range(of: "/plugins/outputs/") else { return [] }
        let scratch = String(output[..<range.lowerBound])
        var found: [String] = []
        let manager = FileManager.default
        for first in (try? manager.contentsOfDirectory(atPath: scratch)) ?? [] where first != "plugins" {
            let level = scratch + "/" + first
            // `debug` is a link to `TRIPLE/debug`: each bundle once, by its real directory.
            guard (try? manager.destinationOfSymbolicLink(atPath: level)) == nil else { continue }
            for second in (try? manager.contentsOfDirectory(atPath: level)) ?? [] {
                let bundle = level + "/" + second + "/" + name
                var isDirectory: ObjCBool = false
                if manager.fileExists(atPath: bundle, isDirectory: &isDirectory), isDirectory.boolValue { found.append(bundle) }
            }
            let direct = level + "/" + name
            var isDirectory: ObjCBool = false
            if manager.fileExists(atPath: direct, isDirectory: &isDirectory), isDirectory.boolValue { found.append(direct) }
        }
        return found.sorted()
    }
}
