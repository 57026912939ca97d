import Foundation
import LprojProcessTesting
import LprojProtocol
import XCTest

/// The unit's riskiest hardening, proven with the kernel features systemd
/// uses for it (PID 1 here is not systemd): lprojd starts, serves and
/// follows a save with the system and its roots read-only
/// (`ProtectSystem=strict`: a read-only bind mount in a mount namespace),
/// no network (`PrivateNetwork=`: a network namespace; AF_UNIX still
/// works), no capabilities and no new privileges (`CapabilityBoundingSet=`,
/// `NoNewPrivileges=`: setpriv, as an unprivileged user), and no writable
/// executable memory (`MemoryDenyWriteExecute=`: PR_SET_MDWE).
final class SandboxTests: XCTestCase {
    func testTheDaemonServesAndFollowsSavesInsideTheUnitsSandbox() throws {
        try requirement(getuid() == 0, "namespaces and setpriv need root (CI runs as root)")
        let daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"before\";\n")
        let runtime = daemon.directory + "/runtime"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        for path in [daemon.directory, runtime] { chmod(path, 0o777) }
        // A copy the unprivileged user may run (the build directory may be closed to it).
        daemon.binary = daemon.directory + "/lprojd"
        try FileManager.default.copyItem(atPath: binaryDirectory().appendingPathComponent("lprojd").path, toPath: daemon.binary!)
        let mounts = """
            set -e
            mount --make-rprivate /
            mount --bind "$0" "$0"
            mount --bind "$1" "$1" && mount -o remount,bind,ro "$1"
            mount -o remount,bind,ro /
            shift
            exec setpriv --no-new-privs --bounding-set=-all --inh-caps=-all --reuid=65534 --regid=65534 --clear-groups \
              /usr/bin/python3 -c 'import ctypes, os, sys
            if ctypes.CDLL(None, use_errno=True).prctl(65, 1, 0, 0, 0) != 0: sys.exit("PR_SET_MDWE: " + os.strerror(ctypes.get_errno()))
            os.execv(sys.argv[1], sys.argv[1:])' "$@"
            """
        daemon.wrapper = ["/usr/bin/unshare", "--mount", "--net", "--fork", "--kill-child", "--", "/bin/sh", "-c", mounts, daemon.directory, daemon.root]
        try daemon.start(environment: ["RUNTIME_DIRECTORY": runtime, "TMPDIR": runtime])
        let connection = try daemon.connect()
        _ = try connection.send(Hello(client: "tests"))
        let status = try connection.send(Status())
        XCTAssertEqual(status.tables, 1)
        let process = try String(contentsOfFile: "/proc/\(status.pid)/status", encoding: .utf8)
        XCTAssertTrue(process.contains("NoNewPrivs:\t1"), process)
        XCTAssertTrue(process.contains("CapBnd:\t0000000000000000"), process)
        XCTAssertTrue(process.contains("Uid:\t65534"), process)
        XCTAssertNotEqual(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(status.pid)/ns/net"),
                          try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net"), "a network namespace of its own")
        let mountinfo = try String(contentsOfFile: "/proc/\(status.pid)/mountinfo", encoding: .utf8)
        XCTAssertTrue(mountinfo.split(separator: "\n").contains { $0.split(separator: " ")[4] == "/" && $0.split(separator: " ")[5].hasPrefix("ro") },
                      "the system is read-only for it")

        _ = try connection.send(Subscribe(name: "all"))
        try daemon.write("App/en.lproj/Localizable.strings", "\"k\" = \"after\";\n")
        let change = try connection.awaitEvent(TableChanged.name).decode(TableChanged.self)
        XCTAssertEqual(change.changed["k"]?.text, "after")
        kill(status.pid, SIGTERM)
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }
}
