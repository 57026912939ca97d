#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LprojPaths
import LprojTables

/// How much a table file may be trusted with.
public struct TableLimits: Hashable, Sendable {
    /// Files larger than this are refused with a diagnostic (default 16 MiB),
    /// and so is a binary property list whose strings and data, counted once
    /// for every reference to them, come to more.
    public var maximumFileBytes: Int
    /// The most objects (strings, dictionaries, arrays, numbers) a binary
    /// property list may decode into, each counted once for every reference
    /// to it (default 1,000,000: a 100,000-key table has 200,001).
    public var maximumObjects: Int

    public init(maximumFileBytes: Int = 16 << 20, maximumObjects: Int = 1_000_000) {
        self.maximumFileBytes = maximumFileBytes
        self.maximumObjects = maximumObjects
    }
}

/// A file that could not be read at all (as opposed to one with problems).
public struct TableReadError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    /// The path is a symbolic link, and links were not to be followed.
    public var isSymbolicLink: Bool
    /// The process (`EMFILE`) or the system (`ENFILE`) had no file
    /// descriptor left: the file is as it was, try again later.
    public var isOutOfDescriptors: Bool
    /// The path is a FIFO, a socket or a device: not a table file at all.
    public var isSpecialFile: Bool
    /// Nothing is at the path (`ENOENT`, `ENOTDIR`): the file is gone.
    public var isMissing: Bool

    public init(path: String, reason: String, isSymbolicLink: Bool = false, isOutOfDescriptors: Bool = false, isSpecialFile: Bool = false,
                isMissing: Bool = false) {
        self.path = path
        self.reason = reason
        self.isSymbolicLink = isSymbolicLink
        self.isOutOfDescriptors = isOutOfDescriptors
        self.isSpecialFile = isSpecialFile
        self.isMissing = isMissing
    }

    public var description: String { "\(path): \(reason)" }
}

/// One parsed table file of any format.
public struct TableFile: Sendable {
    /// What a file holds: one table, or a catalog of one table per language.
    public enum Contents: Hashable, Sendable {
        case table(Table)
        /// (Boxed: a daemon keeps one `Contents` per file, most of them tables.)
        indirect case catalog(StringCatalog)
    }

    public var path: String
    public var format: TableFormat
    public var contents: Contents
    /// Every problem found, in file order.
    public var diagnostics: [Diagnostic]
    /// Whether the file was empty (0 bytes): a reader racing a save sees
    /// that between the save's truncate and its write.
    public var wasEmpty: Bool

    /// Whether the file is unusable (a broken file never replaces a good table).
    public var hasErrors: Bool { diagnostics.containsErrors }

    /// Parses `bytes` as `format`, within `limits` (the file's size is the caller's to check).
    public init(bytes: some ContiguousBytes, path: String, format: TableFormat, limits: TableLimits = TableLimits()) {
        self.init(bytes: bytes, path: path, format: format, limits: limits, sharing: [])
    }

    /// As `init(bytes:path:format:limits:)`; a `.strings` table whose keys
    /// are one of `sharing`'s, in order, is made over that set (`SharedKeys`).
    package init(bytes: some ContiguousBytes, path: String, format: TableFormat, limits: TableLimits, sharing: [SharedKeys]) {
        self.path = path
        self.format = format
        wasEmpty = bytes.withUnsafeBytes { $0.isEmpty }
        switch format {
        case .strings:
            let file = StringsFile(bytes: bytes, path: path, limits: limits, sharing: sharing)
            (contents, diagnostics) = (.table(file.table), file.diagnostics)
        case .stringsdict:
            let file = StringsDictFile(bytes: bytes, path: path, limits: limits)
            (contents, diagnostics) = (.table(file.table), file.diagnostics)
        case .xcstrings:
            let file = StringCatalogFile(bytes: bytes, path: path)
            (contents, diagnostics) = (.catalog(file.catalog), file.diagnostics)
        }
    }

