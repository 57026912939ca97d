import Foundation

/// What kubelet does to a ConfigMap, Secret or projected volume, step by
/// step as its atomic writer (pkg/volume/util/atomic_writer.go) does it:
/// the payload in a new `..<timestamp>.<random>` directory, a `..data_tmp`
/// link to it renamed over `..data`, a link `name -> ..data/name` for each
/// top-level entry not linked yet, links of entries no longer in the
/// payload removed, the old payload removed last.
public struct KubeletAtomicWriter {
    /// The volume's directory (what the pod mounts).
    public let target: String

    public init(target: String) {
        self.target = target
    }

    /// Writes `payload` (paths relative to the volume, `en.lproj/Localizable.strings`, to their text).
    public func write(_ payload: [String: String]) throws {
        let manager = FileManager.default
        let data = target + "/..data"
        let old = try? manager.destinationOfSymbolicLink(atPath: data)
        // (5) The new timestamped directory (os.MkdirTemp with a `..2006_01_02_15_04_05.` prefix).
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy_MM_dd_HH_mm_ss"
        var template = Array("\(target)/..\(formatter.string(from: Date())).XXXXXXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw DaemonTestError("mkdtemp: \(String(cString: strerror(errno)))") }
        let payloadDirectory = String(cString: made)
        // (6) The payload.
        for (path, text) in payload {
            let file = payloadDirectory + "/" + path
            try manager.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        }
        // (8) ..data_tmp -> the new directory, (9) renamed over ..data.
        try manager.createSymbolicLink(atPath: target + "/..data_tmp", withDestinationPath: (payloadDirectory as NSString).lastPathComponent)
        guard rename(target + "/..data_tmp", data) == 0 else { throw DaemonTestError("rename: \(String(cString: strerror(errno)))") }
        // (10) A link for each top-level entry, when there is none yet.
        let entries = Set(payload.keys.map { String($0.split(separator: "/")[0]) })
        for entry in entries.sorted() where (try? manager.destinationOfSymbolicLink(atPath: target + "/" + entry)) == nil {
            try manager.createSymbolicLink(atPath: target + "/" + entry, withDestinationPath: "..data/" + entry)
        }
        // (11) The links of entries no longer there.
        for name in try manager.contentsOfDirectory(atPath: target) where !name.hasPrefix("..") && !entries.contains(name) {
            try manager.removeItem(atPath: target + "/" + name)
        }
        // (12) The old payload.
        if let old { try manager.removeItem(atPath: target + "/" + old) }
    }
}
