import LprojPaths
import LprojTables

/// The served tables' record of each table file, by path — kept by directory:
/// a directory's path is stored once and each of its files by name (most
/// names fit inside their `String`), not each file's whole path. With
/// 50,000 files, whole paths and a hash table sized for them were about
/// 12 MB of the daemon's memory; directories of a few files each, about
/// a third of that.
struct FileRecords: Sequence {
    typealias Record = ServedTables.FileRecord

    private var directories: [ExactName: [ExactName: Record]] = [:]
    /// How many files have a record.
    private(set) var count = 0
    /// The directory of the last file updated: files come a directory at a
    /// time, and its path is then not made again for each.
    private var recent = ExactName("")

    /// The record of the file at `path`.
    subscript(path: ExactName) -> Record? {
        let (directory, name) = split(path)
        return directories[directory]?[name]
    }

    /// Calls `body` with the record of the file at `path` where it is
    /// stored (a new one `placeholder` when there is none).
    mutating func update<Result>(_ path: ExactName, placeholder: Record, _ body: (inout Record) -> Result) -> Result {
        let (directory, name) = split(path)
        recent = directory
        // One lookup of the directory (its files' table changed where it is stored), then of the name.
        return Self.modify(&directories[directory, default: Dictionary(minimumCapacity: 8)]) { files in
            if files[name] == nil { count += 1 }
            return body(&files[name, default: placeholder])
        }
    }

    /// Drops the record of the file at `path`; returns it.
    mutating func removeValue(forKey path: ExactName) -> Record? {
        let (directory, name) = split(path)
        guard let record = directories[directory]?.removeValue(forKey: name) else { return nil }
        count -= 1
        if directories[directory]?.isEmpty == true { directories[directory] = nil }
        return record
    }

    /// The paths of every file with a record.
    var keys: [ExactName] { map(\.key) }

    /// The paths of the files under `directory` (not itself).
    func paths(under directory: String) -> [String] {
        directories.flatMap { parent, files in
            parent.isWithin(directory) ? files.keys.map { Self.join(parent, $0).string } : []
        }
    }

    func makeIterator() -> some IteratorProtocol<(key: ExactName, value: Record)> {
        directories.lazy.flatMap { parent, files in files.lazy.map { (key: Self.join(parent, $0.key), value: $0.value) } }.makeIterator()
    }

    /// A path's directory and name (a path without a slash is a name in "").
    private func split(_ path: ExactName) -> (directory: ExactName, name: ExactName) {
        var string = path.string
        // On the bytes: a `String.UTF8View` compared generically was a byte at a time.
        return string.withUTF8 { bytes in
            guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return (ExactName(""), path) }
            let directory = UnsafeBufferPointer(rebasing: bytes[..<slash])
            let name = ExactName(String(decoding: UnsafeBufferPointer(rebasing: bytes[(slash + 1)...]), as: UTF8.self))
            if PathBytes.equal(recent.string, directory) { return (recent, name) }
            return (ExactName(String(decoding: directory, as: UTF8.self)), name)
        }
    }

    private static func modify<Value, Result>(_ value: inout Value, _ body: (inout Value) -> Result) -> Result {
        body(&value)
    }

    private static func join(_ directory: ExactName, _ name: ExactName) -> ExactName {
        ExactName(directory.string.isEmpty ? name.string : directory.string + "/" + name.string)
    }
}
