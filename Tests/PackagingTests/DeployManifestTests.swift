import Foundation
import LprojDaemon
import LprojProcessTesting
import XCTest

/// The example manifests in `deploy/kubernetes/`, parsed (PyYAML, Debian's
/// `python3-yaml`) and held to what lprojd relies on: its configuration
/// reads; its roots, socket directory, state directory and configuration
/// are mounted where the configuration says; every app finds the socket
/// (`LPROJD_SOCKET`) on a volume it shares with lprojd; the sidecar starts
/// before the app; git-sync's root is lprojd's, with its worktrees and
/// temporary link left out.
final class DeployManifestTests: XCTestCase {
    private let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/kubernetes").path

    func testEveryManifestGivesLprojdWhatItReliesOn() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".yaml") }.sorted()
        XCTAssertEqual(files, ["configmap-sidecar.yaml", "daemonset.yaml", "git-sync-sidecar.yaml"])
        for file in files {
            let objects = try Self.objects(in: directory + "/" + file)
            let configuration = try Self.lprojdConfiguration(in: objects, file: file)
            let workloads = objects.filter { ["Deployment", "DaemonSet"].contains($0["kind"] as? String) }
            let pods = workloads.compactMap { (($0["spec"] as? [String: Any])?["template"] as? [String: Any])?["spec"] as? [String: Any] }
            XCTAssertEqual(pods.count, workloads.count, file)
            let lprojdPods = pods.filter { Self.containers(of: $0).contains { $0["name"] as? String == "lprojd" } }
            XCTAssertEqual(lprojdPods.count, 1, "\(file): one workload runs lprojd")
            let pod = try XCTUnwrap(lprojdPods.first)
            let lprojd = try XCTUnwrap(Self.containers(of: pod).first { $0["name"] as? String == "lprojd" })
            let mounts = Self.mounts(of: lprojd)

            // The configuration is the one mounted where --config names it.
            let arguments = lprojd["args"] as? [String] ?? []
            let configIndex = try XCTUnwrap(arguments.firstIndex(of: "--config"), file)
            let configPath = arguments[configIndex + 1]
            XCTAssertTrue(arguments.contains("--foreground"), "\(file): a container's main process stays in the foreground")
            let configMount = try XCTUnwrap(mounts.first { configPath.hasPrefix($0.path + "/") }, "\(file): \(configPath) is mounted")
            XCTAssertEqual(Self.volume(configMount.volume, in: pod)?["configMap"].flatMap { ($0 as? [String: Any])?["name"] as? String },
                           "lprojd-config", file)

            // Roots, the socket's directory and the state directory lie on lprojd's mounts.
            for root in configuration.watch.roots {
                XCTAssertNotNil(mounts.first { root == $0.path || root.hasPrefix($0.path + "/") }, "\(file): root \(root) is mounted")
            }
            let socket = try XCTUnwrap(configuration.socket.path, "\(file): [Socket] Path= is set (the apps name it)")
            let socketDirectory = (socket as NSString).deletingLastPathComponent
            let socketMount = try XCTUnwrap(mounts.first { $0.path == socketDirectory }, "\(file): \(socketDirectory) is a volume")
            XCTAssertFalse(socketMount.readOnly, file)
            let state = try XCTUnwrap(configuration.state.directory, file)
            XCTAssertEqual(mounts.first { $0.path == state }?.readOnly, false, "\(file): the state directory is writable (the root filesystem is not)")
            let security = lprojd["securityContext"] as? [String: Any]
            XCTAssertEqual(security?["readOnlyRootFilesystem"] as? Bool, true, file)
            XCTAssertEqual(security?["allowPrivilegeEscalation"] as? Bool, false, file)

            // Every app finds the socket on a volume it shares with lprojd.
            let socketVolume = try XCTUnwrap(Self.volume(socketMount.volume, in: pod), file)
            var apps = 0
            for appPod in pods {
                for app in Self.containers(of: appPod) where app["name"] as? String == "app" {
                    apps += 1
                    let environment = (app["env"] as? [[String: Any]] ?? []).reduce(into: [String: String]()) { $0[$1["name"] as! String] = $1["value"] as? String }
                    XCTAssertEqual(environment["LPROJD_SOCKET"], socket, "\(file): the app is told where the socket is")
                    let appMount = try XCTUnwrap(Self.mounts(of: app).first { $0.path == socketDirectory }, "\(file): the app mounts \(socketDirectory)")
                    let appVolume = try XCTUnwrap(Self.volume(appMount.volume, in: appPod), file)
                    if appPod as NSDictionary == pod as NSDictionary {
                        XCTAssertEqual(appMount.volume, socketMount.volume, "\(file): one pod, one shared volume")
                        XCTAssertNotNil(appVolume["emptyDir"], "\(file): a sidecar's socket lives in an emptyDir")
                        // A native sidecar: an init container that keeps running, started before the app.
                        let initial = appPod["initContainers"] as? [[String: Any]] ?? []
                        XCTAssertEqual(initial.first { $0["name"] as? String == "lprojd" }?["restartPolicy"] as? String, "Always", file)
                    } else {
                        let host = { (volume: [String: Any]) in (volume["hostPath"] as? [String: Any])?["path"] as? String }
                        XCTAssertNotNil(host(socketVolume), "\(file): across pods, the socket is on the host")
                        XCTAssertEqual(host(appVolume), host(socketVolume), "\(file): the app mounts the host's socket directory")
                    }
                }
            }
            XCTAssertGreaterThan(apps, 0, "\(file): an app uses lprojd")

            // The tables: ConfigMap items land in .lproj directories; git-sync's root is lprojd's root.
            for volume in pod["volumes"] as? [[String: Any]] ?? [] {
                for item in ((volume["configMap"] as? [String: Any])?["items"] as? [[String: Any]]) ?? [] {
                    let path = try XCTUnwrap(item["path"] as? String)
                    XCTAssertNotNil(path.range(of: #"^[^/]+\.lproj/[^/]+\.(strings|stringsdict)$"#, options: .regularExpression), "\(file): \(path)")
                }
            }
            if let gitSync = Self.containers(of: pod).first(where: { $0["name"] as? String == "git-sync" }) {
                let flags = (gitSync["args"] as? [String] ?? []).reduce(into: [String: String]()) { flags, argument in
                    let parts = argument.split(separator: "=", maxSplits: 1)
                    if parts.count == 2 { flags[String(parts[0])] = String(parts[1]) }
                }
                XCTAssertEqual(flags["--root"].map { [$0] }, configuration.watch.roots, "\(file): lprojd watches git-sync's root")
                XCTAssertNotNil(flags["--link"], file)
                XCTAssertTrue(Set(configuration.watch.excludes).isSuperset(of: [".worktrees", "tmp-link"]),
                              "\(file): the worktrees are served through the link only, git-sync's temporary link never")
                let gitMount = try XCTUnwrap(Self.mounts(of: gitSync).first, file)
                XCTAssertEqual(mounts.first { $0.path == configuration.watch.roots.first }?.volume, gitMount.volume, "\(file): one volume")
            }
        }
    }

    // MARK: - Helpers

    /// The YAML documents of `path`, parsed by PyYAML.
    private static func objects(in path: String) throws -> [[String: Any]] {
        let script = "import json, sys, yaml; print(json.dumps([d for d in yaml.safe_load_all(open(sys.argv[1])) if d]))"
        let result = try runProgram("/usr/bin/python3", ["-c", script, path], separateErrors: true)
        guard result.status == 0 else { throw DaemonTestError("\(path): \(result.errors)") }
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
    }

    /// The `lprojd.conf` of the `lprojd-config` ConfigMap, read as lprojd reads it.
    private static func lprojdConfiguration(in objects: [[String: Any]], file: String) throws -> Configuration {
        let map = try XCTUnwrap(objects.first { $0["kind"] as? String == "ConfigMap" && ($0["metadata"] as? [String: Any])?["name"] as? String == "lprojd-config" },
                                "\(file): an lprojd-config ConfigMap")
        let text = try XCTUnwrap((map["data"] as? [String: String])?["lprojd.conf"], file)
        let path = NSTemporaryDirectory() + "lprojd-\(getpid())-\(file).conf"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        do {
            return try ConfigurationFile.read(path: path)
        } catch {
            throw DaemonTestError("\(file): \(error)")
        }
    }

    private static func containers(of pod: [String: Any]) -> [[String: Any]] {
        (pod["initContainers"] as? [[String: Any]] ?? []) + (pod["containers"] as? [[String: Any]] ?? [])
    }

    private static func mounts(of container: [String: Any]) -> [(path: String, volume: String, readOnly: Bool)] {
        (container["volumeMounts"] as? [[String: Any]] ?? []).map {
            ($0["mountPath"] as? String ?? "", $0["name"] as? String ?? "", $0["readOnly"] as? Bool ?? false)
        }
    }

    private static func volume(_ name: String, in pod: [String: Any]) -> [String: Any]? {
        (pod["volumes"] as? [[String: Any]])?.first { $0["name"] as? String == name }
    }
}
