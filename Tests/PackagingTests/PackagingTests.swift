import Foundation
import LprojProcessTesting
import XCTest

/// The installed tree (`make install DESTDIR=…`) and the Debian package
/// (`make deb`), as `make test` stages them (LPROJ_STAGE, LPROJ_DEB): what
/// an operator gets. The man pages and completions are held to `--help`
/// and to the shipped config.
final class PackagingTests: XCTestCase {
    private var stage: String!
    private var package: String!

    override func setUpWithError() throws {
        let environment = ProcessInfo.processInfo.environment
        try requirement(environment["LPROJ_STAGE"] != nil && environment["LPROJ_DEB"] != nil,
                        "the installed tree and the package are staged by `make test` (LPROJ_STAGE, LPROJ_DEB)")
        let (stage, package) = (environment["LPROJ_STAGE"]!, environment["LPROJ_DEB"]!)
        self.stage = stage
        self.package = package
    }

    func testTheInstalledUnitsVerifyAndAreHardened() throws {
        // A root with the staged files over the host's own units (sysinit.target…) and /bin/kill.
        let root = try temporaryDirectory()
        try runProgram("/bin/cp", ["-a", stage + "/.", root])
        try runProgram("/bin/cp", ["-an", "/lib/systemd/system/.", root + "/usr/lib/systemd/system/"])
        try FileManager.default.createDirectory(atPath: root + "/bin", withIntermediateDirectories: true)
        try runProgram("/bin/cp", ["/bin/kill", root + "/bin/kill"])
        let verify = try runProgram("/usr/bin/systemd-analyze", ["verify", "--root=\(root)", "lprojd.socket", "lprojd.service"],
                             environment: ["MANPATH": root + "/usr/share/man"])
        XCTAssertEqual(verify.status, 0, verify.output)
        XCTAssertEqual(verify.output, "", "systemd-analyze verify says nothing of a clean unit")
        let security = try runProgram("/usr/bin/systemd-analyze", ["security", "--offline=yes", "--root=\(stage!)", "lprojd.service"])
        let line = try XCTUnwrap(security.output.split(separator: "\n").first { $0.contains("Overall exposure level") }, security.output)
        let score = try XCTUnwrap(Double(line.split(separator: ":").last!.split(separator: " ").first!), String(line))
        XCTAssertLessThanOrEqual(score, 2.0, String(line))
        let unit = try String(contentsOfFile: stage + "/usr/lib/systemd/system/lprojd.service", encoding: .utf8)
        XCTAssertTrue(unit.contains("ExecStart=/usr/bin/lprojd --config /etc/lprojd/lprojd.conf"), "the unit names the installed binary")
        XCTAssertTrue(unit.contains("ExecReload=/bin/kill -HUP $MAINPID"))
    }

