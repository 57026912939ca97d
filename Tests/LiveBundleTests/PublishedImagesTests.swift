import CLinux
import Foundation
@testable import LprojClient
import LprojProcessTesting
import LprojProtocol
import LprojTables
import XCTest

/// Published images: lprojd writes the images clients asked for beside its
/// socket, for processes that start later to read without asking — only
/// tables every local user may read, only while the daemon runs and holds
/// the directory, kept current as the tables change; and a bundle's first
/// views read them, and nothing that is not the daemon's or not whole.
final class PublishedImagesTests: XCTestCase {
    private var daemon: DaemonProcess!
    private var config: String { daemon.directory + "/config" }
    private var published: String { SocketPath.publishedImages(socket: daemon.socket) }

    override func setUpWithError() throws {
        daemon = try DaemonProcess()
        // A service's resources as deployed: every directory above them searchable, the files readable, by every user.
        XCTAssertEqual(chmod(daemon.directory, 0o755), 0)
        try daemon.write("App/en.lproj/Localizable.strings", "\"home_title\" = \"Home\";\n")
        try daemon.write("App/fr.lproj/Localizable.strings", "\"home_title\" = \"Accueil\";\n")
        try daemon.start()
    }

    override func tearDown() {
        if let daemon {
            kill(daemon.pid, SIGCONT)
            XCTAssertEqual(daemon.stop(), 0)
        }
        daemon = nil
    }

