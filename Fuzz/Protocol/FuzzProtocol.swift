// libFuzzer entry point over the daemon's request handling: each input is
// one or more request lines from one connection, handed to an in-process
// `DaemonCore` (the one the daemon runs, without its shell) that serves a
// small bundle. Built by `make fuzz` (LPROJ_FUZZ=1 adds this target).
//
// Oracles beyond "no crash, no hang, no leak": every line the core queues
// is one JSON object on one line, and every request line gets a reply
// (`sync`, which waits for a watcher this core has not, excepted).
import Foundation
import LprojFormats
import LprojProtocol
import LprojTables
@testable import LprojDaemon

/// The core, made once: a temporary root with a bundle of two localizations.
nonisolated(unsafe) private let core: DaemonCore = {
    let root = "/tmp/lprojd-fuzz-root"
    let tables = ["App/en.lproj/Localizable.strings": "\"a\" = \"A %@\";\n\"n\" = \"%d items\";\n",
                  "App/fr.lproj/Localizable.strings": "\"a\" = \"À %@\";\n"]
    for (relative, text) in tables {
        let path = root + "/" + relative
        try! FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try! Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }
    var configuration = Configuration()
    configuration.watch.roots = [root]
    configuration.state.maximumApps = 16
    // Bounded as the apps are: the core lives through millions of inputs, and a `misses` reply lists what it keeps.
    configuration.limits.maximumMisses = 16
    configuration.limits.historyLength = 64
    // (A state directory of its own: fuzzing processes run side by side on one corpus.)
    let selections = try! Selections(stateDirectory: root + "/state-\(getpid())", maximumApps: 16)
    let core = DaemonCore(configuration: configuration, roots: [root], selections: selections, log: Log(level: .error))
    var reader = TableFileReader()
    _ = core.tables.apply(TableReading.load(tables.keys.map { root + "/" + $0 }, with: &reader, exclusions: core.tables.exclusions,
                                             links: core.tables.links, keys: core.tables.keyShelf), reporting: false)
    return core
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProtocol(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count))
    guard case .success(let session) = core.admit(PeerCredentials(pid: 1, uid: 0, gid: 0, groups: [0])) else { fatalError("not admitted") }
    defer { core.close(session) }
    var framer = LineFramer(maximumLineLength: core.configuration.limits.maximumRequestBytes)
    var requests = 0
    for case .line(let line) in framer.append(bytes[...]) where !line.isEmpty {
        requests += 1
        core.handle(line, from: session)
    }
    let syncs = core.takeSyncRequests().count
    core.endTurn()
    var output: [UInt8] = []
    while session.queuedBytes > 0 { session.write { chunk in output += chunk; return chunk.count } }
    precondition(output.isEmpty || output.last == 0x0A, "output does not end a line")
    var replies = 0
    for line in output.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)), object is [String: Any] else {
            preconditionFailure("not one JSON object: \(String(decoding: line, as: UTF8.self))")
        }
        if (object as! [String: Any])["ok"] != nil { replies += 1 }
    }
    // A line the daemon could not even frame as a request is still answered; a sync may wait for its marker.
    precondition(replies + syncs >= requests, "\(requests) requests, \(replies) replies")
    return 0
}

/// libFuzzer's driver (its own `main` is replaced by the one SwiftPM links an executable with).
@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                       _ test: @convention(c) (UnsafeRawPointer, Int) -> CInt) -> CInt

/// What SwiftPM links as the executable's `main`: libFuzzer's driver over `fuzzProtocol`.
@_cdecl("lprojd_fuzz_protocol_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runDriver(&count, &arguments) { fuzzProtocol($0, $1) }
}
