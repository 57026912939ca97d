#if canImport(Glibc)
import Glibc
#endif
import CInotifyTools
import Foundation
import LprojPaths

/// The inotify reader: the kernel's queue read into raw events (not through libinotifytools, whose buffer a poll cannot
/// see), a batch as everything queued by now, and the paths queued since the last batch (`queuedPaths`) held for the next.
extension WatchLoop {
    func queuedPaths() -> Set<ExactName> {
        while carried.count < Self.batchLimit {
            let before = carried.count
            guard read(into: &carried, waitingMilliseconds: 0), carried.count > before else { break }
        }
        var paths = Set<ExactName>()
        for event in carried where event.descriptor != controlDescriptor && !event.name.isEmpty {
            for directory in self.paths(of: event.descriptor) { paths.insert(ExactName(directory + "/" + event.name)) }
        }
        return paths
    }

    func readBatch(waiting: Bool) -> WatchBatch? {
        var raw = carried
        carried = []
        while raw.isEmpty {
            guard read(into: &raw, waitingMilliseconds: waiting ? -1 : 0) else { return nil }
            if !waiting { break }
        }
        guard !raw.isEmpty else { return nil }
        // Everything queued by now, in as many reads as it takes (bounded:
        // a writer faster than us must not keep the batch open for ever).
        while raw.count < Self.batchLimit {
            let before = raw.count
            guard read(into: &raw, waitingMilliseconds: 0), raw.count > before else { break }
        }
        var events: [FileEvent] = []
        var signals: [String] = []
        var overflowed = false
        for event in raw {
            if event.descriptor == controlDescriptor {
                if !event.name.isEmpty {
                    signals.append(event.name)
                    unlink(control + "/" + event.name)
                }
                continue
            }
            if event.mask & UInt32(IN_Q_OVERFLOW) != 0 { overflowed = true }
            translate(event, into: &events)
        }
        if linkState.mayHaveMoved {
            linkState.mayHaveMoved = false
            recheckLinks(into: &events)
        }
        return WatchBatch(events: Self.coalesce(events), signals: signals, overflowed: overflowed)
    }

    /// One inotify event, as read.
    struct RawEvent {
        var descriptor: Int32
        var mask: UInt32
        var name: String
    }

    /// Reads what the kernel has queued (waiting up to `waitingMilliseconds`,
    /// -1 for ever, for something to be there) and appends it to `raw`.
    /// False when inotify fails. (Read here, not through libinotifytools:
    /// its reader keeps events it has read in a buffer of its own, where a
    /// poll of the descriptor cannot see them.)
    func read(into raw: inout [RawEvent], waitingMilliseconds: Int32) -> Bool {
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let count = poll(&ready, 1, waitingMilliseconds)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return false }
            if count == 0 { return true }
            break
        }
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 { return errno == EAGAIN || errno == EINTR }
        guard count > 0 else { return false }
        buffer.withUnsafeBytes { bytes in
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                let nameBytes = bytes[(offset + header)..<min(count, offset + header + Int(event.len))]
                // The name is padded with NULs to an aligned length.
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                raw.append(RawEvent(descriptor: event.wd, mask: event.mask, name: name))
                offset += header + Int(event.len)
            }
        }
        return true
    }
}
