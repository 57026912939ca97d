import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import XCTest

/// The daemon's metrics: `lprojctl metrics` passes Prometheus' own check
/// (`promtool check metrics`, Debian's `prometheus`), `MetricsListen=`
/// serves the same over HTTP, and a real Prometheus server scrapes it and
/// answers a query with the bundle's generation; a port in use, a bad
/// address, another path or method are refused clearly.
final class MetricsTests: XCTestCase {
    func testLprojctlMetricsPassesPromtoolAndCountsWhatHappened() throws {
        let daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"one\";\n")
        try daemon.write("Other \"quoted\"/fr.lproj/Localizable.strings", "\"a\" = \"un\";\n")
        try daemon.start()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let follower = try daemon.connect()
        _ = try follower.send(Hello(client: "tests"))
        _ = try follower.send(Subscribe(name: "s", bundle: daemon.root + "/App", acknowledges: true))
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"two\";\n")
        _ = try daemon.connect().send(Sync())

        let text = try metrics(daemon)
        XCTAssertEqual(try promtool(["check", "metrics"], input: text).status, 0, text)
        XCTAssertTrue(text.contains("lprojd_bundle_generation{bundle=\"\(daemon.root)/App\"} 2\n"), text)
        XCTAssertTrue(text.contains("lprojd_bundle_generation{bundle=\"\(daemon.root)/Other \\\"quoted\\\"\"} 1\n"), "label values escaped\n" + text)
        XCTAssertTrue(text.contains("lprojd_bundle_processes{bundle=\"\(daemon.root)/App\"} 1\n"), text)
        XCTAssertTrue(text.contains("lprojd_bundle_processes_behind{bundle=\"\(daemon.root)/App\"} 1\n"), "it acknowledged nothing yet\n" + text)
        XCTAssertTrue(text.contains("lprojd_publish_seconds_count 1\n"), text)
        XCTAssertTrue(text.contains("lprojd_clients "), text)
        _ = try follower.send(Ack(bundle: daemon.root + "/App", generation: 2))
        let after = try metrics(daemon)
        XCTAssertTrue(after.contains("lprojd_bundle_processes_behind{bundle=\"\(daemon.root)/App\"} 0\n"), after)
        XCTAssertTrue(after.contains("lprojd_acknowledgements_total 1\n"), after)
    }

    func testAPrometheusServerScrapesTheEndpoint() throws {
        let daemon = try DaemonProcess(config: "[Socket]\nMetricsListen=127.0.0.1:0\n")
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"one\";\n")
        try daemon.start()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let url = try XCTUnwrap(try daemon.connect().send(Status()).metrics)
        XCTAssertTrue(url.hasPrefix("http://127.0.0.1:"), url)
        let port = try XCTUnwrap(Int(url.dropFirst("http://127.0.0.1:".count).prefix { $0.isNumber }))

        let scraped = try http("GET", port: port, path: "/metrics")
        XCTAssertEqual(scraped.status, 200)
        XCTAssertTrue(scraped.headers.lowercased().contains("content-type: text/plain; version=0.0.4"), scraped.headers)
        XCTAssertEqual(try promtool(["check", "metrics"], input: scraped.body).status, 0, scraped.body)
        XCTAssertTrue(scraped.body.contains("lprojd_bundle_generation{bundle=\"\(daemon.root)/App\"} 1\n"), scraped.body)
        XCTAssertEqual(try http("GET", port: port, path: "/").status, 404)
        XCTAssertEqual(try http("POST", port: port, path: "/metrics").status, 405)

        // A real Prometheus server scrapes it and answers a query.
        let prometheusPort = try freePort()
        let directory = daemon.directory + "/prometheus"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try """
            global:
              scrape_interval: 1s
            scrape_configs:
              - job_name: lprojd
                static_configs:
                  - targets: ["127.0.0.1:\(port)"]
            """.write(toFile: directory + "/prometheus.yml", atomically: true, encoding: .utf8)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/prometheus")
        server.arguments = ["--config.file=\(directory)/prometheus.yml", "--storage.tsdb.path=\(directory)/data",
                            "--web.listen-address=127.0.0.1:\(prometheusPort)", "--log.level=warn"]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        try daemon.write("App/en.lproj/Localizable.strings", "\"a\" = \"two\";\n")
        let status = try daemon.connect()
        _ = try status.send(Sync())
        // The event waited on is the server's scrape, which the daemon counts: once a second scrape has begun after the
        // change, the first (which saw it) is stored — the server scrapes a target one scrape after the other.
        let scrapes = { try status.send(Status()).counters["metrics-scrapes"] ?? 0 }
        let before = try scrapes()
        let deadline = ContinuousClock.now + .seconds(60)
        while try scrapes() < before + 2 {
            guard ContinuousClock.now < deadline else { throw DaemonTestError("Prometheus did not scrape twice within 60 s") }
        }
        let answer = try http("GET", port: prometheusPort, path: "/api/v1/query?query=lprojd_bundle_generation").body
        XCTAssertTrue(answer.contains("\"bundle\":\"\(daemon.root)/App\""), answer)
        XCTAssertTrue(answer.contains(",\"2\"]"), "Prometheus answers generation 2: \(answer)")
    }

    func testAPortInUseOrABadAddressIsRefusedByKey() throws {
        let taken = try freePort(keep: true)
        defer { close(taken.socket) }
        let daemon = try DaemonProcess(config: "[Socket]\nMetricsListen=127.0.0.1:\(taken.port)\n")
        XCTAssertThrowsError(try daemon.start(timeout: .seconds(20)))
        XCTAssertTrue(daemon.log.contains("[Socket] MetricsListen=127.0.0.1:\(taken.port): cannot listen"), daemon.log)
        let bad = try DaemonProcess(config: "[Socket]\nMetricsListen=localhost:9464\n")
        XCTAssertThrowsError(try bad.start(timeout: .seconds(20)))
        XCTAssertTrue(bad.log.contains("MetricsListen"), bad.log)
        XCTAssertTrue(bad.log.contains("expected an IP address and a port"), bad.log)
    }

    // MARK: - Helpers

    private func metrics(_ daemon: DaemonProcess) throws -> String {
        let output = daemon.directory + "/metrics.txt"
        let status = try runToEnd(binaryDirectory().appendingPathComponent("lprojctl").path, ["metrics", "--socket", daemon.socket], output: output)
        XCTAssertEqual(status, 0)
        return try String(contentsOfFile: output, encoding: .utf8)
    }

    private func promtool(_ arguments: [String], input: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/promtool")
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stdout
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// One HTTP/1.0 exchange on loopback: status, headers, body.
    private func http(_ method: String, port: Int, path: String) throws -> (status: Int, headers: String, body: String) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw DaemonTestError("socket") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw DaemonTestError("connect to \(port): \(String(cString: strerror(errno)))") }
        let request = Array("\(method) \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            response += buffer[..<count]
        }
        let text = String(decoding: response, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw DaemonTestError("no HTTP response: \(text)") }
        let head = String(text[..<split.lowerBound])
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (status, head, String(text[split.upperBound...]))
    }

    /// A port nobody listens on (or, with `keep`, one this test listens on).
    private func freePort(keep: Bool = false) throws -> (port: Int, socket: Int32) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = bind(descriptor, $0, length)
                _ = getsockname(descriptor, $0, &length)
            }
        }
        if keep { listen(descriptor, 1) } else { close(descriptor) }
        return (Int(UInt16(bigEndian: address.sin_port)), descriptor)
    }

    private func freePort() throws -> Int { try freePort(keep: false).port }
}
