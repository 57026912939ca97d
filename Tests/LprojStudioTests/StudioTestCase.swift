import Foundation
import LprojClient
import LprojProcessTesting
import LprojProtocol
import LprojTables
import XCTest

/// What the studio's tests share: a real daemon serving a small bundle,
/// `lprojctl studio` started on it over real HTTP, and the requests and
/// event streams a page makes. Each test class is one concern of the studio.
class StudioTestCase: XCTestCase {
    var daemon: DaemonProcess!
    var studio: Process!
    var port: UInt16 = 0
    var token = ""
    var bundle: String { daemon.root + "/App" }

    override func setUpWithError() throws {
        daemon = try DaemonProcess()
        try daemon.write("App/en.lproj/Localizable.strings", "/* Greeting */\n\"welcome\" = \"Welcome, %@!\";\n\"home\" = \"Home\";\n\"cart\" = \"Cart\";\n")
        try daemon.write("App/fr.lproj/Localizable.strings", "/* Greeting */\n\"welcome\" = \"Bienvenue, %@ !\";\n\"home\" = \"Accueil\";\n")
        try daemon.write("App/ar.lproj/Localizable.strings", "\"home\" = \"الرئيسية\";\n")
        try daemon.start()
        let started = try startStudio()
        studio = started.process
        let address = try XCTUnwrap(URLComponents(string: started.address))
        port = UInt16(try XCTUnwrap(address.port))
        token = try XCTUnwrap(address.queryItems?.first { $0.name == "token" }?.value)
        XCTAssertEqual(address.host, "127.0.0.1")
        XCTAssertEqual(token.count, 32)
    }

    /// `lprojctl studio` with `arguments`, keeping its address in the test's own state directory: the process,
    /// the address it printed first, and where its standard error goes.
    func startStudio(_ arguments: [String] = [], state: String? = nil) throws -> (process: Process, address: String, errors: String) {
        let process = Process()
        process.executableURL = binaryDirectory().appendingPathComponent("lprojctl")
        process.arguments = ["studio", "--socket", daemon.socket] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_STATE_HOME": state ?? daemon.directory + "/state"]) { $1 }
        let output = Pipe()
        let errors = daemon.directory + "/studio-errors-\(UUID().uuidString)"
        XCTAssertTrue(FileManager.default.createFile(atPath: errors, contents: nil))
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: errors)
        try process.run()
        // The first line is the address to open.
        return (process, try Self.firstLine(of: output.fileHandleForReading, timeout: 30), errors)
    }

    override func tearDown() {
        if let studio, studio.isRunning {
            studio.interrupt()
            studio.waitUntilExit()
            XCTAssertEqual(studio.terminationStatus, 0)
        }
        if let daemon { XCTAssertEqual(daemon.stop(), 0, daemon.log) }
        daemon = nil
    }

    // MARK: - HTTP

    struct Response {
        var status: Int
        var headers: [String: String]
        var text: String
        var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]) ?? [:] }
    }

    func get(_ path: String, headers: [String: String] = [:], authenticated: Bool = true) throws -> Response {
        try request("GET", path, headers: headers, authenticated: authenticated)
    }

    /// One request on its own connection (`Connection: close`), with the studio's token unless said.
    func request(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil, authenticated: Bool = true) throws -> Response {
        let bearer = authenticated ? token : nil
        var lines = ["\(method) \(path.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? path) HTTP/1.1", "Connection: close"]
        if headers["Host"] == nil { lines.append("Host: 127.0.0.1:\(port)") }
        if let bearer { lines.append("Authorization: Bearer \(bearer)") }
        for (name, value) in headers { lines.append("\(name): \(value)") }
        let bytes = Array((body ?? "").utf8)
        if body != nil { lines += ["Content-Type: application/json", "Content-Length: \(bytes.count)"] }
        let socket = try Self.connect(port: port)
        defer { close(socket) }
        try Self.send(socket, Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + bytes)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer.prefix(count)
        }
        return try Self.parse(received)
    }

    static func connect(port: UInt16) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(descriptor); throw DaemonTestError("cannot connect to the studio") }
        return descriptor
    }

    static func send(_ socket: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            // The server may answer (413) and close before a large body is all sent.
            if count <= 0 { return }
            offset += count
        }
    }

    static func parse(_ received: [UInt8]) throws -> Response {
        let text = String(decoding: received, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw DaemonTestError("no HTTP response: \(text)") }
        let head = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = String(text[split.upperBound...])
        if headers["transfer-encoding"] == "chunked" {
            // Chunks: a hex size line, the bytes, CRLF; 0 ends.
            var decoded = "", rest = Substring(body)
            while let line = rest.range(of: "\r\n"), let size = Int(rest[..<line.lowerBound], radix: 16), size > 0 {
                let start = line.upperBound
                let bytes = Array(rest[start...].utf8)
                decoded += String(decoding: bytes.prefix(size), as: UTF8.self)
                rest = Substring(String(decoding: bytes.dropFirst(size + 2), as: UTF8.self))
            }
            body = decoded
        }
        return Response(status: status, headers: headers, text: body)
    }

    static func body(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    static func firstLine(of handle: FileHandle, timeout: TimeInterval) throws -> String {
        let deadline = Date(timeIntervalSinceNow: timeout)
        var text = ""
        while !text.contains("\n") {
            guard Date() < deadline else { throw DaemonTestError("the studio printed no address: \(text)") }
            var poll = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&poll, 1, 1000) >= 0 else { continue }
            if poll.revents != 0 {
                let data = handle.availableData
                if data.isEmpty { throw DaemonTestError("the studio ended: \(text)") }
                text += String(decoding: data, as: UTF8.self)
            }
        }
        return String(text.prefix { $0 != "\n" })
    }

    func runLprojctl(_ arguments: [String]) throws -> String {
        let output = daemon.directory + "/lprojctl-output"
        XCTAssertEqual(try runToEnd(binaryDirectory().appendingPathComponent("lprojctl").path, arguments, output: output), 0)
        return try String(contentsOfFile: output, encoding: .utf8)
    }
}


/// A page's event stream, read with deadlines.
final class EventReader {
    private let socket: Int32
    private var received = ""

    init(port: UInt16, token: String) throws {
        socket = try StudioTestCase.connect(port: port)
        try StudioTestCase.send(socket, Array("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\n\r\n".utf8))
    }

    deinit { close(socket) }

    /// Waits for an event `name` whose data holds `text`.
    func await(_ name: String, containing text: String, timeout: TimeInterval = 30) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            for block in received.components(separatedBy: "\n\n") where block.contains("event: \(name)\n") && block.contains(text) { return }
            guard Date() < deadline else { throw DaemonTestError("no \(name) event with \(text); got: \(received)") }
            var poll = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            if Glibc.poll(&poll, 1, 1000) > 0 {
                var buffer = [UInt8](repeating: 0, count: 65536)
                let count = recv(socket, &buffer, buffer.count, 0)
                guard count > 0 else { throw DaemonTestError("the event stream ended: \(received)") }
                received += String(decoding: buffer.prefix(count), as: UTF8.self)
            }
        }
    }
}
