import Foundation
import LprojClient
import LprojPaths
import LprojProcessTesting
import LprojProtocol
import LprojTables
import LprojTestSupport
import XCTest
@testable import LprojDaemon

/// The invariant, checked against a model: a seeded random run of saves
/// (in place, atomic, rename-then-write), broken saves and fixes, new,
/// removed and renamed localizations, a second table, removed bundles and
/// twin bundles (`Café` in NFC and in NFD), and a bundle `L` that is a
/// symbolic link swapped between the others (or dangling, or gone), with a
/// `sync` after each step.
/// After every step a client that applied every event in order holds
/// exactly the daemon's snapshot, the snapshot is what the files hold (a
/// broken file keeps its last good version), the bundles and
/// localizations the structural events announced are those served, and
/// (against the binary) every table image the daemon hands out, mapped,
/// holds what the files hold. A quarter of the atomic saves are made under
/// a hold with the bundle's other table, then released as one change; some
/// steps roll a bundle back to its previous kept generation (its tables
/// from `generation-tables` written back); the client acknowledges every
/// generation, and after each step a `wait` finds it shows them all.
///
/// The same run drives the built binary over its socket and, far faster,
/// the daemon's core in this process (`CoreHarness`: real inotify, a clock
/// that skips the waits), with thousands of steps a seed. In process, the
/// core reads what is queued between any two of a step's system calls as
/// the seed says (sometimes letting a wait run out first), so how a step
/// splits into batches is part of the model; the binary's timing is its
/// own. A seed's steps are the same in both (and from run to run).
final class ModelTests: XCTestCase {
    func testTheBinarysSubscribersHoldWhatIsOnDiskWithSeed1() throws { try run(seed: 1) }
    func testTheBinarysSubscribersHoldWhatIsOnDiskWithSeed2() throws { try run(seed: 2) }
    func testTheBinarysSubscribersHoldWhatIsOnDiskWithSeed3() throws { try run(seed: 3) }
    func testTheBinarysSubscribersHoldWhatIsOnDiskWithSeed4() throws { try run(seed: 0x5eed) }

    func testTheCoresSubscribersHoldWhatIsOnDiskWithSeed1() throws { try run(seed: 1, steps: 2000, inProcess: true) }
    func testTheCoresSubscribersHoldWhatIsOnDiskWithSeed2() throws { try run(seed: 2, steps: 2000, inProcess: true) }
    func testTheCoresSubscribersHoldWhatIsOnDiskWithSeed3() throws { try run(seed: 3, steps: 2000, inProcess: true) }
    func testTheCoresSubscribersHoldWhatIsOnDiskWithSeed4() throws { try run(seed: 0x5eed, steps: 2000, inProcess: true) }

    private static let bundles = ["A", "B", "Caf\u{E9}", "Cafe\u{301}"]
    private static let localizations = ["en", "de", "fr", "ja"]
    private static let tables = ["Localizable", "Other"]

    /// One file as the model knows it: what it holds now (nil: broken) and
    /// the last version that parsed (what the daemon serves).
    private struct File {
        var entries: [String: String]?
        var lastGood: [String: String]?
    }

