import Foundation
import LprojClient
import LprojCommandLine
import Synchronization

/// lproj-notify: an example service — a notification worker that renders
/// each job for its recipient's language, following live edits.
///
/// It reads jobs, one JSON object a line, on standard input:
///     {"id": "42", "acceptLanguage": "fr-CH, fr;q=0.9, en;q=0.8", "message": "order_shipped", "name": "Ada", "count": 3}
/// and writes one rendered message a line on standard output:
///     {"id": "42", "language": "fr", "subject": "…", "body": "…"}
/// Each message is built from one view (`bundle.localization(acceptLanguage:)`),
/// so a save that lands mid-message never mixes two versions; the next job
/// sees the new text. When the tables change it writes {"event": "changed"}.
let program = "lproj-notify"

let help = """
    Usage: lproj-notify --bundle PATH [--app ID] [--socket PATH]

    Renders notification jobs (JSON lines on standard input) for each
    recipient's Accept-Language, from the bundle at PATH, following lprojd
    live. A message M uses the keys M.subject and M.body (a format with the
    recipient's name, %@, and a count, %ld, for plural rules).
    """

let arguments: Arguments
do {
    arguments = try Arguments(Array(CommandLine.arguments.dropFirst()), flags: ["help"], options: ["bundle", "app", "socket"])
} catch {
    Console.usage(program, error)
}
if arguments.has("help") { Console.out(help); exit(0) }
guard let path = arguments.value("bundle") else { Console.usage(program, UsageError("--bundle is required")) }

var options = LiveBundle.Options()
options.socketPath = arguments.value("socket")
let bundle: LiveBundle
do {
    bundle = try LiveBundle(path: path, app: arguments.value("app") ?? "com.example.lproj-notify", options: options)
} catch {
    Console.fail(program, error.description, status: 1)
}

struct Job: Decodable {
    var id: String
    var acceptLanguage: String?
    var message: String
    var name: String?
    var count: Int?
}

struct Rendered: Encodable {
    var id: String
    var language: String?
    var subject: String
    var body: String
}

/// Lines to standard output, whole, from any thread (jobs here, changes on the bundle's thread).
@Sendable func emit(_ value: some Encodable) {
    guard var line = try? JSONEncoder().encode(value) else { return }
    line.append(0x0A)
    writing.withLock { _ in FileHandle.standardOutput.write(line) }
}
let writing = Mutex(())

struct Changed: Encodable { var event = "changed" }
let tokens = [bundle.observe { _ in emit(Changed()) },
              bundle.observeConnection { connected in if connected { emit(["event": "connected"]) } }]

while let line = readLine(strippingNewline: true) {
    guard !line.isEmpty else { continue }
    guard let job = try? JSONDecoder().decode(Job.self, from: Data(line.utf8)) else {
        emit(["error": "not a job: \(line.prefix(200))"])
        continue
    }
    // One view for the whole message.
    let view = bundle.localization(acceptLanguage: job.acceptLanguage ?? "")
    emit(Rendered(id: job.id, language: view.language,
                  subject: view.localizedString(format: job.message + ".subject", job.name ?? ""),
                  body: view.localizedString(format: job.message + ".body", job.name ?? "", job.count ?? 0)))
}
withExtendedLifetime(tokens) {}
