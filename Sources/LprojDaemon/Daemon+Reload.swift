#if canImport(Glibc)
import Glibc
#endif
import LprojPaths
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
        defer { service.ready(status: core.statusLine) }
        guard let reloadSource else {
            core.log.warning("SIGHUP: nothing to reload from")
            return
        }
        core.log.info("SIGHUP: reloading the configuration")
        let new: Configuration
        let newRoots: [String]
        do {
            new = try reloadSource()
            let problems = new.problems(environment: [:]).filter { $0.hasPrefix("[Watch]") }
            if let problem = problems.first { throw DaemonError(problem) }
            newRoots = try Self.canonicalRoots(new.watch.roots)
        } catch {
            return core.reloadFailed(error)
        }
        Self.raiseDescriptorLimit(to: new.limits.descriptorsNeeded)
        descriptorBudget.limit = Self.descriptorLimit
        // Images switched off: what was published goes too (publishing resumes when they are switched on again).
        if new.limits.sharedImages == 0 { images.publisher?.removeAll() }
        let changes = core.apply(new, roots: newRoots, polled: Self.polledRoots(newRoots, configuration: new, log: core.log))
        feed.follow(changes, of: core)
        // Who may no longer connect is told so and let go: a reload that takes a user out of [Access] ends its access now.
        for client in Array(clients.values) {
            guard let refusal = core.refusalAfterReload(of: client.session) else { continue }
            core.fail(refusal, to: nil, on: client.session)
            flush(client)
            if clients[client.descriptor] === client { disconnect(client, reason: refusal.message) }
        }
        core.log.info("reloaded: watching \(core.roots.joined(separator: ", ")): \(core.tables.bundleCount) bundles, "
                      + "\(core.tables.served.count) tables")
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