    private func run(seed: UInt64, steps: Int = 150, inProcess: Bool = false) throws {
        var random = SplitMix64(seed: seed)
        var files: [ExactName: File] = [:]   // relative path → state
        // (The directory holding the root: the binary's or the harness's, known once it is made.)
        var root = ""
        func path(_ relative: String) -> String { root + "/" + relative }
        // In process, the core may read what is queued between any two of a
        // step's system calls (as the binary's loop does whenever it wakes):
        // each split of a step into batches is a case of the model. Its own
        // generator, so that a seed's steps are the same in both runs.
        var harness: CoreHarness?
        var splits = SplitMix64(seed: seed ^ 0x5b11_75ba_7c4e_5000)
        func interleave() {
            guard let harness else { return }
            switch splits.next(4) {
            case 0, 1: harness.turn()
            case 2: harness.turn(expiring: true)   // as if the writer were slower than a wait
            default: break
            }
        }
        // As an editor writes: open, write, close (no fsync: Data.write's would be most of a step's time).
        func write(_ relative: String, _ text: String) throws {
            try Self.write(try Self.openTruncating(path(relative), interleave), text, interleave)
        }
        func move(_ from: String, _ to: String) throws {
            guard rename(path(from), path(to)) == 0 else { throw DaemonTestError("mv \(from) \(to): \(String(cString: strerror(errno)))") }
            interleave()
        }
        // As `rm -rf` does: the deepest first, one entry at a time.
        func remove(_ relative: String) throws {
            try Self.remove(path(relative), interleave)
        }
        func entries() -> [String: String] {
            var result: [String: String] = [:]
            for _ in 0..<(1 + random.next(4)) { result["k\(random.next(6))"] = "v\(random.next(1000))" }
            return result
        }
        // A start with something in it.
        func populate() throws {
            for bundle in ["A", "Caf\u{E9}"] {
                let relative = "\(bundle)/en.lproj/Localizable.strings"
                let table = entries()
                try write(relative, Self.text(table))
                files[ExactName(relative)] = File(entries: table, lastGood: table)
            }
        }
        let connection: any ModelConnection
        var daemon: DaemonProcess?
        if inProcess {
            harness = try CoreHarness({ $0.watch.removalGrace = .milliseconds(40); $0.watch.quietPeriod = .milliseconds(20) }) { made in
                root = made
                try populate()
            }
            connection = try harness!.connect()
        } else {
            // (Logging at debug level: a failure shows what the daemon did last.)
            daemon = try DaemonProcess(config: "[Watch]\nRemovalGrace=40ms\nQuietPeriod=20ms\n[Log]\nLevel=debug\n")
            root = daemon!.root
            try populate()
            try daemon!.start()
            connection = try daemon!.connect()
        }
        defer { if let daemon { XCTAssertEqual(daemon.stop(), 0, daemon.log) } }
        _ = try connection.request(Hello(client: "model"))
        // The client acknowledges every generation it applied, as LiveBundle does: after each step, `wait` finds it shows them all.
        let reply = try connection.request(Subscribe(name: "all", snapshot: true, acknowledges: true))
        var mirror = Mirror(snapshot: try XCTUnwrap(reply.tables))
        var history: [String] = []
        // The bundle `L` links to (nil: no link). A file broken when L was
        // swapped to it is served through L as L served its path before the
        // swap (the last good version of the old target's table, if any);
        // `heldAtSwap` keeps that until the file is written whole.
        var linkTarget: String?
        var heldAtSwap: [ExactName: [String: String]?] = [:]
        var servedThroughLink: [String: [String: String]] = [:]   // "localization|table" → entries, as last expected
        // Each expected table is made once per content (most files are unchanged from step to step).
        var made: [[String: String]: Table] = [:]
        func expectedTable(_ entries: [String: String]) -> Table {
            if let table = made[entries] { return table }
            let table = Table(strings: entries)
            made[entries] = table
            return table
        }

        // Generations: a bundle's number grows exactly when its served tables change, and its hash is its tables'.
        var generations: [ExactName: (number: UInt64, tables: [ExactName: Table])] = [:]
        var hashes: [String: [ExactName: Table]] = [:]
        var rollbacks = 0
        defer { XCTAssertGreaterThan(rollbacks, 0, "seed \(seed): the run rolled back no bundle") }
        for step in 0..<steps {
            let bundle = Self.bundles[random.next(Self.bundles.count)]
            let localization = Self.localizations[random.next(Self.localizations.count)]
            let table = Self.tables[random.next(Self.tables.count)]
            let directory = "\(bundle)/\(localization).lproj", relative = "\(directory)/\(table).strings"
            let existing = files.keys.filter { $0.string.hasPrefix(bundle + "/") && Array($0.string.utf8).starts(with: Array((bundle + "/").utf8)) }.sorted()
            var action: String
            switch random.next(12) {
            case 0, 1:
                action = "in-place \(relative)"
                let new = entries()
                let descriptor = try Self.openTruncating(path(relative), interleave)
                try Self.write(descriptor, Self.text(new), interleave)
                files[ExactName(relative), default: File()].entries = new
                files[ExactName(relative)]!.lastGood = new
            case 2, 3:
                // A quarter of them under a hold, with the bundle's other table: released as one change.
                let held = random.next(4) == 0
                if held { _ = try connection.request(Hold(bundle: path(bundle))) }
                action = (held ? "held: " : "") + "atomic \(relative)"
                let new = entries()
                try write("\(directory)/.\(table).strings.tmp", Self.text(new))
                try move("\(directory)/.\(table).strings.tmp", relative)
                files[ExactName(relative), default: File()].entries = new
                files[ExactName(relative)]!.lastGood = new
                if held {
                    let other = Self.tables[(Self.tables.firstIndex(of: table)! + 1) % Self.tables.count]
                    let second = entries()
                    try write("\(directory)/.\(other).strings.tmp", Self.text(second))
                    try move("\(directory)/.\(other).strings.tmp", "\(directory)/\(other).strings")
                    files[ExactName("\(directory)/\(other).strings"), default: File()].entries = second
                    files[ExactName("\(directory)/\(other).strings")]!.lastGood = second
                    action += " + \(other), released"
                    _ = try connection.request(Sync())
                    _ = try connection.request(Release(bundle: path(bundle)))
                }
            case 4:
                action = "broken \(relative)"
                try write(relative, "\"k0\" = \"unterminated;\n")
                files[ExactName(relative), default: File()].entries = nil
            case 5:
                guard let victim = existing.randomElement(using: &random) else { continue }
                action = "rename-then-write \(victim.string)"
                let new = entries()
                try move(victim.string, victim.string + ".orig")
                try write(victim.string, Self.text(new))
                try remove(victim.string + ".orig")
                files[victim] = File(entries: new, lastGood: new)
            case 6:
                action = "rm -rf \(directory)"
                if FileManager.default.fileExists(atPath: path(directory)) { try remove(directory) }
                for key in files.keys where key.isWithin(directory) { files[key] = nil }
            case 7:
                let target = Self.localizations[random.next(Self.localizations.count)]
                let destination = "\(bundle)/\(target).lproj"
                guard target != localization, FileManager.default.fileExists(atPath: path(directory)),
                      !FileManager.default.fileExists(atPath: path(destination)) else { continue }
                action = "mv \(directory) \(destination)"
                try move(directory, destination)
                for key in files.keys where key.isWithin(directory) {
                    let moved = destination + key.string.dropFirst(directory.count)
                    let state = files.removeValue(forKey: key)!
                    // Read afresh at its new path: a broken file there has no last good version.
                    files[ExactName(String(moved))] = File(entries: state.entries, lastGood: state.entries)
                }
            case 8:
                guard let victim = existing.randomElement(using: &random) else { continue }
                action = "rm \(victim.string)"
                try remove(victim.string)
                files[victim] = nil
            case 10:
                action = "ln -s \(bundle) L (swapped in)"
                guard symlink(bundle, path("L.tmp")) == 0 else { throw DaemonTestError("ln -s: \(String(cString: strerror(errno)))") }
                interleave()
                try move("L.tmp", "L")
                linkTarget = bundle
                heldAtSwap = [:]
                for (key, file) in files where key.isWithin(bundle) && file.entries == nil {
                    let parts = key.string.split(separator: "/")
                    heldAtSwap[key] = .some(servedThroughLink["\(parts[1].dropLast(".lproj".count))|\(parts[2].dropLast(".strings".count))"])
                }
            case 11:
                guard linkTarget != nil, random.next(2) == 0 else { continue }
                action = "rm L"
                try remove("L")
                linkTarget = nil
            case 9 where random.next(3) != 0:
                // A rollback, as lprojctl makes one: the generation before the current one written back (files it did not have
                // removed). A bundle with none kept (new, or served nothing) is left.
                guard let kept = try? connection.request(GenerationTables(bundle: path(bundle))) else { continue }
                action = "rollback \(bundle) to generation \(kept.generation)"
                rollbacks += 1
                var wanted: [ExactName: [String: String]] = [:]
                for table in kept.tables {
                    wanted[ExactName("\(bundle)/\(table.language).lproj/\(table.table).strings")] = table.entries.compactMapValues(\.text)
                }
                for key in files.keys where key.isWithin(bundle) && wanted[key] == nil {
                    try remove(key.string)
                    files[key] = nil
                }
                for (key, entries) in wanted.sorted(by: { $0.key < $1.key }) {
                    try write(key.string, Self.text(entries))
                    files[key] = File(entries: entries, lastGood: entries)
                }
            case 9:
                action = "rm -rf \(bundle)"
                if FileManager.default.fileExists(atPath: path(bundle)) { try remove(bundle) }
                for key in files.keys where key.isWithin(bundle) { files[key] = nil }
            default:
                continue
            }
            // A file broken at the swap is served through L as the file is once it is written whole.
            heldAtSwap = heldAtSwap.filter { files[$0.key] != nil && files[$0.key]!.entries == nil }
            // (By scalars: `replacingOccurrences` would match the NFC twin as well.)
            history.append("\(step): " + action.unicodeScalars.map { $0 == "\u{301}" ? "+U301" : String($0) }.joined())
            try mirror.catchUp(connection)
            let snapshot = try connection.served()
            var expected = Mirror(snapshot: [])
            for (relative, file) in files {
                guard let lastGood = file.lastGood else { continue }
                let parts = relative.string.split(separator: "/")
                let (localization, table) = (String(parts[1].dropLast(".lproj".count)), String(parts[2].dropLast(".strings".count)))
                expected.tables[Mirror.key(path(String(parts[0])), localization, table)] = expectedTable(lastGood)
            }
            // The same files through the link, when it leads to their bundle.
            servedThroughLink = [:]
            for (relative, file) in files {
                guard let linkTarget, relative.isWithin(linkTarget) else { continue }
                guard let served = heldAtSwap[relative] ?? file.lastGood else { continue }
                let parts = relative.string.split(separator: "/")
                let (localization, table) = (String(parts[1].dropLast(".lproj".count)), String(parts[2].dropLast(".strings".count)))
                expected.tables[Mirror.key(path("L"), localization, table)] = expectedTable(served)
                servedThroughLink["\(localization)|\(table)"] = served
            }
            // The daemon's last lines, then the steps, so that a failure's end (what a CI excerpt shows) says what differs.
            let log = daemon.map { "the daemon's last log lines:\n" + $0.log.split(separator: "\n").suffix(40).joined(separator: "\n") + "\n" } ?? ""
            let context = "seed \(seed); \(log)the last steps:\n" + history.suffix(60).joined(separator: "\n")
            if mirror.tables != snapshot.tables {
                XCTFail("the client differs from the daemon's snapshot; \(context)\n(client vs snapshot) \(Self.difference(mirror.tables, snapshot.tables))")
            }
            if snapshot.tables != expected.tables {
                XCTFail("the daemon's snapshot differs from the files; \(context)\n(snapshot vs files) \(Self.difference(snapshot.tables, expected.tables))")
            }
            if let imaged = try connection.imaged(bundles: (Self.bundles + ["L"]).map(path)), imaged.tables != expected.tables {
                XCTFail("the daemon's images differ from the files; \(context)\n(images vs files) \(Self.difference(imaged.tables, expected.tables))")
            }
            for summary in try connection.request(List()).bundles {
                // By bytes: `Café` in NFC and in NFD are two bundles.
                let prefix = Array((summary.path + "|").utf8)
                // (A bundle listed for its broken files alone serves nothing: it has no generation.)
                let serves = snapshot.tables.keys.contains { Array($0.string.utf8).starts(with: prefix) }
                guard let number = summary.generation, let hash = summary.hash else {
                    if serves { XCTFail("\(summary.path) has no generation; \(context)") }
                    continue
                }
                // Keyed by localization and table: the hash is of the contents, whichever bundle serves them (L and its target).
                let tables = Dictionary(uniqueKeysWithValues: snapshot.tables.filter { Array($0.key.string.utf8).starts(with: prefix) }
                    .map { (ExactName(String(decoding: Array($0.key.string.utf8).dropFirst(prefix.count), as: UTF8.self)), $0.value) })
                if let known = hashes[hash], known != tables {
                    XCTFail("\(summary.path): the hash \(hash) stands for other tables too; \(context)")
                }
                hashes[hash] = tables
                // (The same tables may come back in a later generation: a bundle removed and made again in one step.)
                if let last = generations[ExactName(summary.path)] {
                    XCTAssertGreaterThanOrEqual(number, last.number, "\(summary.path): the generation went back; \(context)")
                    if last.tables != tables {
                        XCTAssertGreaterThan(number, last.number, "\(summary.path): changed without a new generation; \(context)")
                    }
                }
                generations[ExactName(summary.path)] = (number, tables)
            }
            let waited = try connection.request(Wait(timeout: 0))
            if !waited.done {
                XCTFail("the client applied every event, yet it does not show every generation: \(waited.lagging); \(context)")
            }
            let implied = mirror.impliedStructure
            XCTAssertEqual(mirror.bundles, implied.bundles, "bundle events disagree with the tables served; \(context)")
            XCTAssertEqual(mirror.localizations, implied.localizations, "localization events disagree with the tables served; \(context)")
            XCTAssertEqual(mirror.resyncs, 0, context)
            if mirror.tables != snapshot.tables || snapshot.tables != expected.tables { return }
        }
    }