    func testABundleStartingWhileTheDaemonRunsMapsWhatItPublishedWithoutAskingIt() throws {
        XCTAssertEqual(try imageFiles(), [], "nothing is published before a client asks")
        _ = try daemon.connect().images(Images(bundle: daemon.root + "/App"))
        XCTAssertEqual(try imageFiles().count, 2)
        for name in try imageFiles() {
            var info = stat()
            XCTAssertEqual(stat(published + "/" + name, &info), 0)
            XCTAssertEqual(info.st_mode & 0o777, 0o644, "for every user to read")
        }
        var directory = stat()
        XCTAssertEqual(stat(published, &directory), 0)
        XCTAssertEqual(directory.st_mode & 0o777, 0o755)
        XCTAssertEqual(try daemon.connect().send(Status()).counters["images-published"], 2)

        // Stopped, the daemon still holds the directory but reads no change: a file edited now is not what it serves.
        daemon.signal(SIGSTOP)
        try Data("\"home_title\" = \"Maison\";\n".utf8).write(to: URL(fileURLWithPath: daemon.path("App/fr.lproj/Localizable.strings")))
        let bundle = try make(language: "fr")
        defer { bundle.close() }
        XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Accueil",
                       "the first lookup came from the published image, not the file and not a round trip")
        XCTAssertEqual(publishedTablesRead(of: bundle), 2, "fr and en (the end of the search list)")
        XCTAssertEqual(bundle.core.snapshot.tables["fr"]?.loaded?["Localizable"]?.isMapped, true)
        // Running again, the daemon reads the edit; connecting, the bundle reads its views' tables again.
        daemon.signal(SIGCONT)
        try awaitState(of: bundle) { bundle.localizedString(forKey: "home_title", value: nil, table: nil) == "Maison" }
    }

    func testAPublishedTableIsPublishedAgainWhenItChangesAndRemovedWhenItGoes() throws {
        _ = try daemon.connect().images(Images(bundle: daemon.root + "/App"))
        XCTAssertEqual(publishedValue("fr"), "Accueil")
        try daemon.write("App/fr.lproj/Localizable.strings", "\"home_title\" = \"Maison\";\n")
        try awaitCondition { self.publishedValue("fr") == "Maison" }
        XCTAssertEqual(publishedValue("en"), "Home", "a table that did not change keeps its image")
        try FileManager.default.removeItem(atPath: daemon.path("App/fr.lproj/Localizable.strings"))
        try awaitCondition { self.publishedValue("fr") == nil }
        XCTAssertEqual(try imageFiles().count, 1)
        // A bundle starting now reads what the daemon serves: no fr, so the development localization answers.
        let bundle = try make(language: "fr")
        defer { bundle.close() }
        XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Home")
    }

    func testOnlyTablesEveryUserMayReadArePublished() throws {
        XCTAssertEqual(chmod(daemon.path("App/fr.lproj/Localizable.strings"), 0o600), 0)
        try daemon.write("Private/App/fr.lproj/Localizable.strings", "\"home_title\" = \"Secret\";\n")
        XCTAssertEqual(chmod(daemon.path("Private"), 0o700), 0)
        try daemon.write("Listed/App/fr.lproj/Localizable.strings", "\"home_title\" = \"Listé\";\n")
        XCTAssertEqual(try runProgram("/usr/bin/setfacl", ["-m", "u:nobody:---", daemon.path("Listed/App/fr.lproj")]).status, 0)
        let tool = try daemon.connect()
        // Each bundle served first (the daemon may see the new directories in either order).
        try awaitCondition {
            ["Private/App", "Listed/App"].allSatisfy { (try? tool.send(Snapshot(bundle: self.daemon.root + "/" + $0)))?.tables.count == 1 }
        }
        for bundle in ["App", "Private/App", "Listed/App"] {
            XCTAssertFalse(try tool.images(Images(bundle: daemon.root + "/" + bundle)).tables.isEmpty, bundle)
        }
        XCTAssertEqual(publishedValue("en"), "Home", "readable by all: published")
        XCTAssertNil(publishedValue("fr"), "a file only its owner may read")
        XCTAssertNil(publishedValue("fr", bundle: daemon.root + "/Private/App"), "a file under a directory others may not enter")
        XCTAssertNil(publishedValue("fr", bundle: daemon.root + "/Listed/App"), "a directory with an access list (it may shut a user out)")
        XCTAssertEqual(try imageFiles().count, 1)
    }

    func testTheImagesOfADaemonThatStoppedOrWasKilledAreNeverRead() throws {
        _ = try daemon.connect().images(Images(bundle: daemon.root + "/App"))
        XCTAssertEqual(try imageFiles().count, 2)
        try awaitCondition { self.keptAddresses().count == 2 }
        daemon.killHard()
        // Killed, it removed nothing, but its lock went with it: the files left are not read.
        XCTAssertEqual(try imageFiles().count, 2)
        try Data("\"home_title\" = \"Maison\";\n".utf8).write(to: URL(fileURLWithPath: daemon.path("App/fr.lproj/Localizable.strings")))
        XCTAssertNil(PublishedImages(path: published))
        let bundle = try make(language: "fr")
        XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Maison", "read from the file")
        XCTAssertEqual(publishedTablesRead(of: bundle), 0)
        bundle.close()
        // Started again, it empties the directory and publishes what it had published, as the files are now; stopped, it removes it.
        try daemon.start()
        XCTAssertEqual(try imageFiles().count, 2)
        XCTAssertEqual(publishedValue("fr"), "Maison")
        XCTAssertEqual(daemon.stop(), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: published))
        try daemon.start()
    }

    func testARestartedDaemonPublishesWhatItHadPublishedBeforeItIsReady() throws {
        try daemon.write("Other/fr.lproj/Localizable.strings", "\"home_title\" = \"Autre\";\n")
        let tool = try daemon.connect()
        try awaitCondition { (try? tool.send(Snapshot(bundle: self.daemon.root + "/Other")))?.tables.count == 1 }
        _ = try tool.images(Images(bundle: daemon.root + "/App"))
        _ = try tool.images(Images(bundle: daemon.root + "/Other"))
        XCTAssertEqual(try imageFiles().count, 3)
        // The list is written at most once a second, and when the daemon stops; stopping removes the images, not the list.
        XCTAssertEqual(daemon.stop(), 0)
        XCTAssertEqual(keptAddresses().count, 3)
        // While it is down: fr edited, Other's table made private, en removed.
        try daemon.write("App/fr.lproj/Localizable.strings", "\"home_title\" = \"Maison\";\n")
        XCTAssertEqual(chmod(daemon.path("Other/fr.lproj/Localizable.strings"), 0o600), 0)
        try FileManager.default.removeItem(atPath: daemon.path("App/en.lproj"))
        try daemon.start()
        // Before any client asked: published as the files are now, only what every user may read and is served.
        XCTAssertEqual(try imageFiles().count, 1)
        XCTAssertEqual(publishedValue("fr"), "Maison")
        XCTAssertNil(publishedValue("fr", bundle: daemon.root + "/Other"))
        XCTAssertEqual(try daemon.connect().send(Status()).counters["images-published"], 1)
        try awaitCondition { self.keptAddresses() == [[self.daemon.root + "/App", "fr", "Localizable"]] }
        let bundle = try make(language: "fr")
        defer { bundle.close() }
        XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Maison")
        XCTAssertEqual(publishedTablesRead(of: bundle), 1, "fr mapped without asking")
    }

    func testADamagedListOfWhatWasPublishedIsNamedAndReplaced() throws {
        XCTAssertEqual(daemon.stop(), 0)
        try Data("[[\"/App\", \"fr\"".utf8).write(to: URL(fileURLWithPath: keptFile))
        try daemon.start()
        XCTAssertTrue(daemon.log.contains(keptFile + ": not a list of [bundle, localization, table]"), daemon.log)
        XCTAssertEqual(try imageFiles(), [])
        _ = try daemon.connect().images(Images(bundle: daemon.root + "/App"))
        try awaitCondition { self.keptAddresses().count == 2 }
        // Not a file (another user cannot put anything there: the state directory is the daemon's).
        XCTAssertEqual(daemon.stop(), 0)
        unlink(keptFile)
        XCTAssertEqual(mkdir(keptFile, 0o700), 0)
        try daemon.start()
        XCTAssertTrue(daemon.log.contains(keptFile + ": not a regular file"), daemon.log)
        XCTAssertEqual(try imageFiles(), [])
    }

    func testADirectoryAnotherUserPlantedIsNeitherUsedByTheDaemonNorRead() throws {
        XCTAssertEqual(daemon.stop(), 0)
        XCTAssertEqual(mkdir(published, 0o755), 0)
        XCTAssertEqual(chown(published, 12345, 12345), 0)
        try daemon.start()
        XCTAssertTrue(daemon.log.contains("belongs to user 12345"), daemon.log)
        _ = try daemon.connect().images(Images(bundle: daemon.root + "/App"))
        XCTAssertEqual(try imageFiles(), [], "the daemon wrote nothing there")
        XCTAssertNil(try daemon.connect().send(Status()).counters["images-published"])
        // Whatever the planter puts there, locked as the daemon would, is not read.
        let planted = open(published, O_RDONLY | O_DIRECTORY)
        defer { close(planted) }
        XCTAssertEqual(flock(planted, LOCK_EX), 0)
        try forge("fr", value: "Planted", in: published)
        XCTAssertNil(PublishedImages(path: published), "another user's directory")
        XCTAssertEqual(chown(published, 0, 0), 0)
        XCTAssertEqual(chmod(published, 0o777), 0)
        XCTAssertNil(PublishedImages(path: published), "a directory every user may write in")
        XCTAssertEqual(chmod(published, 0o755), 0)
        XCTAssertEqual(PublishedImages(path: published)?.table(bundle: daemon.root + "/App", localization: "fr", table: "Localizable")?["home_title"]?.text,
                       "Planted", "(the same directory, trusted and locked, is read: each refusal above is its check's)")
        let bundle = try make(language: "fr")
        defer { bundle.close() }
        XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Planted")
    }

    /// A directory of the daemon's own user that holds anything but images
    /// is someone's: it is left as it is, and nothing is published in it.
    func testADirectoryOfTheDaemonsUserHoldingOtherFilesIsLeftAlone() throws {
        XCTAssertEqual(daemon.stop(), 0)
        XCTAssertEqual(mkdir(published, 0o700), 0)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: published + "/notes.txt"))
        try Data("old".utf8).write(to: URL(fileURLWithPath: published + "/0123456789abcdef.image"))
        try daemon.start()
        XCTAssertTrue(daemon.log.contains("holds notes.txt, which lprojd did not put there"), daemon.log)
        _ = try daemon.connect().images(Images(bundle: daemon.root + "/App"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: published).sorted(), ["0123456789abcdef.image", "notes.txt"])
        var info = stat()
        XCTAssertEqual(stat(published, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o700, "not opened to every user")
        XCTAssertEqual(daemon.stop(), 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: published + "/notes.txt"), "nor removed at the stop")
        try FileManager.default.removeItem(atPath: published)
        try daemon.start()
    }

    func testSwitchingImagesOffByAReloadRemovesWhatWasPublished() throws {
        try restart(config: "[Limits]\nSharedImages=8\n")
        _ = try daemon.connect().images(Images(bundle: daemon.root + "/App"))
        XCTAssertEqual(try imageFiles().count, 1)
        try daemon.rewriteConfig("[Limits]\nSharedImages=0\n")
        daemon.signal(SIGHUP)
        let tool = try daemon.connect()
        try awaitCondition { (try? tool.send(Images(bundle: self.daemon.root + "/App"))) == nil }
        XCTAssertEqual(try imageFiles(), [])
    }

    /// In the daemon's own directory, a file that is not the daemon's image
    /// of the table asked for is not read, and the bundle reads the table's file.
    func testAFileThatIsNotTheDaemonsImageOfTheTableIsNotRead() throws {
        _ = try daemon.connect().images(Images(bundle: daemon.root + "/App"))
        let name = PublishedImage.name(bundle: daemon.root + "/App", localization: "fr", table: "Localizable")
        let path = published + "/" + name
        let good = try Data(contentsOf: URL(fileURLWithPath: path))
        daemon.signal(SIGSTOP)
        try Data("\"home_title\" = \"Fichier\";\n".utf8).write(to: URL(fileURLWithPath: daemon.path("App/fr.lproj/Localizable.strings")))
        var flipped = good
        flipped[good.count - 5] ^= 0x20
        let enName = PublishedImage.name(bundle: daemon.root + "/App", localization: "en", table: "Localizable")
        let cases: [(String, () throws -> Void)] = [
            ("a flipped byte", { try flipped.write(to: URL(fileURLWithPath: path)) }),
            ("cut short", { try good.prefix(good.count - 8).write(to: URL(fileURLWithPath: path)) }),
            ("another table's image under its name", { try Data(contentsOf: URL(fileURLWithPath: self.published + "/" + enName)).write(to: URL(fileURLWithPath: path)) }),
            ("another user's file", { try good.write(to: URL(fileURLWithPath: path)); XCTAssertEqual(chown(path, 12345, 12345), 0) }),
            ("a symbolic link to the image", {
                try good.write(to: URL(fileURLWithPath: self.daemon.directory + "/elsewhere.image"))
                XCTAssertEqual(symlink(self.daemon.directory + "/elsewhere.image", path), 0)
            }),
            ("a FIFO (an open for reading would block)", { XCTAssertEqual(mkfifo(path, 0o644), 0) }),
        ]
        for (what, plant) in cases {
            unlink(path)
            try plant()
            let bundle = try make(language: "fr")
            XCTAssertEqual(bundle.localizedString(forKey: "home_title", value: nil, table: nil), "Fichier", what)
            XCTAssertEqual(publishedTablesRead(of: bundle), 1, "\(what): en's image only")
            bundle.close()
        }
        unlink(path)
        try good.write(to: URL(fileURLWithPath: path))
        let control = try make(language: "fr")
        defer { control.close() }
        XCTAssertEqual(control.localizedString(forKey: "home_title", value: nil, table: nil), "Accueil", "the daemon's image, put back, is read")
    }

    func testPublishingCanBeSwitchedOff() throws {
        try restart(config: "[Socket]\nPublishImages=no\n")
        XCTAssertEqual(try daemon.connect().images(Images(bundle: daemon.root + "/App")).tables.count, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: published))
        XCTAssertEqual(daemon.stop(), 0)
        daemon = try DaemonProcess(config: "[Socket]\nPublishImages=sometimes\n")
        XCTAssertThrowsError(try daemon.start())
        XCTAssertTrue(daemon.log.contains("PublishImages"), daemon.log)
        XCTAssertTrue(daemon.log.contains("expected yes or no"), daemon.log)
        daemon = nil
    }

    // MARK: - Helpers

    /// The daemon stopped, and another started with `config` on a bundle of fr alone, for every user to read.
    private func restart(config: String) throws {
        XCTAssertEqual(daemon.stop(), 0)
        daemon = try DaemonProcess(config: config)
        XCTAssertEqual(chmod(daemon.directory, 0o755), 0)
        try daemon.write("App/fr.lproj/Localizable.strings", "\"home_title\" = \"Accueil\";\n")
        try daemon.start()
    }

    private func make(language: String) throws -> LiveBundle {
        var options = LiveBundle.Options()
        options.socketPath = daemon.socket
        options.reportsMisses = false
        options.environment = ["LANG": "\(language).UTF-8", "LANGUAGE": language, "XDG_CONFIG_HOME": config]
        return try LiveBundle(path: daemon.root + "/App", options: options)
    }

    private func publishedTablesRead(of bundle: LiveBundle) -> Int {
        bundle.core.source.withLock { $0.sharing.publishedTablesRead.load(ordering: .relaxed) }
    }

    /// The `home_title` of the published image of `localization`'s Localizable, read as a client reads it.
    private func publishedValue(_ localization: String, bundle: String? = nil) -> String? {
        PublishedImages(path: published)?.table(bundle: bundle ?? daemon.root + "/App", localization: localization, table: "Localizable")?["home_title"]?.text
    }

    /// The file where the daemon keeps the addresses it published.
    private var keptFile: String { daemon.state + "/published-images" }

    /// The addresses the daemon keeps, as [bundle, localization, table].
    private func keptAddresses() -> [[String]] {
        guard let data = FileManager.default.contents(atPath: keptFile) else { return [] }
        return (try? JSONDecoder().decode([[String]].self, from: data)) ?? []
    }

    private func imageFiles() throws -> [String] {
        guard FileManager.default.fileExists(atPath: published) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: published).filter { $0.hasSuffix(PublishedImage.suffix) }.sorted()
    }

    /// A well-formed published image of App's `localization` Localizable with `value`, written to `directory`.
    private func forge(_ localization: String, value: String, in directory: String) throws {
        let bundle = daemon.root + "/App"
        let bytes = PublishedImage.encode(bundle: bundle, localization: localization, table: "Localizable",
                                          image: TableImage.encode(Table(strings: ["home_title": value])))
        try Data(bytes).write(to: URL(fileURLWithPath: directory + "/" + PublishedImage.name(bundle: bundle, localization: localization, table: "Localizable")))
    }

    private func awaitCondition(_ condition: () -> Bool) throws {
        // The daemon answers requests in order: each try is a round trip, never a sleep.
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw DaemonTestError("condition not reached") }
            _ = try daemon.connect().send(Sync(), timeout: .seconds(5))
        }
    }
}
