#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// A directory's entries with their kind, read with `getdents64` (an
/// `lstat` only where the filesystem does not say): what the watcher, the
/// daemon's crawl and `LocalizedBundle` all walk trees with. A symbolic
/// link is the kind it leads to when a `LinkPolicy` is given and follows
/// it, and skipped otherwise; names starting with `..` are never listed
/// (`LinkPolicy.isWalked`). (`opendir` would add an `fstat` and a 32 KiB
/// allocation per directory: a crawl lists thousands.)
public enum DirectoryListing {
    public enum Kind: Sendable {
        case directory
        case file
    }

    /// Calls `body` with each entry's name, path and kind (other kinds are
    /// skipped, and links unless `links` follows them); false when it cannot be opened.
    @discardableResult
    public static func forEachEntry(of directory: String, following links: LinkPolicy = .nowhere,
                                    _ body: (_ name: String, _ path: String, _ kind: Kind) -> Void) -> Bool {
        forEachName(of: directory, following: links) { name, kind in body(name, directory + "/" + name, kind) }
    }

    /// Calls `body` with each entry's name and kind (other kinds are
    /// skipped, and links unless `links` follows them: where it may follow
    /// any, `onLink` hears of every link and what it leads to, before
    /// `body` hears of a followed one; `onSpecial` hears of each FIFO,
    /// socket and device, with its kind in words); false when it cannot be opened.
    @discardableResult
    public static func forEachName(of directory: String, following links: LinkPolicy = .nowhere,
                                   onLink: (_ name: String, _ resolution: LinkPolicy.Resolution) -> Void = { _, _ in },
                                   onSpecial: (_ name: String, _ kind: String) -> Void = { _, _ in },
                                   _ body: (_ name: String, _ kind: Kind) -> Void) -> Bool {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return withUnsafeTemporaryAllocation(byteCount: 16 << 10, alignment: 8) { buffer in
            while true {
                let filled = lproj_getdents(descriptor, buffer.baseAddress, buffer.count)
                if filled < 0, errno == EINTR { continue }
                guard filled > 0 else { return filled == 0 }
                var offset = 0
                while offset < filled {
                    // struct linux_dirent64: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name.
                    let record = UnsafeRawPointer(buffer.baseAddress! + offset)
                    offset += Int(record.loadUnaligned(fromByteOffset: 16, as: UInt16.self))
                    let name = record.advanced(by: 19).assumingMemoryBound(to: CChar.self)
                    if name[0] == 0x2E, name[1] == 0x2E || name[1] == 0 { continue }  // ".", ".." and kubelet's "..data"
                    var type = record.load(fromByteOffset: 18, as: UInt8.self)
                    if type == UInt8(DT_UNKNOWN) {
                        var info = stat()
                        guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                        let format = info.st_mode & S_IFMT
                        type = format == S_IFDIR ? UInt8(DT_DIR) : format == S_IFREG ? UInt8(DT_REG) : format == S_IFLNK ? UInt8(DT_LNK)
                            : format == S_IFIFO ? UInt8(DT_FIFO) : format == S_IFSOCK ? UInt8(DT_SOCK) : format == S_IFCHR ? UInt8(DT_CHR)
                            : format == S_IFBLK ? UInt8(DT_BLK) : 0
                    }
                    if type == UInt8(DT_LNK), links.followsAny {
                        let text = String(cString: name)
                        let resolution = links.resolve(directory + "/" + text)
                        onLink(text, resolution)
                        switch resolution {
                        case .directory: body(text, .directory)
                        case .file: body(text, .file)
                        case .skipped: break
                        }
                    } else if type == UInt8(DT_DIR) {
                        body(String(cString: name), .directory)
                    } else if type == UInt8(DT_REG) {
                        body(String(cString: name), .file)
                    } else if let kind = specialKind(type: type) {
                        onSpecial(String(cString: name), kind)
                    }
                }
            }
        }
    }

    /// A special file's kind in words (a FIFO, a socket, a device), by its `st_mode`; nil for any other file.
    public static func specialKind(mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        default: nil
        }
    }

    private static func specialKind(type: UInt8) -> String? {
        switch Int(type) {
        case Int(DT_FIFO): "a FIFO"
        case Int(DT_SOCK): "a socket"
        case Int(DT_CHR), Int(DT_BLK): "a device"
        default: nil
        }
    }

    /// Calls `body` with the name and target of each symbolic link in `directory`.
    public static func forEachLink(of directory: String, _ body: (_ name: String, _ target: String) -> Void) {
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