    /// What differs between two states, briefly: table by table.
    private static func difference(_ left: [ExactName: Table], _ right: [ExactName: Table]) -> String {
        var lines: [String] = []
        for key in Set(left.keys).union(right.keys).sorted() where left[key] != right[key] {
            func show(_ table: Table?) -> String {
                table.map { $0.sortedKeys.map { "\($0)=\(table![$0]!.text ?? "?")" }.joined(separator: ",") } ?? "absent"
            }
            let name = String(key.string.split(separator: "/").last ?? "").replacingOccurrences(of: "e\u{301}", with: "e+U301")
            lines.append("\(name): \(show(left[key])) vs \(show(right[key]))")
        }
        return lines.joined(separator: "; ")
    }

    private static func text(_ entries: [String: String]) -> String {
        entries.keys.sorted().map { "\"\($0)\" = \"\(entries[$0]!)\";" }.joined(separator: "\n") + "\n"
    }

    /// Opens `path` for writing, emptied, as an editor does (its missing directories made one at a time).
    private static func openTruncating(_ path: String, _ interleave: () -> Void) throws -> Int32 {
        var missing: [String] = []
        var directory = (path as NSString).deletingLastPathComponent
        while !FileManager.default.fileExists(atPath: directory) {
            missing.append(directory)
            directory = (directory as NSString).deletingLastPathComponent
        }
        for directory in missing.reversed() {
            guard mkdir(directory, 0o755) == 0 else { throw DaemonTestError("mkdir \(directory): \(String(cString: strerror(errno)))") }
            interleave()
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw DaemonTestError("cannot open \(path)") }
        interleave()
        return descriptor
    }

