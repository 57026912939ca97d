#if canImport(Glibc)
import Glibc
#endif
import CInih
import LprojPaths

/// A problem in the configuration: the file, line and key at fault.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public var file: String
    /// 0 when the problem is not on one line (a missing file, a missing root).
    public var line: Int
    /// `[Section] Key`, when one key is at fault.
    public var key: String?
    public var message: String

    public init(file: String, line: Int = 0, key: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        let place = line > 0 ? "\(file):\(line)" : file
        return "\(place): \(key.map { "\($0): " } ?? "")\(message)"
    }
}

/// Reads `lprojd.conf`: INI with systemd-style sections, parsed by libinih.
/// Unknown sections and keys are errors (a typo must not be ignored);
/// list keys (`Root=`, `Exclude=`) repeat, and an empty value clears them.
public enum ConfigurationFile {
    /// The configuration in `path`, laid over the defaults.
    public static func read(path: String) throws(ConfigurationError) -> Configuration {
        guard let file = fopen(path, "r") else {
            throw ConfigurationError(file: path, message: "cannot read: \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        let reader = Reader(path: path, file: file)
        let status = withExtendedLifetime(reader) {
            ini_parse_stream({ buffer, size, stream in
                let reader = Unmanaged<Reader>.fromOpaque(stream!).takeUnretainedValue()
                guard let line = fgets(buffer, size, reader.file) else { return nil }
                // libinih asks for a line at a time; a longer line arrives in pieces.
                if strchr(line, 0x0A) != nil || feof(reader.file) != 0 { reader.line += 1 }
                return line
            }, Unmanaged.passUnretained(reader).toOpaque(), { user, section, name, value in
                let reader = Unmanaged<Reader>.fromOpaque(user!).takeUnretainedValue()
                return reader.apply(section: String(cString: section!), name: name.map { String(cString: $0) },
                                    value: value.map { String(cString: $0) }) ? 1 : 0
            }, Unmanaged.passUnretained(reader).toOpaque())
        }
        if let error = reader.error { throw error }
        if status != 0 {
            throw ConfigurationError(file: path, line: Int(status), message: "not an INI line (expected [Section], Key=Value or a # comment)")
        }
        return reader.configuration
    }

    /// Sets one key from a command-line flag, with the file's rules; the error names the flag.
    public static func override(_ section: String, _ key: String, _ value: String, in configuration: inout Configuration,
                                flag: String) throws(ConfigurationError) {
        do throws(ValueError) {
            try apply(section: section, key: key, value: value, to: &configuration)
        } catch {
            throw ConfigurationError(file: flag, message: error.message)
        }
    }

    /// Applies `Key=Value` of `[Section]` to a configuration; the one place that knows the keys.
    static func apply(section: String, key: String, value: String, to configuration: inout Configuration) throws(ValueError) {
        switch (section, key) {
        case ("Watch", "Root"):
            if value.isEmpty { configuration.watch.roots = [] } else {
                guard value.hasPrefix("/") else { throw ValueError("a root must be an absolute path, not '\(value)'") }
                configuration.watch.roots.append(value)
            }
        case ("Watch", "Exclude"):
            if value.isEmpty { configuration.watch.excludes = [] } else { configuration.watch.excludes += words(value) }
        case ("Watch", "RemovalGrace"): configuration.watch.removalGrace = try duration(value, of: key)
        case ("Watch", "QuietPeriod"): configuration.watch.quietPeriod = try duration(value, of: key)
        case ("Watch", "PollInterval"): configuration.watch.pollInterval = try duration(value, of: key)
        case ("Watch", "Poll"):
            // `Poll=MODE` for every root, `Poll=MODE ROOT...` for those; empty: every root back to auto.
            var fields = words(value)
            guard !fields.isEmpty else {
                configuration.watch.pollDefault = .auto
                configuration.watch.pollRoots = []
                return
            }
            let modeText = fields.removeFirst()
            guard let mode = Configuration.PollMode(rawValue: modeText) else {
                throw ValueError("expected auto, on or off (then, optionally, the roots it is for), not '\(modeText)'")
            }
            if fields.isEmpty { configuration.watch.pollDefault = mode }
            for root in fields {
                guard root.hasPrefix("/") else { throw ValueError("a root must be an absolute path, not '\(root)'") }
                // A root named again takes its latest mode (by bytes).
                configuration.watch.pollRoots.removeAll { $0.root.hasSameBytes(as: root) }
                configuration.watch.pollRoots.append(.init(root: root, mode: mode))
            }
        case ("Watch", "FollowLinksTo"):
            if value.isEmpty { configuration.watch.followLinksTo = [] } else {
                for path in words(value) {
                    guard path.hasPrefix("/") else { throw ValueError("expected absolute paths, not '\(path)'") }
                    configuration.watch.followLinksTo.append(path)
                }
            }
        case ("Socket", "Path"):
            guard value.isEmpty || value.hasPrefix("/") else { throw ValueError("the socket path must be absolute, not '\(value)'") }
            guard value.utf8.count <= 107 else { throw ValueError("a socket path holds at most 107 bytes") }
            configuration.socket.path = value.isEmpty ? nil : value
        case ("Socket", "Mode"):
            guard let mode = UInt32(value, radix: 8), mode <= 0o777, !value.isEmpty else {
                throw ValueError("expected an octal mode like 0660, not '\(value)'")
            }
            configuration.socket.mode = mode
        case ("Socket", "Group"):
            configuration.socket.group = value.isEmpty ? nil : try group(value)
        case ("Socket", "PublishImages"):
            switch value.lowercased() {
            case "yes", "on", "true", "1": configuration.socket.publishesImages = true
            case "no", "off", "false", "0": configuration.socket.publishesImages = false
            default: throw ValueError("expected yes or no, not '\(value)'")
            }
        case ("Socket", "MetricsListen"):
            guard !value.isEmpty else { configuration.socket.metricsListen = nil; break }
            guard let listen = Configuration.ListenAddress(value) else {
                throw ValueError("expected an IP address and a port, as 127.0.0.1:9464 or [::1]:9464, not '\(value)'")
            }
            configuration.socket.metricsListen = listen
        case ("Access", "AllowUsers"): configuration.access.allowUsers = try words(value).map(user)
        case ("Access", "AllowGroups"): configuration.access.allowGroups = try words(value).map(group)
        case ("Access", "SelectUsers"): configuration.access.selectUsers = try words(value).map(user)
        case ("Access", "SelectGroups"): configuration.access.selectGroups = try words(value).map(group)
        case ("Limits", "MaxTableBytes"): configuration.limits.maximumTableBytes = try number(value, of: key)
        case ("Limits", "MaxTableObjects"): configuration.limits.maximumTableObjects = try number(value, of: key)
        case ("Limits", "MaxRequestBytes"): configuration.limits.maximumRequestBytes = try number(value, of: key)
        case ("Limits", "MaxClients"): configuration.limits.maximumClients = try number(value, of: key)
        case ("Limits", "MaxClientsPerUser"): configuration.limits.maximumClientsPerUser = try number(value, of: key)
        case ("Limits", "ReservedClients"): configuration.limits.reservedClients = try number(value, of: key)
        case ("Limits", "FirstRequestTimeout"): configuration.limits.firstRequestTimeout = try duration(value, of: key)
        case ("Limits", "MaxHold"): configuration.limits.maximumHold = try duration(value, of: key)
        case ("Limits", "MaxSubscriptions"): configuration.limits.maximumSubscriptions = try number(value, of: key)
        case ("Limits", "Misses"): configuration.limits.maximumMisses = try number(value, of: key)
        case ("Limits", "SharedImages"): configuration.limits.sharedImages = try number(value, of: key)
        case ("Limits", "MaxFilterNames"): configuration.limits.maximumFilterNames = try number(value, of: key)
        case ("Limits", "ClientQueueBytes"): configuration.limits.clientQueueBytes = try number(value, of: key)
        case ("Limits", "UserQueueBytes"): configuration.limits.userQueueBytes = try number(value, of: key)
        case ("Limits", "HistoryLength"): configuration.limits.historyLength = try number(value, of: key)
        case ("Limits", "HistoryBytes"): configuration.limits.historyBytes = try number(value, of: key)
        case ("Limits", "RollbackGenerations"): configuration.limits.rollbackGenerations = try number(value, of: key)
        case ("Limits", "RollbackBytes"): configuration.limits.rollbackBytes = try number(value, of: key)
        case ("State", "Directory"):
            guard value.isEmpty || value.hasPrefix("/") else { throw ValueError("the state directory must be absolute, not '\(value)'") }
            configuration.state.directory = value.isEmpty ? nil : value
        case ("State", "MaxApps"): configuration.state.maximumApps = try number(value, of: key)
        case ("Log", "Level"):
            guard let level = Configuration.LogLevel(rawValue: value) else {
                throw ValueError("expected one of \(Configuration.LogLevel.allCases.map(\.rawValue).joined(separator: ", ")), not '\(value)'")
            }
            configuration.log.level = level
        default:
            throw ValueError(knownSections.contains(section) ? "unknown key" : "unknown section [\(section)]")
        }
    }

    static let knownSections: Set<String> = ["Watch", "Socket", "Access", "Limits", "State", "Log"]

    /// What is wrong with one value.
    struct ValueError: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// A number key's value within its range (`ValueRange`): a count, or a size with K, M or G.
    static func number(_ text: String, of key: String) throws(ValueError) -> Int {
        let range = ValueRange.of(key)
        guard let value = range.parse(text), range.contains(value) else { throw ValueError(range.refusal(of: text)) }
        return Int(value)
    }

    /// A duration key's value (`250ms`, `2s`, `0`) within its range.
    static func duration(_ text: String, of key: String) throws(ValueError) -> Duration {
        .milliseconds(try number(text, of: key))
    }

    static func words(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }).map(String.init)
    }

