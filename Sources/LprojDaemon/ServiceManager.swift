#if canImport(Glibc)
import Glibc
#endif
import CSystemd

/// What the daemon tells systemd (`sd_notify`), when systemd listens
/// (`NOTIFY_SOCKET`): `READY=1` once the first crawl is served, `STATUS=`
/// when what it shows changes, `RELOADING=1` with `MONOTONIC_USEC=` around
/// a reload, `STOPPING=1`, and `WATCHDOG=1` from the event loop itself at
/// half `WATCHDOG_USEC` — a loop stuck in one batch stops pinging and is
/// caught. Without a watchdog there is no timer at all.
///
/// Messages are sent without waiting (`MSG_DONTWAIT`): libsystemd's
/// `sd_notify` blocks while the receiver's queue is full, and a stand-in
/// that stops reading (a test's socket) once stopped the daemon's loop.
/// `STATUS=` goes at most once a second (a change within the second is sent
/// with the next turn of the loop after it).
final class ServiceManager {
    /// Whether systemd (or a stand-in) listens.
    let isListening: Bool
    private let socket: Int32
    private var address = sockaddr_un()
    private var addressLength = socklen_t(0)
    private var lastStatusSent = ContinuousClock.now - .seconds(10)
    /// Half the watchdog's interval, nil when there is no watchdog.
    let watchdogInterval: Duration?
    private var lastPing = ContinuousClock.now
    private var lastStatus = ""

    init() {
        var path = getenv("NOTIFY_SOCKET").map { Array(String(cString: $0).utf8) } ?? []
        // An abstract socket is named with a leading '@'.
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        if !path.isEmpty, path.count < MemoryLayout.size(ofValue: address.sun_path) {
            socket = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
            addressLength = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (path[0] == 0 ? 0 : 1))
        } else {
            socket = -1
        }
        isListening = socket >= 0
        var microseconds: UInt64 = 0
        watchdogInterval = sd_watchdog_enabled(0, &microseconds) > 0 ? .microseconds(Int64(microseconds / 2)) : nil
    }

    /// How long the loop may sleep before it must ping (milliseconds; -1: for ever).
    func sleepLimit() -> Int32 {
        guard let watchdogInterval else { return -1 }
        let left = lastPing + watchdogInterval - .now
        guard left > .zero else { return 0 }
        return Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
    }

    /// Pings the watchdog when half its interval has passed since the last ping.
    func pingIfDue() {
        guard let watchdogInterval, ContinuousClock.now - lastPing >= watchdogInterval else { return }
        lastPing = .now
        notify("WATCHDOG=1")
    }

    /// `READY=1` with a status line.
    func ready(status: String) {
        lastStatus = status
        lastStatusSent = .now
        notify("READY=1\nSTATUS=\(status)")
    }

    /// `STATUS=` when it differs from the last one sent, at most once a second.
    func status(_ status: @autoclosure () -> String) {
        guard isListening, ContinuousClock.now - lastStatusSent >= .seconds(1) else { return }
        let status = status()
        guard status != lastStatus else { return }
        lastStatus = status
        lastStatusSent = .now
        notify("STATUS=\(status)")
    }

    /// `RELOADING=1` with the monotonic time, as `Type=notify-reload` wants it.
    func reloading() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        notify("RELOADING=1\nMONOTONIC_USEC=\(UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000)")
    }

    func stopping() {
        notify("STOPPING=1")
    }

    private func notify(_ message: String) {
        guard isListening else { return }
        var text = message
        _ = text.withUTF8 { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(socket, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL), $0, addressLength)
                }
            }
        }
    }
}