    /// Writes `text` at once and closes `descriptor`.
    private static func write(_ descriptor: Int32, _ text: String, _ interleave: () -> Void) throws {
        defer { close(descriptor); interleave() }
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else {
            throw DaemonTestError("short write")
        }
        interleave()
    }

    /// Removes `path` and what is under it, the deepest first (a link itself, never what it leads to).
    private static func remove(_ path: String, _ interleave: () -> Void) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw DaemonTestError("rm \(path): \(String(cString: strerror(errno)))") }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            for name in try FileManager.default.contentsOfDirectory(atPath: path).sorted() { try remove(path + "/" + name, interleave) }
            guard rmdir(path) == 0 else { throw DaemonTestError("rmdir \(path): \(String(cString: strerror(errno)))") }
        } else {
            guard unlink(path) == 0 else { throw DaemonTestError("rm \(path): \(String(cString: strerror(errno)))") }
        }
        interleave()
    }
}

/// What the model test speaks to: a connection to the built daemon, or a session of a core in this process.
protocol ModelConnection {
    /// Sends `request` and returns its reply (an error reply thrown).
    func request<R: Request>(_ request: R) throws -> R.Reply
    /// An event that has already arrived, or nil.
    func arrivedEvent() -> Wire.ReceivedEvent?
    /// Every table the daemon serves now.
    func served() throws -> Mirror
    /// Every table of `bundles` as the daemon's images, mapped; nil where images are not sent (in process).
    func imaged(bundles: [String]) throws -> Mirror?
}

