#if canImport(Glibc)
import Glibc
#endif
import LprojCatalog
import LprojTables

/// SIGHUP: the configuration read again and applied to the running daemon.
///
/// Every client and subscription stays. Roots that appear are watched and
/// read, and their tables published; roots that go are forgotten, and
/// their tables published as removed. Every root is walked again and every
/// table file read (only differences are published): what a reload serves
/// equals what a fresh start would, a mount made inside a root included.
/// Limits, access rules, the grace and quiet waits and the log level apply
/// from then on (limits to connections and reads that start after). The
/// socket and the state directory are where the daemon started: a change
/// there is logged and waits for a restart. A configuration that does not
/// read, or names a root that cannot be watched, changes nothing: the old
/// one stays, the error is logged with its file, line and key, and
/// `status` (and systemd's `STATUS=`) say so until a reload succeeds.
extension Daemon {
    func reload() {
        service.reloading()
        defer { service.ready(status: statusLine) }
        guard let reloadSource else {
            log.warning("SIGHUP: nothing to reload from")
            return
        }
        log.info("SIGHUP: reloading the configuration")
        let new: Configuration
        let newRoots: [String]
        do {
            new = try reloadSource()
            let problems = new.problems(environment: [:]).filter { $0.hasPrefix("[Watch]") }
            if let problem = problems.first { throw DaemonError(problem) }
            newRoots = try Self.canonicalRoots(new.roots)
        } catch {
            lastError = "reload failed, the previous configuration stays: \(error)"
            log.error("\(lastError!)")
            return
        }
        lastError = nil
        log.setLevel(new.logLevel)
        access = AccessPolicy(new, ownUser: getuid())
        admission.apply(new)
        Self.raiseDescriptorLimit(to: new.descriptorsNeeded)
        for warning in new.warnings() { log.warning("reload: \(warning)") }
        selections.maximumApps = new.maximumApps
        publisher.queueLimit = new.clientQueueBytes
        publisher.setHistoryBounds(capacity: new.historyLength, maximumBytes: new.historyBytes)
        pending.rules = .init(grace: new.removalGrace, quiet: new.quietPeriod)
        catalog.setLimits(new.tableLimits)
        for (changed, what) in [(new.socketPath != configuration.socketPath || new.socketMode != configuration.socketMode
                                  || new.socketGroup != configuration.socketGroup, "[Socket]"),
                                (new.stateDirectory != configuration.stateDirectory, "[State] Directory")] where changed {
            log.warning("reload: \(what) changed; it takes effect when lprojd restarts")
        }

        let gone = roots.filter { old in !newRoots.contains { $0.hasSameBytes(as: old) } }
        let added = newRoots.filter { root in !roots.contains { $0.hasSameBytes(as: root) } }
        let exclusionsChanged = new.excludes != configuration.excludes || new.followLinksTo != configuration.followLinksTo
        configuration = new
        roots = newRoots
        let exclusions = Exclusions(patterns: new.excludes, roots: newRoots)
        catalog.exclusions = exclusions
        tree?.setExclusion { exclusions.excludes($0) }
        let links = Self.linkPolicy(roots: newRoots, configuration: new)
        catalog.links = links
        tree?.setLinkPolicy(links)
        // Every root is polled or watched by the new rules (statfs asked again): a kept root
        // that changes over is walked anew (its tables stay; only real differences are published).
        let polled = Self.polledRoots(newRoots, configuration: new, log: log)
        let switched = newRoots.filter { root in
            !added.contains { $0.hasSameBytes(as: root) } && (polled[ExactName(root)] == nil) != (polledRoots[ExactName(root)] == nil)
        }
        polledRoots = polled
        for root in switched { tree?.removeRoot(root) }
        tree?.setPolledRoots(polled.keys.map(\.string))
        for root in gone {
            tree?.removeRoot(root)
            publish(catalog.forget(under: root))
            log.info("reload: no longer watching \(root)")
        }
        var listed: [String] = []
        for root in added + switched {
            do {
                listed += try tree?.addRoot(root) ?? []
                log.info("reload: watching \(root)")
            } catch {
                log.error("reload: cannot watch \(root): \(error.description)")
            }
        }
        // Every root is walked again and every known file read: what is served equals a fresh start (a bind mount made
        // inside a root since, which inotify never reports, is seen; only real differences are published).
        listed += tree?.rewalk() ?? []
        if exclusionsChanged {
            // What is excluded now goes (and links no longer followed); what is let in is watched and read.
            publish(catalog.forget(catalog.files.keys.map(\.string).filter { exclusions.excludes($0) }))
        }
        refresh(Set(listed.map(ExactName.init)).union(catalog.files.keys).map(\.string))
        checkPolling()
        log.info("reloaded: watching \(roots.joined(separator: ", ")): \(catalog.bundleCount) bundles, \(catalog.served.count) tables")
    }

    /// `roots` as configured, made absolute and tidy (`//` and `.` gone;
    /// a root with `..` is resolved) but **not** through its symbolic links:
    /// a root reached through a link (`/srv/app/current/Resources`) is served
    /// under that path, and a swap of the link is followed. Duplicates
    /// dropped; throws naming the first that is not a directory.
    static func canonicalRoots(_ roots: [String]) throws(DaemonError) -> [String] {
        guard !roots.isEmpty else { throw DaemonError("no root to watch: give --root DIR or Root= in [Watch]") }
        var canonical: [String] = []
        for root in roots {
            var path = PathText.tidy(root)
            if path.split(separator: "/").contains("..") {
                guard let resolved = realpath(root, nil) else { throw DaemonError("root \(root): \(String(cString: strerror(errno)))") }
                path = String(cString: resolved)
                free(resolved)
            }
            var info = stat()
            guard stat(path, &info) == 0 else { throw DaemonError("root \(root): \(String(cString: strerror(errno)))") }
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { throw DaemonError("root \(root): not a directory") }
            if !canonical.contains(where: { $0.hasSameBytes(as: path) }) { canonical.append(path) }
        }
        return canonical
    }
}
