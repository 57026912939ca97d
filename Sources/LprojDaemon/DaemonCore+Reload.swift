import LprojPaths
import LprojProtocol
import LprojTables

/// A reload's decisions: the new configuration's limits, access, waits and
/// log level applied, and what changes for the roots. The shell reads the
/// file, makes the watched tree follow (`RootChanges`) and reads what it
/// lists; every client and subscription stays.
extension DaemonCore {
    /// What a reload changes for the watched tree.
    struct RootChanges {
        /// Roots no longer configured: forgotten (their tables published as removed).
        var gone: [String] = []
        /// Roots configured now: to be watched and read.
        var added: [String] = []
        /// Kept roots that changed between polled and watched: walked anew.
        var switched: [String] = []
        /// `Exclude=` or `FollowLinksTo=` changed.
        var exclusionsChanged = false
    }

    /// Why a connection kept from before a reload is to be closed now (its
    /// peer is no longer let in by `[Access]`), or nil when it stays.
    func refusalAfterReload(of session: Session) -> ProtocolError? {
        guard !access.mayConnect(session.peer) else { return nil }
        counters["connections-closed-by-reload", default: 0] += 1
        log.info("closing the connection of pid \(session.peer.pid) (uid \(session.peer.uid)): [Access] no longer lets it in")
        return ProtocolError(.forbidden, "user \(session.peer.uid) may no longer connect ([Access] AllowUsers/AllowGroups, reloaded)")
    }

    /// Applies a configuration that read and checked (`roots` canonical,
    /// `polled` the roots to poll) and returns what the tree must do.
    func apply(_ new: Configuration, roots newRoots: [String], polled: [ExactName: String]) -> RootChanges {
        counters["reloads", default: 0] += 1
        lastError = nil
        log.setLevel(new.log.level)
        access = AccessPolicy(new, ownUser: access.ownUser)
        admission.apply(new)
        selections.maximumApps = new.state.maximumApps
        publisher.queueLimit = new.limits.clientQueueBytes
        publisher.userQueueLimit = new.limits.userQueueBytes
        publisher.setHistoryBounds(capacity: new.limits.historyLength, maximumBytes: new.limits.historyBytes)
        generations.keepCount = new.limits.rollbackGenerations
        generations.keepBytes = new.limits.rollbackBytes
        misses.setCapacity(new.limits.maximumMisses)
        pending.rules = .init(grace: new.watch.removalGrace, quiet: new.watch.quietPeriod)
        for warning in new.warnings() { log.warning("reload: \(warning)") }
        for (changed, what) in [(new.socket.path != configuration.socket.path || new.socket.mode != configuration.socket.mode
                                  || new.socket.group != configuration.socket.group
                                  || new.socket.publishesImages != configuration.socket.publishesImages, "[Socket]"),
                                (new.state.directory != configuration.state.directory, "[State] Directory")] where changed {
            log.warning("reload: \(what) changed; it takes effect when lprojd restarts")
        }
        var changes = RootChanges()
        changes.gone = roots.filter { old in !newRoots.contains { $0.hasSameBytes(as: old) } }
        changes.added = newRoots.filter { root in !roots.contains { $0.hasSameBytes(as: root) } }
        changes.exclusionsChanged = new.watch.excludes != configuration.watch.excludes || new.watch.followLinksTo != configuration.watch.followLinksTo
        changes.switched = newRoots.filter { root in
            !changes.added.contains { $0.hasSameBytes(as: root) } && (polled[ExactName(root)] == nil) != (polledRoots[ExactName(root)] == nil)
        }
        configuration = new
        roots = newRoots
        polledRoots = polled
        tables.exclusions = Exclusions(patterns: new.watch.excludes, roots: newRoots)
        tables.links = Self.linkPolicy(roots: newRoots, configuration: new)
        for root in changes.gone {
            publish(tables.forget(under: root))
            log.info("reload: no longer watching \(root)")
        }
        if changes.exclusionsChanged {
            // What is excluded now goes (and links no longer followed); what is let in is watched and read.
            publish(tables.forget(tables.files.keys.map(\.string).filter { tables.exclusions.excludes($0) }))
        }
        return changes
    }

    /// A reload that failed: the previous configuration stays, and `status` says why until one succeeds.
    func reloadFailed(_ error: any Error) {
        counters["reloads-failed", default: 0] += 1
        lastError = "reload failed, the previous configuration stays: \(error)"
        log.error("\(lastError!)")
    }

    /// After a reload: every root walked again (`listed`) and every known
    /// table file read — what is served equals a fresh start (a bind mount
    /// made inside a root since, which inotify never reports, is seen).
    func pathsToReadAfterReload(listed: [String]) -> [String] {
        Set(listed.map(ExactName.init)).union(tables.files.keys).map(\.string)
    }
}