extension DaemonConnection: ModelConnection {
    func request<R: Request>(_ request: R) throws -> R.Reply { try send(request, timeout: .seconds(60)) }
    func arrivedEvent() -> Wire.ReceivedEvent? { try? nextEvent(timeout: .milliseconds(1)) }
    func served() throws -> Mirror { Mirror(snapshot: try request(Snapshot()).tables) }

    func imaged(bundles: [String]) throws -> Mirror? {
        var mirror = Mirror(snapshot: [])
        for bundle in bundles {
            let reply: (clock: Clock, tables: [(image: ImageSummary, table: Result<Table, TableImage.Refusal>)])
            do {
                reply = try images(Images(bundle: bundle), timeout: .seconds(60))
            } catch {
                // A bundle that is gone (or a dangling link) has no images.
                if case .refused(let refusal) = error, refusal.code == .notFound || refusal.code == .outsideRoots { continue }
                throw error
            }
            for (image, table) in reply.tables { mirror.tables[Mirror.key(bundle, image.language, image.table)] = try table.get() }
        }
        return mirror
    }
}

extension CoreConnection: ModelConnection {
    func request<R: Request>(_ request: R) throws -> R.Reply { try send(request) }
    func arrivedEvent() -> Wire.ReceivedEvent? { try? nextEvent() }
    /// The harness writes no descriptors: images are checked against the binary.
    func imaged(bundles: [String]) throws -> Mirror? { nil }
    /// The catalog's tables themselves (what a `snapshot` reply encodes; the binary's runs check the wire).
    func served() throws -> Mirror {
        var mirror = Mirror(snapshot: [])
        for (address, table) in harness.core.tables.served {
            mirror.tables[Mirror.key(address.bundle, address.localization, address.table)] = table
        }
        return mirror
    }
}

extension Mirror {
    /// Applies every event that arrived before a `sync` reply: then the mirror is as of every change made before the call.
    mutating func catchUp(_ connection: any ModelConnection) throws {
        _ = try connection.request(Sync())
        while let event = connection.arrivedEvent() {
            if event.name == GenerationPublished.name {
                // Every event before it is applied: the mirror holds that generation.
                let published = try event.decode(GenerationPublished.self)
                _ = try connection.request(Ack(bundle: published.bundle, generation: published.generation))
                continue
            }
            try apply(event)
        }
    }
}
