#if canImport(Glibc)
import Glibc
#endif

/// A directory's entries with their kind, from `readdir` (an `lstat` only
/// where the filesystem does not say): what the watcher and the daemon's
/// crawl both walk trees with. Symbolic links are neither kind: never followed.
public enum DirectoryListing {
    public enum Kind: Sendable {
        case directory
        case file
    }

    /// Calls `body` with each entry's name, path and kind (other kinds are skipped); false when it cannot be opened.
    @discardableResult
    public static func forEachEntry(of directory: String, _ body: (_ name: String, _ path: String, _ kind: Kind) -> Void) -> Bool {
        guard let handle = opendir(directory) else { return false }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            guard name != ".", name != ".." else { continue }
            let path = directory + "/" + name
            var type = entry.pointee.d_type
            if type == UInt8(DT_UNKNOWN) {
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                type = (info.st_mode & S_IFMT) == S_IFDIR ? UInt8(DT_DIR) : (info.st_mode & S_IFMT) == S_IFREG ? UInt8(DT_REG) : 0
            }
            if type == UInt8(DT_DIR) {
                body(name, path, .directory)
            } else if type == UInt8(DT_REG) {
                body(name, path, .file)
            }
        }
        return true
    }

    /// Calls `body` with the name and target of each symbolic link in `directory`.
    static func forEachLink(of directory: String, _ body: (_ name: String, _ target: String) -> Void) {
        guard let handle = opendir(directory) else { return }
        defer { closedir(handle) }
        var target = [UInt8](repeating: 0, count: Int(PATH_MAX))
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            let count = target.withUnsafeMutableBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { readlink(directory + "/" + name, $0.baseAddress!, $0.count) }
            }
            guard count >= 0 else { continue }
            body(name, String(decoding: target.prefix(count), as: UTF8.self))
        }
    }
}
