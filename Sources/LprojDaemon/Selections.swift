#if canImport(Glibc)
import Glibc
#endif
import LprojCatalog
import LprojTables

/// Languages selected per app (`select-language`), persisted in the state
/// directory as `languages/<app>`, one tag per file. A write is a temporary
/// file, fsync, rename and a directory fsync: a crash leaves the old choice
/// or the new one, never a torn file.
struct Selections {
    let directory: String
    private(set) var languages: [String: String] = [:]

    /// Loads the selections persisted in `stateDirectory` (created if missing).
    init(stateDirectory: String) throws(SelectionError) {
        directory = stateDirectory + "/languages"
        try Self.makeDirectories(directory)
        guard let handle = opendir(directory) else { throw SelectionError(message: "\(directory): \(String(cString: strerror(errno)))") }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let app = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            guard LanguageSelection.problem(withApp: app) == nil else { continue }
            if let text = Self.read(directory + "/" + app), case .success(let language?) = LanguageSelection.language(text) {
                languages[app] = language
            }
        }
    }

    /// Records `language` for `app` (nil: follow the system again), durably.
    mutating func select(_ language: String?, for app: String) throws(SelectionError) {
        let path = directory + "/" + app
        if let language {
            let temporary = directory + "/." + app + ".tmp"
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw SelectionError(message: "\(temporary): \(String(cString: strerror(errno)))") }
            var text = language + "\n"
            let ok = text.withUTF8 { write(descriptor, $0.baseAddress, $0.count) == $0.count } && fsync(descriptor) == 0
            close(descriptor)
            guard ok, rename(temporary, path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw SelectionError(message: "\(path): \(reason)")
            }
        } else if unlink(path) != 0 && errno != ENOENT {
            throw SelectionError(message: "\(path): \(String(cString: strerror(errno)))")
        }
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
        languages[app] = language
    }

    private static func read(_ path: String) -> String? {
        guard let bytes = try? TableFile.readBytes(path: path, limit: 4096) else { return nil }
        return String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace).first.map(String.init)
    }

    static func makeDirectories(_ path: String) throws(SelectionError) {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw SelectionError(message: "cannot create \(prefix): \(String(cString: strerror(errno)))")
            }
        }
    }
}

/// The state directory could not be read or written.
struct SelectionError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
