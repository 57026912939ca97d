#if canImport(Glibc)
import Glibc
#endif
import LprojTables

/// The images clients asked for, published as files in a directory beside
/// the socket (`SocketPath.publishedImages`), so that a process starting
/// later reads its first tables from them without a round trip
/// (docs/PROTOCOL.md, "Published images").
///
/// The directory is open to every local user, so only a table every local
/// user may read from its files is published (`ReadAccess.allowsEveryone`,
/// which the shelf asks first). The daemon holds an exclusive lock on the
/// directory while it runs — a process trusts the files only while that
/// lock is held, so the images of a daemon stopped or killed are never
/// read — empties it when it starts, empties and removes it when it stops,
/// and, in the loop turn that changes a published table, publishes the
/// table served then in its place (or removes the file). Shell only.
final class ImagePublisher {
    /// The directory.
    let path: String
    private let directory: Int32
    /// The file each published table is in, and the table it holds.
    private var published: [TableAddress: (name: String, table: Table)] = [:]
    /// The table in each file (two addresses whose names collide take turns).
    private var byName: [String: TableAddress] = [:]
    /// Files published since start (a `status` counter).
    private(set) var made: UInt64 = 0
    /// Whether the addresses published changed since `takeAddressesChanged` last said so.
    private var addressesChanged = false

    /// Opens the directory at `path` (made when missing), locks it, empties
    /// it and makes it mode 0755. Throws when it is not a directory of this
    /// user's — another user may have made it to pose as lprojd —, holds
    /// anything but images (it is someone's directory: it is not opened to
    /// every user), or another daemon holds it.
    init(path: String) throws(DaemonError) {
        var info = stat()
        if lstat(path, &info) != 0 {
            guard errno == ENOENT, mkdir(path, 0o755) == 0 || errno == EEXIST, lstat(path, &info) == 0 else {
                throw DaemonError("cannot make \(path) for published images: \(String(cString: strerror(errno)))")
            }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw DaemonError("\(path) is not a directory: images are not published there (remove it)")
        }
        guard info.st_uid == geteuid() else {
            throw DaemonError("\(path) belongs to user \(info.st_uid): images are not published there (another user may have made it to pose as lprojd; remove it)")
        }
        let directory = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directory >= 0 else { throw DaemonError("cannot open \(path) for published images: \(String(cString: strerror(errno)))") }
        var opened = stat()
        // The directory checked is the one opened (not one swapped in between).
        guard fstat(directory, &opened) == 0, opened.st_dev == info.st_dev, opened.st_ino == info.st_ino else {
            close(directory)
            throw DaemonError("\(path) changed while it was opened: images are not published there")
        }
        // A client holds a shared lock for the moment it checks; another daemon would hold it for good.
        var locked = false
        for _ in 0..<200 {
            if flock(directory, LOCK_EX | LOCK_NB) == 0 { locked = true; break }
            guard errno == EWOULDBLOCK || errno == EINTR else { break }
            usleep(5_000)
        }
        guard locked else {
            close(directory)
            throw DaemonError("\(path) is locked by another process (another lprojd?): images are not published there")
        }
        if let other = Self.names(in: directory).first(where: { !Self.isImage($0) }) {
            close(directory)
            throw DaemonError("\(path) holds \(other), which lprojd did not put there: images are not published there")
        }
        // Open to read for every user (a umask, or systemd's RuntimeDirectoryMode=, may have made it private).
        guard fchmod(directory, 0o755) == 0 else {
            close(directory)
            throw DaemonError("cannot make \(path) readable for every user: \(String(cString: strerror(errno)))")
        }
        self.path = path
        self.directory = directory
        removeAll()
    }

    deinit {
        close(directory)
    }

    /// How many tables are published.
    var count: Int { published.count }

    /// The addresses published.
    var addresses: some Collection<TableAddress> { published.keys }

    /// Whether the addresses published changed since the last call (then: keep them, `PublishedAddresses`).
    func takeAddressesChanged() -> Bool {
        defer { addressesChanged = false }
        return addressesChanged
    }

    /// The table published for `address`, if any.
    func table(at address: TableAddress) -> Table? {
        published[address]?.table
    }

    /// Publishes `image` (`TableImage.encode`'s bytes) of `table`, served
    /// at `address`. Written whole under another name, then renamed: a
    /// reader sees the old file or the new one. False when it could not be
    /// written (what was before stays).
    @discardableResult
    func publish(_ image: [UInt8], of table: Table, at address: TableAddress) -> Bool {
        let name = PublishedImage.name(bundle: address.bundle, localization: address.localization, table: address.table)
        let bytes = PublishedImage.encode(bundle: address.bundle, localization: address.localization, table: address.table, image: image)
        let temporary = "." + name + ".tmp"
        unlinkat(directory, temporary, 0)
        let file = openat(directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard file >= 0 else { return false }
        var written = 0
        // The daemon's umask may be 0077: the mode is set, not asked for.
        var good = fchmod(file, 0o644) == 0
        while good, written < bytes.count {
            let count = bytes.withUnsafeBytes { write(file, $0.baseAddress! + written, bytes.count - written) }
            if count < 0, errno == EINTR { continue }
            good = count > 0
            written += max(count, 0)
        }
        good = close(file) == 0 && good
        guard good, renameat(directory, temporary, directory, name) == 0 else {
            unlinkat(directory, temporary, 0)
            return false
        }
        if let other = byName[name], other != address { published[other] = nil }
        if published[address] == nil { addressesChanged = true }
        published[address] = (name, table)
        byName[name] = address
        made += 1
        return true
    }

    /// Removes the published image of the table at `address`, if any.
    func withdraw(_ address: TableAddress) {
        guard let name = published[address]?.name else { return }
        published[address] = nil
        addressesChanged = true
        byName[name] = nil
        unlinkat(directory, name, 0)
    }

    /// Removes every published image and every unfinished one.
    func removeAll() {
        if !published.isEmpty { addressesChanged = true }
        published.removeAll()
        byName.removeAll()
        for name in Self.names(in: directory) where Self.isImage(name) { unlinkat(directory, name, 0) }
    }

    /// Whether `name` is a published image's, or one being written.
    private static func isImage(_ name: String) -> Bool {
        name.hasSuffix(PublishedImage.suffix) || (name.hasPrefix(".") && name.hasSuffix(PublishedImage.suffix + ".tmp"))
    }

    /// The names in the directory open at `directory` (not `.` and `..`).
    private static func names(in directory: Int32) -> [String] {
        let listing = dup(directory)
        guard listing >= 0, let stream = fdopendir(listing) else {
            if listing >= 0 { close(listing) }
            return []
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }
}
