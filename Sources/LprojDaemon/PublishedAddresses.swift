#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The addresses of the tables whose images are published, kept in the
/// state directory (`published-images`), so that a daemon starting again
/// publishes the same tables before it reports ready: a service's
/// processes that start with it — at boot, after an upgrade or a crash —
/// map their first tables instead of parsing them, as they would had the
/// daemon run all along. Nothing else is kept: each table is read from
/// the tree as it is at start, and published only when it is served and
/// every local user may read it (`ImageShelf`), as when a client asks.
///
/// A file that cannot be read as a list of addresses is left unused (a
/// warning names it); the next change of what is published replaces it.
/// Changes are written at most once a second (a client asking for one
/// table at a time does not rewrite the list for each), and when the
/// daemon stops. Shell only.
final class PublishedAddresses {
    /// The file; nil: nothing is kept (no state directory).
    let file: String?

    /// How many addresses are read at most (past them, the rest is left).
    let limit: Int

    /// The least time between two writes.
    static let interval = Duration.seconds(1)

    /// When the change not written yet is to be (nil: none is).
    private(set) var deadline: ContinuousClock.Instant?
    /// When the list was last written.
    private var writtenAt: ContinuousClock.Instant?

    /// One address as the file keeps it: a list, for `Café` in NFC and in NFD are two bundles.
    private typealias Saved = [String]

    init(stateDirectory: String?, limit: Int) {
        file = stateDirectory.map { $0 + "/published-images" }
        self.limit = limit
    }

    /// The addresses kept (the first `limit`); none when there is no file.
    /// Throws with one line naming the file when it cannot be read.
    func load() throws(DaemonError) -> [TableAddress] {
        guard let file else { return [] }
        let descriptor = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return [] }
            throw DaemonError("\(file): cannot be read (\(String(cString: strerror(errno)))): no image is published at start")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw DaemonError("\(file): not a regular file: no image is published at start (remove it)")
        }
        // An address is a few hundred bytes: past the bound, the file is not the daemon's list.
        guard info.st_size <= Self.byteLimit(addresses: limit) else {
            throw DaemonError("\(file): \(info.st_size) bytes, more than a list of \(limit) addresses takes: no image is published at start "
                              + "(it is replaced at the next publish)")
        }
        var data = Data(count: Int(info.st_size))
        let count = data.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count == data.count, let list = try? JSONDecoder().decode([Saved].self, from: data) else {
            throw DaemonError("\(file): not a list of [bundle, localization, table]: no image is published at start (it is replaced at the next publish)")
        }
        return list.prefix(limit).compactMap { saved in
            saved.count == 3 ? TableAddress(bundle: saved[0], localization: saved[1], table: saved[2]) : nil
        }
    }

    /// Notes that the addresses published changed at `now`.
    func noteChanged(at now: ContinuousClock.Instant) {
        guard file != nil, deadline == nil else { return }
        deadline = writtenAt.map { max(now, $0 + Self.interval) } ?? now
    }

    /// Writes `addresses` when a change is not written and due at `now`,
    /// or at once when `now` is nil (the daemon stops).
    func writeIfDue(_ addresses: some Sequence<TableAddress>, now: ContinuousClock.Instant?) throws(DaemonError) {
        guard let due = deadline, now.map({ $0 >= due }) ?? true else { return }
        deadline = nil
        writtenAt = now ?? .now
        try write(addresses)
    }

    /// Keeps `addresses` (a temporary file renamed over the old: a crash leaves one or the other).
    private func write(_ addresses: some Sequence<TableAddress>) throws(DaemonError) {
        guard let file else { return }
        let list = addresses.sorted().map { [$0.bundle, $0.localization, $0.table] }
        guard let data = try? JSONEncoder().encode(list) else { return }
        let temporary = file + ".new"
        do {
            try data.write(to: URL(fileURLWithPath: temporary))
        } catch {
            throw DaemonError("\(temporary): \(error.localizedDescription)")
        }
        guard rename(temporary, file) == 0 else { throw DaemonError("\(file): \(String(cString: strerror(errno)))") }
    }

    /// The most bytes a file of `addresses` addresses is read with (paths of up to 4 KiB, escaped).
    private static func byteLimit(addresses: Int) -> Int {
        Swift.max(1, Swift.min(addresses, 1 << 20)) * 3 * 4096 * 6
    }
}
