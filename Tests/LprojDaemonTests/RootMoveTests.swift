import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import LprojTables
import LprojTestSupport
import XCTest

/// Moves of a root and of a link on its way, against a model: the root
/// (`way/root`) is a directory, a symbolic link to one of several trees, or
/// absent; `way` itself is a directory or a link swapped between sites that
/// hold roots of their own. Every kind of move is made the way people make
/// them (`mv`, `rm`, `ln -s` + `mv -T`), with edits through the root, and a
/// reload now and then. After every step (and a `sync`) the daemon serves
/// what a fresh start would — the tables the files under the root's path
/// hold now — and a client that applied every event holds the same; at the
/// end, a fresh daemon on the same tree serves the same with as many watches.
final class RootMoveTests: XCTestCase {
    func testTheReportedSequence() throws {
        // mv r r.real; ln -s other r; rm r; mv r.real r — served from the link's old target for good before.
        try runTheReportedSequence(stoppingTheDaemon: false)
    }

    /// The same sequence with the daemon stopped while each step is made:
    /// the link takes the root's name before the daemon has read the move
    /// (and watched the parent for the name), so no event says it came.
    func testARootReplacedBeforeItsMoveIsReadIsFound() throws {
        try runTheReportedSequence(stoppingTheDaemon: true)
    }

    private func runTheReportedSequence(stoppingTheDaemon: Bool) throws {
        let daemon = try DaemonProcess(config: "", passesRoot: false)
        let base = daemon.directory
        try daemon.shell("mkdir -p way other/O/en.lproj way/root/App/en.lproj "
                         + "&& echo '\"k\" = \"app\";' > way/root/App/en.lproj/Localizable.strings "
                         + "&& echo '\"k\" = \"other\";' > other/O/en.lproj/Localizable.strings", in: base)
        try daemon.rewriteConfig("[Watch]\nRoot=\(base)/way/root\nRemovalGrace=30ms\n[Log]\nLevel=debug\n")
        try daemon.start()
        defer { XCTAssertEqual(daemon.stop(), 0, daemon.log) }
        let connection = try daemon.connect()
        _ = try connection.send(Hello(client: "tests"))
        func step(_ command: String) throws {
            if stoppingTheDaemon { daemon.signal(SIGSTOP) }
            try daemon.shell(command, in: base + "/way")
            if stoppingTheDaemon { daemon.signal(SIGCONT) }
            _ = try connection.send(Sync())
        }
        try step("mv root root.real && ln -s ../other root")
        XCTAssertEqual(try connection.send(Snapshot()).tables.map(\.bundle), ["\(base)/way/root/O"], daemon.log)
        try step("rm root && mv root.real root")
        XCTAssertEqual(try connection.send(Snapshot()).tables.map(\.bundle), ["\(base)/way/root/App"], daemon.log)
        try daemon.write("../way/root/App/en.lproj/Localizable.strings", "\"k\" = \"edited\";\n")
        _ = try connection.send(Sync())
        let lookup = try connection.send(Lookup(bundle: "\(base)/way/root/App", key: "k", languages: ["en"]))
        XCTAssertEqual(lookup.text, "edited", "edits in the restored root arrive\n" + daemon.log)
        XCTAssertEqual(try connection.send(Status()).watches, 3, "root, App and en.lproj; nothing of the old target\n" + daemon.log)
    }

    func testAnyMoveOfTheRootOrItsWayServesWhatAFreshStartWouldWithSeed1() throws { try run(seed: 1) }
    func testAnyMoveOfTheRootOrItsWayServesWhatAFreshStartWouldWithSeed2() throws { try run(seed: 2) }
    func testAnyMoveOfTheRootOrItsWayServesWhatAFreshStartWouldWithSeed3() throws { try run(seed: 0xC0FFEE) }