    private init(path: String, format: TableFormat, contents: Contents, diagnostics: [Diagnostic]) {
        self.path = path
        self.format = format
        self.contents = contents
        self.diagnostics = diagnostics
        wasEmpty = false
    }

    /// Reads and parses the file at `path`, its format chosen by extension.
    /// A file over the size limit is refused with an error diagnostic; a file
    /// that cannot be read at all throws. With `directory` (an open
    /// descriptor of the directory `path` is in), the file is opened by its
    /// name relative to it: one path component for the kernel to resolve.
    public static func read(path: String, limits: TableLimits = TableLimits(), directory: Int32? = nil) throws(TableReadError) -> TableFile {
        var reader = TableFileReader(limits: limits)
        return try reader.read(path: path, directory: directory)
    }

    /// The file's bytes, or nil when it is larger than `limit`.
    public static func readBytes(path: String, limit: Int, directory: Int32? = nil) throws(TableReadError) -> [UInt8]? {
        var reader = TableFileReader(limits: TableLimits(maximumFileBytes: limit, maximumObjects: TableLimits().maximumObjects))
        return try reader.withBytes(path: path, directory: directory, listedAsRegular: false) { $0.map(Array.init) }
    }

    /// The table of a file refused for its size.
    static func refused(path: String, format: TableFormat, limit: Int) -> TableFile {
        let refusal = Diagnostic(file: path, line: 1, column: 1, severity: .error,
                                 message: "file is larger than the \(ByteCountText.describe(limit)) limit for a table; not read",
                                 hint: "raise the table size limit if this file is really a string table")
        let empty: Contents = format == .xcstrings
            ? .catalog(StringCatalog(sourceLanguage: "", version: "", tables: [:])) : .table(Table())
        return TableFile(path: path, format: format, contents: empty, diagnostics: [refusal])
    }
}

/// Reads table files one after another into one buffer it keeps, so that
/// walking a tree allocates nothing per file for the bytes. One per thread.
public struct TableFileReader {
    public let limits: TableLimits
    private var buffer: [UInt8] = []

    public init(limits: TableLimits = TableLimits()) {
        self.limits = limits
    }

    /// Reads and parses the file at `path` (see `TableFile.read`). With
    /// `listedAsRegular` the caller has just listed it as a regular file,
    /// so it is not `fstat`ed again: its size is found by reading.
    /// `name`, when given, is the file's name in `directory` (the last
    /// component of `path`, not looked for again). A symbolic link is read
    /// only where `links` follows it (`isSymbolicLink` when it is refused).
    public mutating func read(path: String, directory: Int32? = nil, name: String? = nil, listedAsRegular: Bool = false,
                              links: LinkPolicy = .everywhere) throws(TableReadError) -> TableFile {
        try read(path: path, directory: directory, name: name, listedAsRegular: listedAsRegular, links: links, sharing: [])
    }

    /// As `read(path:directory:name:listedAsRegular:links:)`; a `.strings`
    /// table whose keys are one of `sharing`'s, in order, is made over that set.
    package mutating func read(path: String, directory: Int32?, name: String?, listedAsRegular: Bool, links: LinkPolicy,
                               sharing: [SharedKeys]) throws(TableReadError) -> TableFile {
        guard let format = TableFormat(path: path) else {
            throw TableReadError(path: path, reason: "not a table file (expected .strings, .stringsdict or .xcstrings)")
        }
        let limits = self.limits
        return try withBytes(path: path, directory: directory, name: name, listedAsRegular: listedAsRegular,
                             links: links) { bytes in
            guard let bytes else { return TableFile.refused(path: path, format: format, limit: limits.maximumFileBytes) }
            return TableFile(bytes: bytes, path: path, format: format, limits: limits, sharing: sharing)
        }
    }

