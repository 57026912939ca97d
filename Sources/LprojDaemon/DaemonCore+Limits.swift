#if canImport(Glibc)
import Glibc
#endif
import LprojPaths

/// What a kernel limit keeps from working as it should — watches, file
/// descriptors, the inotify queue, clients —, said once per episode and
/// shown in `status`, and the polls it calls for.
struct KernelLimits {
    /// The warning of each limit that bites now (`watches`, `descriptors`, `queue`, `clients`).
    var warnings: [String: String] = [:]
    /// Table files that could not be opened for want of file descriptors:
    /// their tables stay as they were, and they are read again each poll.
    var unreadable = Set<ExactName>()
    /// When the polled directories are listed next (nil: nothing is polled).
    var nextPoll: ContinuousClock.Instant?
}

extension DaemonCore {
    /// Whether the polled directories are to be listed now (then the next poll is set by `treeChanged`).
    func pollIsDue(at now: ContinuousClock.Instant) -> Bool {
        guard let poll = kernelLimits.nextPoll, poll <= now else { return false }
        kernelLimits.nextPoll = nil
        counters["polls", default: 0] += 1
        return true
    }

    /// The files that could not be opened for want of descriptors, to be read again now.
    func takeUnreadable() -> [String] {
        defer { kernelLimits.unreadable = [] }
        return kernelLimits.unreadable.map(\.string)
    }

    /// What the watched tree says of itself after any change to it: says
    /// (once per episode) what a kernel limit keeps from being watched or
    /// read, and polls while anything is polled (or waits to be read).
    func treeChanged(_ status: TreeStatus, at now: ContinuousClock.Instant = .now) {
        let interval = "\(Configuration.milliseconds(configuration.watch.pollInterval)) ms"
        var watchWarning: String?
        if status.unwatched > 0 {
            let limit = Self.firstLine(of: "/proc/sys/fs/inotify/max_user_watches") ?? "?"
            watchWarning = "\(status.unwatched) directories are not watched: the inotify watch limit is reached (fs.inotify.max_user_watches = "
                + "\(limit); raise it, e.g. sysctl fs.inotify.max_user_watches=\(max(524_288, (Int(limit) ?? 0) * 2))); "
                + "they are polled every \(interval)"
        }
        note(watchWarning, for: "watches", over: "every directory is watched again: polling stops")
        var descriptorWarning: String?
        if status.descriptorLimitReached || !kernelLimits.unreadable.isEmpty || status.markersUnsent {
            var limits = rlimit()
            getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
            // (fs.file-max was read at start: with no descriptor left, /proc cannot be read now.)
            descriptorWarning = "out of file descriptors (EMFILE: this process may open \(limits.rlim_cur) — raise LimitNOFILE= in the "
                + "unit or ulimit -n; ENFILE: the system's fs.file-max = \(Self.systemFileLimit)): "
                + "\(kernelLimits.unreadable.count) table file(s) keep their last contents, and what could not be read or listed is tried again "
                + "every \(interval)"
        }
        note(descriptorWarning, for: "descriptors", over: "file descriptors are available again: every table file is read")
        if status.isPolling || descriptorWarning != nil {
            if kernelLimits.nextPoll == nil { kernelLimits.nextPoll = now + configuration.watch.pollInterval }
        } else {
            kernelLimits.nextPoll = nil
        }
    }

    /// Whether a poll may be needed after a read (a limit met, or polling on).
    var mayNeedPolling: Bool { !kernelLimits.unreadable.isEmpty || !kernelLimits.warnings.isEmpty }

    /// Logs `warning` when it is new for `limit`, or `over` when the limit no longer bites.
    func note(_ warning: String?, for limit: String, over: String) {
        if let warning {
            if kernelLimits.warnings[limit] == nil { log.warning(warning) }
            kernelLimits.warnings[limit] = warning
        } else if kernelLimits.warnings.removeValue(forKey: limit) != nil {
            log.info(over)
        }
    }
}
