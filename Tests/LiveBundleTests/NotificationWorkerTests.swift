import Foundation
import LprojProcessTesting
import LprojProtocol
import XCTest

/// The example service (`Examples/NotificationWorker`, `lproj-notify`)
/// against the real daemon: each job rendered for its recipient's
/// Accept-Language, and a live edit seen by the next job.
final class NotificationWorkerTests: XCTestCase {
    func testJobsAreRenderedPerRecipientAndFollowLiveEdits() throws {
        let daemon = try DaemonProcess()
        let plural = { (one: String, other: String) in """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>order_shipped.body</key><dict>
              <key>NSStringLocalizedFormatKey</key><string>%2$#@items@</string>
              <key>items</key><dict>
                <key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>
                <key>NSStringFormatValueTypeKey</key><string>ld</string>
                <key>one</key><string>\(one)</string>
                <key>other</key><string>\(other)</string>
              </dict></dict></dict></plist>
            """ }
        try daemon.write("App/en.lproj/Localizable.strings", "\"order_shipped.subject\" = \"%@, your order shipped\";\n")
        try daemon.write("App/en.lproj/Localizable.stringsdict", plural("%2$ld item is on its way", "%2$ld items are on their way"))
        try daemon.write("App/fr.lproj/Localizable.strings", "\"order_shipped.subject\" = \"%@, votre commande est partie\";\n")
        try daemon.write("App/fr.lproj/Localizable.stringsdict", plural("%2$ld article est en route", "%2$ld articles sont en route"))
        try daemon.write("App/ja.lproj/Localizable.strings", "\"order_shipped.subject\" = \"%@様、ご注文を発送しました\";\n")
        try daemon.start()

        let worker = Process()
        worker.executableURL = binaryDirectory().appendingPathComponent("lproj-notify")
        worker.arguments = ["--bundle", daemon.path("App"), "--socket", daemon.socket]
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = daemon.directory + "/config"
        environment["LANG"] = "C.UTF-8"
        worker.environment = environment
        let input = Pipe(), output = Pipe()
        worker.standardInput = input
        worker.standardOutput = output
        worker.standardError = FileHandle.nullDevice
        try worker.run()
        defer {
            try? input.fileHandleForWriting.close()
            worker.waitUntilExit()
        }
        var reader = LineReader(output.fileHandleForReading)
        XCTAssertEqual(try reader.next(until: { $0["event"] as? String == "connected" })["event"] as? String, "connected")

        func render(_ id: String, _ header: String, count: Int = 3) throws -> [String: Any] {
            let job = try JSONSerialization.data(withJSONObject: ["id": id, "acceptLanguage": header, "message": "order_shipped",
                                                                  "name": "Ada", "count": count])
            input.fileHandleForWriting.write(job + Data("\n".utf8))
            return try reader.next { $0["id"] as? String == id }
        }
        let french = try render("1", "fr-CH, fr;q=0.9, en;q=0.8")
        XCTAssertEqual(french["language"] as? String, "fr")
        XCTAssertEqual(french["subject"] as? String, "Ada, votre commande est partie")
        XCTAssertEqual(french["body"] as? String, "3 articles sont en route")
        let english = try render("2", "en-GB,en;q=0.9", count: 1)
        XCTAssertEqual(english["subject"] as? String, "Ada, your order shipped")
        XCTAssertEqual(english["body"] as? String, "1 item is on its way")
        XCTAssertEqual(try render("3", "ja-JP")["subject"] as? String, "Ada様、ご注文を発送しました")
        XCTAssertEqual(try render("4", "")["language"] as? String, "en", "no header: the development localization")

        try daemon.write("App/fr.lproj/Localizable.strings", "\"order_shipped.subject\" = \"%@, c'est parti !\";\n")
        _ = try reader.next { $0["event"] as? String == "changed" }
        XCTAssertEqual(try render("5", "fr")["subject"] as? String, "Ada, c'est parti !")
        XCTAssertEqual(daemon.stop(), 0, daemon.log)
    }
}

/// Reads JSON lines from a pipe, each wait with a deadline.
struct LineReader {
    private let handle: FileHandle
    private var buffer = Data()

    init(_ handle: FileHandle) {
        self.handle = handle
    }

    /// The next line that satisfies `condition` (others are skipped), within 20 s.
    mutating func next(until condition: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[..<newline]
                buffer = Data(buffer[buffer.index(after: newline)...])
                if let object = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any], condition(object) { return object }
            }
            guard ContinuousClock.now < deadline else { throw DaemonTestError("no such line in 20 s") }
            var poll = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&poll, 1, 200) > 0 else { continue }
            let data = handle.availableData
            guard !data.isEmpty else { throw DaemonTestError("the worker closed its output") }
            buffer.append(data)
        }
    }
}
