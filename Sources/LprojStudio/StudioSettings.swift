#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The port and token a user's studio keeps across runs, so that its
/// address — and every bookmark of a view — stays the same: a file only
/// its owner may read, `$XDG_STATE_HOME/lprojd/studio` (default
/// `~/.local/state/lprojd/studio`), two lines: the port, the token.
public struct StudioSettings: Equatable, Sendable {
    public var port: UInt16
    public var token: String

    public init(port: UInt16, token: String) {
        self.port = port
        self.token = token
    }

    /// Where they are kept for a user with `environment`.
    public static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/lprojd/studio" }
        return (environment["HOME"] ?? "/tmp") + "/.local/state/lprojd/studio"
    }

    /// The kept settings; nil when there are none, or when the file is not
    /// the user's own, is readable by others, or is not two such lines (a
    /// token others could read is no secret: the studio then makes a new one).
    public static func load(from path: String) -> StudioSettings? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid(),
              status.st_mode & 0o077 == 0, status.st_size < 4096 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        guard read(descriptor, &bytes, bytes.count) == bytes.count else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        guard lines.count == 2, let port = UInt16(lines[0]), port != 0, lines[1].count == 32,
              lines[1].allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        return StudioSettings(port: port, token: lines[1])
    }

    /// Keeps them at `path` (made with its directory, only the owner's; replaced atomically).
    public func save(to path: String) throws(StudioError) {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StudioError("cannot make \(directory): \(error.localizedDescription)")
        }
        let temporary = path + ".\(getpid()).new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StudioError("cannot write \(temporary): \(String(cString: strerror(errno)))") }
        let text = Array("\(port)\n\(token)\n".utf8)
        let written = write(descriptor, text, text.count)
        let closed = close(descriptor)
        guard written == text.count, closed == 0, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw StudioError("cannot write \(path): \(reason)")
        }
    }
}
