#if canImport(Glibc)
import Glibc
#endif
import LprojFormats
import LprojLanguages
import LprojTables

/// Languages selected per app (`select-language`), persisted in the state
/// directory as `languages/<app>`, one tag per file. A write is a temporary
/// file, fsync, rename and a directory fsync: a crash leaves the old choice
/// or the new one, never a torn file.
///
/// At most `maximumApps` apps are remembered (`[State] MaxApps=`): a
/// selection for one more forgets the app unused longest — the one whose
/// choice was made, or that said `hello`, least recently (a file's
/// modification time, so the order survives a restart).
struct Selections {
    let directory: String
    /// The state directory the selections are kept in (`languages/` below it).
    let stateDirectory: String
    private(set) var languages: [String: String] = [:]
    /// When each app with a selection last selected or said hello (seconds since the epoch).
    private var lastUsed: [String: Double] = [:]
    var maximumApps: Int

    /// Loads the selections persisted in `stateDirectory` (created if
    /// missing); past `maximumApps`, the ones unused longest are forgotten.
    init(stateDirectory: String, maximumApps: Int) throws(SelectionError) {
        self.maximumApps = maximumApps
        self.stateDirectory = stateDirectory
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
                var info = stat()
                lastUsed[app] = stat(directory + "/" + app, &info) == 0
                    ? Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9 : 0
            }
        }
        while languages.count > maximumApps { try forgetLeastRecentlyUsed() }
    }

    /// Notes that `app` is in use (its `hello`): it is forgotten last.
    mutating func use(_ app: String) {
        guard languages[app] != nil else { return }
        lastUsed[app] = Self.now
        utimensat(AT_FDCWD, directory + "/" + app, nil, 0)
    }

    /// Records `language` for `app` (nil: follow the system again), durably.
    mutating func select(_ language: String?, for app: String) throws(SelectionError) {
        let path = directory + "/" + app
        if language != nil, languages[app] == nil {
            while languages.count >= maximumApps { try forgetLeastRecentlyUsed() }
        }
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
        lastUsed[app] = language == nil ? nil : Self.now
    }

    /// Forgets the app whose selection was used least recently (its file removed).
    private mutating func forgetLeastRecentlyUsed() throws(SelectionError) {
        guard let (app, _) = lastUsed.min(by: { ($0.value, $0.key) < ($1.value, $1.key) }) else { return }
        let path = directory + "/" + app
        guard unlink(path) == 0 || errno == ENOENT else { throw SelectionError(message: "\(path): \(String(cString: strerror(errno)))") }
        languages[app] = nil
        lastUsed[app] = nil
    }

    private static var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
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