    static func user(_ name: String) throws(ValueError) -> Configuration.Principal {
        if let id = UInt32(name) { return .init(name: name, id: id) }
        guard let entry = getpwnam(name) else { throw ValueError("no such user '\(name)'") }
        return .init(name: name, id: entry.pointee.pw_uid)
    }

    static func group(_ name: String) throws(ValueError) -> Configuration.Principal {
        if let id = UInt32(name) { return .init(name: name, id: id) }
        guard let entry = getgrnam(name) else { throw ValueError("no such group '\(name)'") }
        return .init(name: name, id: entry.pointee.gr_gid)
    }

    /// libinih's callbacks land here; the first problem stops the parse.
    private final class Reader {
        let path: String
        let file: UnsafeMutablePointer<FILE>
        var line = 0
        var configuration = Configuration()
        var error: ConfigurationError?

        init(path: String, file: UnsafeMutablePointer<FILE>) {
            self.path = path
            self.file = file
        }

        func apply(section: String, name: String?, value: String?) -> Bool {
            guard let name else {
                // A section header alone (libinih reports it with INI_CALL_HANDLER_ON_NEW_SECTION builds).
                return true
            }
            do throws(ValueError) {
                guard !section.isEmpty else { throw ValueError("a key before any [Section]") }
                try ConfigurationFile.apply(section: section, key: name, value: value ?? "", to: &configuration)
                return true
            } catch {
                self.error = ConfigurationError(file: path, line: line, key: section.isEmpty ? name : "[\(section)] \(name)",
                                                message: error.message)
                return false
            }
        }
    }
}
