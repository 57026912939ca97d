import Foundation
import LprojCommandLine
import LprojEditing
import LprojFormats
import LprojTables

/// What `set`, `rm` and `mv` print, and their exit status: 0 written,
/// 1 refused by the checks, 2 a usage error or a request that cannot be
/// carried out, 3 the table is not at the version the edit was made on.
enum EditOutput {
    /// Exits with a usage error when an argument is not valid UTF-8 (the
    /// shell passes bytes; a table holds text).
    static func requireValidUTF8(_ command: String) {
        for index in 1..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[index] else { continue }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(argument).assumingMemoryBound(to: UInt8.self), count: strlen(argument))
            if String(validating: bytes, as: UTF8.self) == nil {
                Console.usage(command, UsageError("argument \(index) is not valid UTF-8 text"))
            }
        }
    }

    /// The writer of `--bundle`'s `--table`, or a usage error.
    static func writer(_ command: String, _ arguments: Arguments) -> TableWriter {
        guard let bundle = arguments.value("bundle") else { Console.usage(command, UsageError("--bundle is required")) }
        do {
            var writer = try TableWriter(bundle: bundle, table: arguments.value("table") ?? "Localizable")
            writer.force = arguments.has("force")
            return writer
        } catch {
            Console.fail(program, error.description, status: 2)
        }
    }

    /// Runs an edit and prints what it changed, or why nothing was.
    static func run(_ arguments: Arguments, _ edit: () throws(TableWriter.Failure) -> [TableWriter.Change]) -> Never {
        let json = arguments.has("json")
        do {
            let changes = try edit()
            if json {
                Console.out(CanonicalJSON.text(["changes": changes.map(object)]))
            } else {
                Console.out(changes.map(line).joined(separator: "\n"))
            }
            exit(0)
        } catch {
            switch error {
            case .invalid(let field, let message):
                if json { Console.out(CanonicalJSON.text(["error": "invalid", "field": field.rawValue, "message": message])) }
                Console.fail(program, message, status: 2)
            case .forbidden(let message):
                if json { Console.out(CanonicalJSON.text(["error": "forbidden", "message": message])) }
                Console.fail(program, message, status: 1)
            case .stale(let key, let language, let current, let version):
                if json {
                    Console.out(CanonicalJSON.text(["error": "stale", "key": key, "language": language, "version": version,
                                                    "current": current.map(entryObject) ?? NSNull()]))
                }
                Console.fail(program, error.description, status: 3)
            case .refused(let diagnostics):
                if json {
                    Console.out(CanonicalJSON.text(["error": "refused", "diagnostics": diagnostics.map {
                        ["file": $0.file, "line": $0.line, "column": $0.column, "severity": $0.severity.rawValue, "message": $0.message,
                         "hint": $0.hint ?? NSNull()] as [String: Any]
                    }]))
                }
                for diagnostic in diagnostics { Console.error(diagnostic.description) }
                Console.fail(program, "refused: the checks find \(diagnostics.count == 1 ? "this problem" : "these problems") in the edit "
                             + "(nothing was written; --force writes it anyway)", status: 1)
            }
        }
    }

    private static func line(_ change: TableWriter.Change) -> String {
        let directory = Environment.currentDirectory + "/"
        let file = change.file.hasPrefix(directory) ? String(change.file.dropFirst(directory.count)) : change.file
        let before = change.before.map(shown) ?? "(none)"
        let after = change.after.map(shown) ?? "(removed)"
        let key = change.newKey.map { "\(change.key) → \($0)" } ?? change.key
        return "\(file): \(change.language): \(key): \(before) → \(after)\(change.created ? " (new file)" : "") [version \(change.version)]"
    }

    private static func shown(_ entry: Entry) -> String {
        entry.text.map(StringsWriter.quoted) ?? "(plural rule)"
    }

    private static func object(_ change: TableWriter.Change) -> [String: Any] {
        [
            "file": change.file, "language": change.language, "key": change.key, "newKey": change.newKey ?? NSNull(),
            "before": change.before.map(entryObject) ?? NSNull(), "after": change.after.map(entryObject) ?? NSNull(),
            "previousVersion": change.previousVersion, "version": change.version, "created": change.created,
        ]
    }

    /// An entry as JSON: a plain string, or its rule as `Entry`'s Codable form.
    static func entryObject(_ entry: Entry) -> Any {
        if let text = entry.text { return text }
        guard let data = try? JSONEncoder().encode(entry), let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        else { return NSNull() }
        return object
    }
}