    /// The metrics drop-in (shipped in the docs): with it the unit still verifies, gains loopback networking and nothing
    /// else — the hardening is loosened only when metrics are served — and stays well rated.
    func testTheMetricsDropInLoosensOnlyTheNetwork() throws {
        let root = try temporaryDirectory()
        try runProgram("/bin/cp", ["-a", stage + "/.", root])
        try runProgram("/bin/cp", ["-an", "/lib/systemd/system/.", root + "/usr/lib/systemd/system/"])
        try FileManager.default.createDirectory(atPath: root + "/bin", withIntermediateDirectories: true)
        try runProgram("/bin/cp", ["/bin/kill", root + "/bin/kill"])
        let dropIn = root + "/etc/systemd/system/lprojd.service.d"
        try FileManager.default.createDirectory(atPath: dropIn, withIntermediateDirectories: true)
        try runProgram("/bin/cp", [stage + "/usr/share/doc/lprojd/lprojd-metrics.conf", dropIn + "/metrics.conf"])
        let verify = try runProgram("/usr/bin/systemd-analyze", ["verify", "--root=\(root)", "lprojd.socket", "lprojd.service"],
                                    environment: ["MANPATH": root + "/usr/share/man"])
        XCTAssertEqual(verify.status, 0, verify.output)
        XCTAssertEqual(verify.output, "", verify.output)
        let text = try String(contentsOfFile: dropIn + "/metrics.conf", encoding: .utf8)
        let settings = text.split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains("=") }.map(String.init)
        XCTAssertEqual(settings, ["PrivateNetwork=no", "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6", "IPAddressDeny=any",
                                  "IPAddressAllow=localhost"])
        let security = try runProgram("/usr/bin/systemd-analyze", ["security", "--offline=yes", "--root=\(root)", "lprojd.service"])
        let line = try XCTUnwrap(security.output.split(separator: "\n").first { $0.contains("Overall exposure level") }, security.output)
        let score = try XCTUnwrap(Double(line.split(separator: ":").last!.split(separator: " ").first!), String(line))
        XCTAssertLessThanOrEqual(score, 2.5, String(line))
    }

    func testThePackageHoldsWhatItShould() throws {
        let info = try runProgram("/usr/bin/dpkg-deb", ["-f", package, "Depends"]).output
        for library in ["libicu72", "libinotifytools0", "libinih1", "libsystemd0", "libmicrohttpd12"] {
            XCTAssertTrue(info.contains(library), "Depends names \(library): \(info)")
        }
        XCTAssertFalse(info.contains("swift"), "the Swift runtime is linked in")
        let control = try temporaryDirectory()
        try runProgram("/usr/bin/dpkg-deb", ["-e", package, control])
        XCTAssertEqual(try String(contentsOfFile: control + "/conffiles", encoding: .utf8), "/etc/lprojd/lprojd.conf\n")
        for script in ["postinst", "prerm", "postrm"] {
            XCTAssertEqual(try runProgram("/bin/sh", ["-n", control + "/" + script]).status, 0, "\(script) is valid sh")
        }
        let contents = try runProgram("/usr/bin/dpkg-deb", ["-c", package]).output
        for path in ["./usr/bin/lprojd", "./usr/bin/lprojctl", "./etc/lprojd/lprojd.conf", "./usr/lib/systemd/system/lprojd.service",
                     "./usr/lib/systemd/system/lprojd.socket", "./usr/lib/systemd/user/lprojd.service", "./usr/lib/sysusers.d/lprojd.conf",
                     "./usr/lib/tmpfiles.d/lprojd.conf", "./usr/share/man/man8/lprojd.8.gz", "./usr/share/man/man1/lprojctl.1.gz",
                     "./usr/share/man/man5/lprojd.conf.5.gz", "./usr/share/bash-completion/completions/lprojctl",
                     "./usr/share/zsh/vendor-completions/_lprojctl", "./usr/share/fish/vendor_completions.d/lprojctl.fish",
                     "./usr/share/doc/lprojd/copyright", "./usr/share/doc/lprojd/PROTOCOL.md", "./usr/share/doc/lprojd/STUDIO.md"] {
            XCTAssertTrue(contents.contains(" " + path + "\n"), "the package holds \(path)")
        }
        let lintian = try runProgram("/usr/bin/lintian", ["--tag-display-limit", "0", package])
        let errors = lintian.output.split(separator: "\n").filter { $0.hasPrefix("E:") }
        XCTAssertEqual(errors, [], lintian.output)
    }

    /// The packaged binaries run with Debian's libraries alone: no Swift library is looked for.
    func testThePackagedBinariesNeedOnlyDebiansLibraries() throws {
        for binary in ["lprojd", "lprojctl"] {
            let path = stage + "/usr/bin/" + binary
            let libraries = try runProgram("/usr/bin/ldd", [path]).output
            XCTAssertFalse(libraries.contains("not found"), libraries)
            XCTAssertFalse(libraries.contains("libswift") || libraries.contains("libFoundation"), libraries)
            let version = try runProgram(path, ["--version"], environment: ["LD_LIBRARY_PATH": ""])
            XCTAssertEqual(version.output, "\(binary) 0.2.0\n")
        }
    }

    func testTheManPagesRenderWithoutWarnings() throws {
        for page in ["man8/lprojd.8.gz", "man1/lprojctl.1.gz", "man5/lprojd.conf.5.gz"] {
            let result = try runProgram("/usr/bin/man", ["--warnings", "-l", stage + "/usr/share/man/" + page], environment: ["MANWIDTH": "80"],
                                 separateErrors: true)
            XCTAssertEqual(result.status, 0, page)
            XCTAssertEqual(result.errors, "", "\(page) renders without a warning")
            XCTAssertTrue(result.output.contains("NAME"), page)
        }
    }

    // MARK: helpers

    private var scratch: [String] = []

    override func tearDown() {
        for path in scratch { try? FileManager.default.removeItem(atPath: path) }
    }

    private func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "lprojd-packaging-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        scratch.append(path)
        return path
    }
}