    private func run(seed: UInt64, steps: Int = 70) throws {
        var random = SplitMix64(seed: seed)
        let daemon = try DaemonProcess(config: "", passesRoot: false)
        let base = daemon.directory
        let root = base + "/way/root"
        let files = FileManager.default
        var made = 0
        /// A new directory of bundles (A and/or B, en and/or de), with values no other has.
        func makeTree(_ path: String) throws {
            made += 1
            for bundle in ["A", "B"] where random.next(3) != 0 || bundle == "A" {
                for language in ["en", "de"] where random.next(2) == 0 || language == "en" {
                    let file = "\(path)/\(bundle)/\(language).lproj/Localizable.strings"
                    try files.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                    try Data("\"k\" = \"\(made)-\(bundle)-\(language)\";\n\"n\" = \"\(random.next(1000))\";\n".utf8)
                        .write(to: URL(fileURLWithPath: file))
                }
            }
        }
        for index in 0..<3 { try makeTree("\(base)/trees/t\(index)") }
        try makeTree(root)
        try files.createDirectory(atPath: base + "/stash", withIntermediateDirectories: true)
        try files.createDirectory(atPath: base + "/sites", withIntermediateDirectories: true)
        try daemon.rewriteConfig("[Watch]\nRoot=\(root)\nRemovalGrace=30ms\nQuietPeriod=20ms\n")
        try daemon.start()
        defer { XCTAssertEqual(daemon.stop(), 0, daemon.log) }
        let connection = try daemon.connect()
        _ = try connection.send(Hello(client: "model"))
        var mirror = Mirror(snapshot: try XCTUnwrap(try connection.send(Subscribe(name: "all", snapshot: true)).tables))
        var history: [String] = []

        func kind(_ path: String) -> String {
            var info = stat()
            guard lstat(path, &info) == 0 else { return "absent" }
            return (info.st_mode & S_IFMT) == S_IFLNK ? "link" : "directory"
        }
        func stashed() -> [String] { ((try? files.contentsOfDirectory(atPath: base + "/stash")) ?? []).sorted() }
        func sites() -> [String] { ((try? files.contentsOfDirectory(atPath: base + "/sites")) ?? []).sorted() }
        /// Moves whatever is at `path` out of the way: a directory to the stash, a link removed.
        func clear(_ path: String) throws -> String {
            switch kind(path) {
            case "directory":
                made += 1
                try daemon.shell("mv '\(path)' stash/s\(made)", in: base)
                return "mv \(path) → stash/s\(made)"
            case "link":
                try daemon.shell("rm '\(path)'", in: base)
                return "rm link \(path)"
            default:
                return ""
            }
        }

        /// After a step: what was served and told equals what the files hold.
        func check() throws -> Bool {
            try mirror.catchUp(connection)
            let snapshot = Mirror(snapshot: try connection.send(Snapshot()).tables)
            let expected = try Mirror(disk: Self.bundles(under: root))
            let context = "seed \(seed), after \(history.suffix(6).joined(separator: " | "))"
            XCTAssertEqual(snapshot.tables.keys.map(\.string).sorted(), expected.tables.keys.map(\.string).sorted(), context)
            if snapshot.tables != expected.tables { XCTFail("the daemon's snapshot differs from the files; \(context)"); return false }
            if mirror.tables != snapshot.tables { XCTFail("the client differs from the daemon's snapshot; \(context)"); return false }
            XCTAssertEqual(mirror.resyncs, 0, context)
            return true
        }

        for step in 0..<steps {
            var action = ""
            let wayKind = kind(base + "/way")
            switch random.next(7) {
            case 0:
                // The root becomes a link to a tree: swapped over a link, or made where nothing or a directory was.
                let tree = "\(base)/trees/t\(random.next(3))"
                if kind(root) == "link" {
                    try daemon.shell("ln -s '\(tree)' way/root.tmp && mv -T way/root.tmp way/root", in: base)
                    action = "swap root link → \(tree)"
                } else {
                    action = try clear(root)
                    if kind(base + "/way") != "absent" {
                        try daemon.shell("ln -s '\(tree)' way/root", in: base)
                        action += "; ln -s \(tree) root"
                    }
                }
            case 1:
                // A real directory back as the root (a stashed one, or a new one).
                guard kind(base + "/way") != "absent" else { continue }
                action = try clear(root)
                if let directory = stashed().randomElement(using: &random) {
                    try daemon.shell("mv stash/\(directory) way/root", in: base)
                    action += "; mv stash/\(directory) → root"
                } else {
                    try makeTree(root)
                    action += "; new root directory"
                }
            case 2:
                action = "root away: " + (try clear(root))
            case 3:
                // The way: a directory becomes a site and a link to one; a link swaps, or a site comes back as the directory.
                if wayKind == "directory" {
                    made += 1
                    try daemon.shell("mv way sites/w\(made) && ln -s sites/w\(made) way", in: base)
                    action = "way → link to sites/w\(made)"
                } else if let site = sites().randomElement(using: &random) {
                    if random.next(2) == 0 {
                        try daemon.shell("ln -s sites/\(site) way.tmp && mv -T way.tmp way", in: base)
                        action = "swap way link → sites/\(site)"
                    } else {
                        try daemon.shell("rm way && mv sites/\(site) way", in: base)
                        action = "way link → directory sites/\(site)"
                    }
                }
            case 4, 5:
                // An edit through the root's path.
                var isDirectory: ObjCBool = false
                guard files.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
                let bundle = ["A", "B"][random.next(2)], language = ["en", "de"][random.next(2)]
                let file = "\(root)/\(bundle)/\(language).lproj/Localizable.strings"
                try files.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                made += 1
                try Data("\"k\" = \"edit \(made)\";\n".utf8).write(to: URL(fileURLWithPath: file))
                action = "edit \(bundle)/\(language)"
            default:
                daemon.signal(SIGHUP)
                _ = try daemon.awaitNotification("READY=1")
                action = "reload"
            }
            if action.isEmpty { continue }
            history.append("\(step): \(action)")
            guard try check() else { return }
        }
        // A fresh start needs its root: one comes back if the run ended without.
        var isDirectory: ObjCBool = false
        if !files.fileExists(atPath: root, isDirectory: &isDirectory) || !isDirectory.boolValue {
            var action = try clear(root)
            if kind(base + "/way") == "link" { action += "; " + (try clear(base + "/way")) }
            try files.createDirectory(atPath: base + "/way", withIntermediateDirectories: true)
            try makeTree(root)
            history.append("end: \(action); new root directory")
            guard try check() else { return }
        }
        // A fresh start on the tree as it is now: the same tables, as many watches.
        let watches = try connection.send(Status()).watches
        let served = Mirror(snapshot: try connection.send(Snapshot()).tables)
        let fresh = try DaemonProcess(config: "[Watch]\nRoot=\(root)\n", passesRoot: false)
        try fresh.start()
        defer { XCTAssertEqual(fresh.stop(), 0, fresh.log) }
        let other = try fresh.connect()
        _ = try other.send(Hello(client: "fresh"))
        XCTAssertEqual(Mirror(snapshot: try other.send(Snapshot()).tables), served, "seed \(seed): \(history.suffix(8))")
        XCTAssertEqual(try other.send(Status()).watches, watches, "seed \(seed): watches of old targets stay: \(history.suffix(8))")
    }

    /// The bundles a fresh start finds under `root` (through its links): directories holding `.lproj` directories.
    private static func bundles(under root: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root) else { return [] }
        return names.sorted().map { root + "/" + $0 }.filter { bundle in
            ((try? FileManager.default.contentsOfDirectory(atPath: bundle)) ?? []).contains { $0.hasSuffix(".lproj") }
        }
    }
}
