import Foundation
import LprojClient
import LprojCommandLine
import LprojPaths
import LprojProtocol
import LprojTables

/// `lprojctl tail`: the daemon's events as they happen.
enum TailCommand {
    static let help = """
        Usage: lprojctl tail [--json] [--diagnostics] [--bundle PATH] [--language NAME]...
                             [--table NAME]... [--count N] [--socket PATH]

        Subscribes to the running lprojd and prints every event as it happens:
        edits as diffs (+ added, ~ changed with old → new, - removed), broken
        saves as file:line:col diagnostics, localizations and bundles appearing
        and going, language selections, and resyncs. Runs until interrupted.
        With --diagnostics, also each bundle's cross-language checks (lprojctl
        check's rules) whenever their set changes, starting with the current ones.

        Options:
          --json            print each event as the daemon sent it (one JSON object per line)
          --diagnostics     also the bundles' cross-language checks, as they change
          --bundle PATH     only this bundle directory
          --language NAME   only this localization, as named on disk (zh-Hant); repeat for more
          --table NAME      only this table (Localizable); repeat for more
          --count N         exit after N events
        \(LiveDaemon.socketHelp)

        Exit status: 0 after --count events, 1 the daemon went away or refused
        the subscription, 2 usage error, 3 no daemon answers.
        """

    static func run(_ argv: [String]) {
        let command = "\(program) tail"
        let arguments = LiveDaemon.arguments(argv, command: command, help: help, flags: ["json", "diagnostics"],
                                           options: ["bundle", "language", "table", "count"])
        var remaining = Int.max
        if let count = arguments.value("count") {
            guard let number = Int(count), number > 0 else { Console.usage(command, UsageError("--count takes a positive number, not '\(count)'")) }
            remaining = number
        }
        let bundle = arguments.value("bundle").map(PathText.absolute)
        let languages = arguments.values("language"), tables = arguments.values("table")
        let (connection, _) = LiveDaemon.connect(arguments, client: "lprojctl tail")
        let json = arguments.has("json")
        let subscribe = Subscribe(name: "tail", bundle: bundle, languages: languages.isEmpty ? nil : languages,
                                  tables: tables.isEmpty ? nil : tables, snapshot: !json, diagnostics: arguments.has("diagnostics"))
        let reply = LiveDaemon.send(subscribe, on: connection)
        // The human view shows old values: it keeps the tables, from a snapshot and the events since.
        var state = State(reply.tables ?? [])
        if !json { Console.error("tail: following \(reply.clock) (\(state.tables.count) tables)") }
        while remaining > 0 {
            let event: DaemonConnection.ReceivedEvent
            do {
                event = try connection.nextEvent(timeout: .seconds(86_400 * 365))
            } catch {
                Console.fail(program, error.description, status: 1)
            }
            if json {
                Console.out(String(decoding: event.line, as: UTF8.self))
            } else {
                Console.out(state.describe(event, connection: connection, filters: subscribe))
            }
            remaining -= 1
        }
    }

    /// The tables as the subscriber knows them, to show old values in diffs.
    struct State {
        var tables: [String: [String: Entry]] = [:]

        init(_ snapshot: [TableSnapshot]) {
            for table in snapshot { tables[Self.key(table.bundle, table.language, table.table)] = table.entries }
        }

        static func key(_ bundle: String, _ language: String, _ table: String) -> String { bundle + "\u{0}" + language + "\u{0}" + table }

        mutating func describe(_ event: DaemonConnection.ReceivedEvent, connection: DaemonConnection, filters: Subscribe) -> String {
            do {
                switch event.name {
                case TableChanged.name:
                    let change = try event.decode(TableChanged.self)
                    let key = Self.key(change.bundle, change.language, change.table)
                    var entries = tables[key] ?? [:]
                    var lines = ["\(change.clock) \(change.deleted == true ? "table-removed" : "table-changed") \(change.bundle) \(change.language) \(change.table)"]
                    for name in change.added.keys.sorted() { lines.append("  + \(name): \(text(change.added[name]))") }
                    for name in change.changed.keys.sorted() {
                        lines.append("  ~ \(name): \(text(entries[name])) → \(text(change.changed[name]))")
                    }
                    for name in change.removed.sorted() { lines.append("  - \(name): \(text(entries[name]))") }
                    if lines.count == 1 && change.deleted != true { lines.append("  (valid again; same entries as the last good version)") }
                    for name in change.removed { entries[name] = nil }
                    entries.merge(change.added) { $1 }
                    entries.merge(change.changed) { $1 }
                    tables[key] = change.deleted == true ? nil : entries
                    return lines.joined(separator: "\n")
                case TableInvalid.name:
                    let invalid = try event.decode(TableInvalid.self)
                    let kept = invalid.kept == .lastGood ? "the last good version is still served" : "nothing served from it"
                    return (["\(invalid.clock) table-invalid \(invalid.file) (\(kept))"]
                        + invalid.diagnostics.map { "  \($0)" }).joined(separator: "\n")
                case LanguageSelected.name:
                    let selected = try event.decode(LanguageSelected.self)
                    return "\(selected.clock) language-selected \(selected.app) → \(selected.language ?? "system")"
                case LocalizationAdded.name:
                    let added = try event.decode(LocalizationAdded.self)
                    return "\(added.clock) localization-added \(added.bundle) \(added.language)"
                case LocalizationRemoved.name:
                    let removed = try event.decode(LocalizationRemoved.self)
                    return "\(removed.clock) localization-removed \(removed.bundle) \(removed.language)"
                case BundleAdded.name:
                    let added = try event.decode(BundleAdded.self)
                    return "\(added.clock) bundle-added \(added.bundle)"
                case BundleRemoved.name:
                    let removed = try event.decode(BundleRemoved.self)
                    return "\(removed.clock) bundle-removed \(removed.bundle)"
                case Diagnostics.name:
                    let checks = try event.decode(Diagnostics.self)
                    let errors = checks.diagnostics.count { $0.severity == .error }, warnings = checks.diagnostics.count - errors
                    let summary = checks.diagnostics.isEmpty ? "clean" : "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) other"
                    return (["\(checks.clock) diagnostics \(checks.bundle): \(summary)"] + checks.diagnostics.map { "  \($0)" }).joined(separator: "\n")
                case Resync.name:
                    let resync = try event.decode(Resync.self)
                    // What was missed cannot be shown; the state is reloaded so later diffs are right.
                    let snapshot = try? connection.send(Snapshot(bundle: filters.bundle, languages: filters.languages, tables: filters.tables))
                    if let snapshot { self = State(snapshot.tables) }
                    return "\(resync.clock) resync (\(resync.reason.rawValue)): changes were missed; state reloaded"
                default:
                    return String(decoding: event.line, as: UTF8.self)
                }
            } catch {
                return String(decoding: event.line, as: UTF8.self)
            }
        }

        private func text(_ entry: Entry?) -> String {
            guard let entry else { return "(none)" }
            if let plain = entry.text { return (try? CanonicalJSON.text(encoding: plain)) ?? plain }
            return LiveDaemon.describe(entry)
        }
    }
}