    /// Calls `body` with the file's bytes (valid only during the call), or
    /// with nil when it is larger than the limit.
    mutating func withBytes<Result>(path: String, directory: Int32?, name: String? = nil, listedAsRegular: Bool,
                                    links: LinkPolicy = .everywhere,
                                    _ body: (UnsafeRawBufferPointer?) -> Result) throws(TableReadError) -> Result {
        let limit = limits.maximumFileBytes
        // Non-blocking: a FIFO named like a table must not hang the reader (it is refused below).
        let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
        func open(following: Bool) -> Int32 {
            let flags = flags | (following ? 0 : O_NOFOLLOW)
            if let directory, let name { return openat(directory, name, flags) }
            if let directory, let slash = PathBytes.lastOffset(of: UInt8(ascii: "/"), in: path) {
                return path.withCString { openat(directory, $0 + slash + 1, flags) }
            }
            return Glibc.open(path, flags)
        }
        let everywhere = if case .everywhere = links.scope { true } else { false }
        var descriptor = open(following: everywhere)
        var listedAsRegular = listedAsRegular
        if descriptor < 0, errno == ELOOP, !everywhere {
            // A link: followed only where the policy allows, checked on the file opened (not on a path that may be swapped meanwhile).
            guard links.followsAny else { throw TableReadError(path: path, reason: "a symbolic link (not followed)", isSymbolicLink: true) }
            descriptor = open(following: true)
            if descriptor >= 0 {
                guard let real = LinkPolicy.realPath(of: descriptor), links.allows(realPath: real) else {
                    close(descriptor)
                    throw TableReadError(path: path, reason: "a symbolic link out of every root (not followed)", isSymbolicLink: true)
                }
                listedAsRegular = false
            }
        }
        guard descriptor >= 0 else {
            throw TableReadError(path: path, reason: String(cString: strerror(errno)), isOutOfDescriptors: errno == EMFILE || errno == ENFILE,
                                 isMissing: errno == ENOENT || errno == ENOTDIR)
        }
        defer { close(descriptor) }
        // A reader kept for long (the daemon's) does not hold on to the buffer of an exceptionally large file.
        defer { if buffer.count > Self.keptBufferBytes { buffer = [] } }
        // One byte more than the size: a read that stops short of the
        // buffer has met the end of the (regular) file, so the usual file
        // takes one read. Never past the limit: the file may grow meanwhile.
        var wanted = max(buffer.count, 16 << 10)
        if !listedAsRegular {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { throw TableReadError(path: path, reason: String(cString: strerror(errno))) }
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                let kind = DirectoryListing.specialKind(mode: info.st_mode)
                throw TableReadError(path: path, reason: "\(kind ?? "a directory"), not a regular file", isSpecialFile: kind != nil)
            }
            if Int(info.st_size) > limit { return body(nil) }
            wanted = max(wanted, Int(info.st_size) + 1)
        }
        wanted = min(wanted, limit + 1)
        if buffer.count < wanted { buffer = [UInt8](repeating: 0, count: wanted) }
        var filled = 0
        while true {
            if filled == buffer.count {
                if buffer.count > limit { return body(nil) }
                buffer.append(contentsOf: repeatElement(0, count: min(limit + 1, buffer.count * 2) - buffer.count))
            }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 {
                if errno == EINTR { continue }
                throw TableReadError(path: path, reason: String(cString: strerror(errno)))
            }
            filled += count
            if count == 0 || filled < buffer.count { break }
        }
        if filled > limit { return body(nil) }
        return buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[..<filled])) }
    }

    /// The largest buffer kept from one read to the next.
    package static let keptBufferBytes = 1 << 20

    /// The size of the buffer kept now (for tests).
    package var bufferBytes: Int { buffer.count }
}

/// Byte counts for people: `16 MiB`, `512 KiB`, `300 bytes`.
public enum ByteCountText {
    public static func describe(_ count: Int) -> String {
        if count >= 1 << 20, count % (1 << 20) == 0 { return "\(count >> 20) MiB" }
        if count >= 1 << 10, count % (1 << 10) == 0 { return "\(count >> 10) KiB" }
        return "\(count) bytes"
    }
}
