import Foundation
import LprojProcessTesting
import LprojProtocol
import LprojWatch
import XCTest

/// Roots inotify cannot serve: a root polled (`[Watch] Poll=on`, what
/// `auto` picks on NFS, SMB, FUSE, 9p) gets every kind of change with no
/// inotify watch on it at all; and a daemon out of file descriptors keeps
/// serving every table, says so, and catches up once it has them again.
final class PollingTests: XCTestCase {
    func testAPolledRootGetsEveryKindOfChangeWithoutInotify() throws {
        let daemon = try DaemonProcess(config: "")
        try daemon.rewriteConfig("[Watch]\nPoll=on \(daemon.root)\nPollInterval=100ms\nQuietPeriod=20ms\nRemovalGrace=50ms\n")
        try daemon.write("App/en.lproj/Localizable.strings", "\"title\" = \"Title\";\n")
        try daemon.write("App/de.lproj/Localizable.strings", "\"title\" = \"Titel\";\n")
        try daemon.start()
        XCTAssertTrue(daemon.log.contains("\(daemon.root): polled every 100 ms (Poll=on), not watched"), daemon.log)
        let connection = try daemon.subscriber()
        func change(_ where: (TableChanged) -> Bool) throws -> TableChanged {
            let event = try connection.awaitEvent(TableChanged.name, timeout: .seconds(10)) { (try? $0.decode(TableChanged.self)).map(`where`) ?? false }
            return try event.decode(TableChanged.self)
        }

        // An edit in place, a new table, a save by rename.
        try daemon.write("App/en.lproj/Localizable.strings", "\"title\" = \"Edited\";\n")
        XCTAssertEqual(try change { $0.table == "Localizable" && $0.language == "en" }.changed["title"]?.text, "Edited")
        try daemon.write("App/en.lproj/Menu.strings", "\"open\" = \"Open\";\n")
        XCTAssertEqual(try change { $0.table == "Menu" }.added["open"]?.text, "Open")
        try daemon.shell("printf '\"title\" = \"Renamed into place\";\\n' > App/en.lproj/.L.tmp && mv App/en.lproj/.L.tmp App/en.lproj/Localizable.strings",
                         in: daemon.root)
        XCTAssertEqual(try change { $0.table == "Localizable" && $0.language == "en" }.changed["title"]?.text, "Renamed into place")
        // A new localization, a removed table, a renamed and a removed directory.
        try daemon.write("App/fr.lproj/Localizable.strings", "\"title\" = \"Titre\";\n")
        XCTAssertEqual(try change { $0.language == "fr" }.added["title"]?.text, "Titre")
        try FileManager.default.removeItem(atPath: daemon.path("App/en.lproj/Menu.strings"))
        XCTAssertEqual(try change { $0.table == "Menu" }.deleted, true)
        try daemon.shell("mv App/de.lproj App/es.lproj", in: daemon.root)
        var moved = Set<String>()
        while moved.count < 2 {
            let event = try change { $0.language == "de" || $0.language == "es" }
            moved.insert("\(event.language) \(event.deleted == true ? "deleted" : "added")")
        }
        XCTAssertEqual(moved, ["de deleted", "es added"])
        try FileManager.default.removeItem(atPath: daemon.path("App/fr.lproj"))
        XCTAssertEqual(try change { $0.language == "fr" }.deleted, true)

        let status = try connection.send(Status())
        let polled = try XCTUnwrap(status.polledRoots?.first)
        XCTAssertEqual(polled.root, daemon.root)
        XCTAssertEqual(polled.reason, "Poll=on")
        XCTAssertNotNil(polled.lastScanSecondsAgo)
        XCTAssertEqual(status.watches, 0, "no directory of a polled root is watched")
        // And inotify holds no watch on any of its directories (the kernel's own list, by inode).
        let watched = Self.watchedInodes(of: status.pid)
        var inodes = Set<UInt64>()
        for path in [daemon.root, daemon.path("App"), daemon.path("App/en.lproj"), daemon.path("App/es.lproj")] {
            var info = stat()
            XCTAssertEqual(stat(path, &info), 0, path)
            inodes.insert(UInt64(info.st_ino))
        }
        XCTAssertTrue(watched.isDisjoint(with: inodes), "inotify watches \(watched) include the polled root's \(inodes)")
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    /// A reload that polls a watched root (and back): its watches go, the
    /// switch itself publishes nothing, and edits arrive either way.
    func testAReloadSwitchesARootBetweenWatchedAndPolled() throws {
        let daemon = try DaemonProcess(config: "")
        let settings = "PollInterval=100ms\nQuietPeriod=20ms\n"
        try daemon.rewriteConfig("[Watch]\n\(settings)")
        try daemon.write("App/en.lproj/Localizable.strings", "\"title\" = \"Title\";\n")
        try daemon.start()
        let connection = try daemon.subscriber()
        XCTAssertGreaterThan(try connection.send(Status()).watches, 0)
        for (mode, edit) in [("on", "Polled"), ("off", "Watched again")] {
            try daemon.rewriteConfig("[Watch]\n\(settings)Poll=\(mode) \(daemon.root)\n")
            daemon.signal(SIGHUP)
            try daemon.awaitNotification("READY=1")
            _ = try connection.send(Sync())
            XCTAssertNil(try? connection.nextEvent(timeout: .milliseconds(1)), "switching publishes nothing")
            let status = try connection.send(Status())
            XCTAssertEqual(status.polledRoots?.map(\.root), mode == "on" ? [daemon.root] : nil)
            XCTAssertEqual(status.watches == 0, mode == "on", "\(status.watches) watches with Poll=\(mode)")
            try daemon.write("App/en.lproj/Localizable.strings", "\"title\" = \"\(edit)\";\n")
            XCTAssertEqual(try connection.awaitEvent(TableChanged.name).decode(TableChanged.self).changed["title"]?.text, edit)
        }
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    /// What `statfs` says picks the filesystems `Poll=auto` polls.
    func testTheFilesystemsInotifyDoesNotSeeAreKnownByTheirMagic() {
        XCTAssertEqual(RemoteFilesystem.name(ofMagic: 0x6969), "NFS")
        XCTAssertEqual(RemoteFilesystem.name(ofMagic: 0xFF53_4D42), "CIFS")
        XCTAssertEqual(RemoteFilesystem.name(ofMagic: 0xFE53_4D42), "SMB2")
        XCTAssertEqual(RemoteFilesystem.name(ofMagic: 0x0102_1997), "9p")
        XCTAssertNotNil(RemoteFilesystem.name(ofMagic: 0x6573_5546), "FUSE: sshfs, virtiofs")
        XCTAssertNil(RemoteFilesystem.name(ofMagic: 0xEF53), "ext4 is seen whole")
        XCTAssertNil(RemoteFilesystem.name(ofMagic: 0x0102_1994), "tmpfs is seen whole")
        XCTAssertNil(RemoteFilesystem.name(at: NSTemporaryDirectory()), "the test's own temporary directory is local")
    }

    /// `RLIMIT_NOFILE` lowered under the running daemon to what it has
    /// open: an edit cannot be read and a new directory cannot be listed —
    /// the tables stay as they were, `status` and the log name the limit —
    /// and once the limit is back, both arrive.
    func testOutOfFileDescriptorsKeepsEveryTableAndCatchesUp() throws {
        let daemon = try DaemonProcess(config: "[Watch]\nPollInterval=100ms\nQuietPeriod=20ms\n")
        try daemon.write("App/en.lproj/Localizable.strings", "\"title\" = \"Title\";\n")
        try daemon.start()
        let connection = try daemon.subscriber()
        let pid = try connection.send(Status()).pid
        // util-linux's prlimit(1) sets another process's soft limit (the Glibc module leaves prlimit(2) out).
        let shown = try runProgram("/usr/bin/prlimit", ["--pid", "\(pid)", "--nofile", "--noheadings", "--raw", "--output", "SOFT"])
        let soft = try XCTUnwrap(Int(shown.output.trimmingCharacters(in: .whitespacesAndNewlines)), shown.output)
        // A descriptor limit bites at the lowest free number (open returns the lowest).
        let open = Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap(Int.init))
        let lowestFree = (0...).first { !open.contains($0) }!
        var restored = false
        func setSoftLimit(_ limit: Int) throws {
            let set = try runProgram("/usr/bin/prlimit", ["--pid", "\(pid)", "--nofile=\(limit):"])
            XCTAssertEqual(set.status, 0, set.output + daemon.log)
        }
        try setSoftLimit(lowestFree)
        // Restored even when the test fails half-way (the daemon lives on until the DaemonProcess goes).
        defer { if !restored { try? setSoftLimit(soft) } }

        try daemon.write("App/en.lproj/Localizable.strings", "\"title\" = \"Edited while out of descriptors\";\n")
        try daemon.write("App/fr.lproj/Localizable.strings", "\"title\" = \"Titre\";\n")
        let deadline = ContinuousClock.now + .seconds(10)
        var warning: String?
        while warning == nil, ContinuousClock.now < deadline {
            warning = try connection.send(Status()).warnings?.first { $0.contains("out of file descriptors") }
        }
        let text = try XCTUnwrap(warning, "status names the limit")
        XCTAssertTrue(text.contains("LimitNOFILE="), text)
        XCTAssertEqual(try connection.send(Lookup(bundle: daemon.path("App"), key: "title", languages: ["en"])).text, "Title",
                       "the table is kept as it was")

        try setSoftLimit(soft)
        restored = true
        var arrived = Set<String>()
        while arrived.count < 2 {
            let change = try connection.awaitEvent(TableChanged.name, timeout: .seconds(10)).decode(TableChanged.self)
            if change.language == "en", change.changed["title"]?.text == "Edited while out of descriptors" { arrived.insert("en") }
            if change.language == "fr", change.added["title"]?.text == "Titre" { arrived.insert("fr") }
        }
        _ = try connection.send(Sync())
        XCTAssertNil(try connection.send(Status()).warnings, "the warning goes with the limit")
        XCTAssertTrue(daemon.log.contains("out of file descriptors"), daemon.log)
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }

    /// The inodes inotify watches for process `pid` (from /proc/PID/fdinfo).
    private static func watchedInodes(of pid: Int32) -> Set<UInt64> {
        var inodes = Set<UInt64>()
        for fd in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fdinfo")) ?? [] {
            guard let info = try? String(contentsOfFile: "/proc/\(pid)/fdinfo/\(fd)", encoding: .utf8) else { continue }
            for line in info.split(separator: "\n") where line.hasPrefix("inotify wd:") {
                guard let field = line.split(separator: " ").first(where: { $0.hasPrefix("ino:") }),
                      let inode = UInt64(field.dropFirst(4), radix: 16) else { continue }
                inodes.insert(inode)
            }
        }
        return inodes
    }
}
