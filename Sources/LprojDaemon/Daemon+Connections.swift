#if canImport(Glibc)
import Glibc
#endif
import CLinux
import LprojProtocol

/// The shell's connections: accepting (the core admits or refuses), telling
/// a refused peer why and waiting for it to close, refusing with the spare
/// descriptor when none is left (and pausing the listener when not even
/// that is), and closing connections that send no request in time.
extension Daemon {
    func acceptClients() {
        while true {
            let descriptor = lproj_accept(listener.descriptor)
            if descriptor < 0 {
                if errno == EINTR { continue }
                if errno == EMFILE || errno == ENFILE { return refuseForWantOfDescriptors() }
                if errno != EAGAIN && errno != EWOULDBLOCK { core.log.warning("accept: \(String(cString: strerror(errno)))") }
                return
            }
            core.note(nil, for: "clients", over: "file descriptors are available again: connections are accepted")
            guard let peer = PeerCredentials(socket: descriptor) else {
                close(descriptor)
                continue
            }
            let session: Session
            switch core.admit(peer) {
            case .failure(let refusal):
                refuse(descriptor, with: refusal)
                continue
            case .success(let admitted):
                session = admitted
            }
            let client = ClientConnection(descriptor: descriptor, session: session, maximumLineLength: core.configuration.limits.maximumRequestBytes,
                                          images: images, budget: descriptorBudget)
            clients[descriptor] = client
            bySession[session.id] = descriptor
            session.writeNow = { bytes in lproj_send_now(descriptor, bytes.baseAddress, bytes.count) }
            awaitingFirstRequest.append((descriptor, client.connected))
            add(descriptor, events: client.interest)
            core.log.debug("client connected: pid \(peer.pid), uid \(peer.uid)")
        }
    }

    /// No descriptor is left to accept with: the spare one is given up to
    /// accept each waiting connection, tell it `busy` and close it, then
    /// taken back — so clients hear why, and the loop does not spin on a
    /// listening socket it cannot empty. Said once until accepting works again.
    func refuseForWantOfDescriptors() {
        var limits = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
        let reason = "out of file descriptors (this process may open \(limits.rlim_cur): raise LimitNOFILE= in the unit or ulimit -n, "
            + "or lower [Limits] MaxClients=\(core.configuration.limits.maximumClients)): new connections are refused with busy"
        core.note(reason, for: "clients", over: "file descriptors are available again: connections are accepted")
        let line = Wire.failure(ProtocolError(.busy, "the daemon is out of file descriptors; try again later"), to: nil)
        while spareDescriptor >= 0 {
            close(spareDescriptor)
            spareDescriptor = -1
            let descriptor = lproj_accept(listener.descriptor)
            let failure = errno
            if descriptor >= 0 {
                core.counters["connections-refused", default: 0] += 1
                _ = line.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                shutdown(descriptor, Int32(SHUT_WR))
                close(descriptor)
            }
            spareDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
            if descriptor < 0, failure == EAGAIN || failure == EWOULDBLOCK { return }
        }
        // Not even the spare: stop listening until a connection closes.
        lproj_epoll_remove(poller, listener.descriptor)
        acceptPaused = true
    }

    /// Listens again once a descriptor is free (a connection closed).
    func resumeAccepting() {
        if spareDescriptor < 0 { spareDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC) }
        guard acceptPaused else { return }
        acceptPaused = false
        add(listener.descriptor, events: interestIn)
    }

    /// Closes the connections that sent no complete request within `FirstRequestTimeout=` of connecting.
    func closeSilentConnections(at now: ContinuousClock.Instant) {
        while awaitingStart < awaitingFirstRequest.count {
            let (descriptor, connected) = awaitingFirstRequest[awaitingStart]
            if let client = clients[descriptor], client.connected == connected, !client.hasSentRequest {
                guard connected + core.configuration.limits.firstRequestTimeout <= now else { break }
                core.counters["connections-timed-out", default: 0] += 1
                core.publisher.send(Wire.failure(ProtocolError(.limit,
                    "no complete request within \(Configuration.milliseconds(core.configuration.limits.firstRequestTimeout)) ms of connecting "
                    + "([Limits] FirstRequestTimeout); closing"), to: nil), to: client.session)
                _ = client.flush()
                core.log.info("closed a connection from pid \(client.session.peer.pid) (uid \(client.session.peer.uid)): no request within the first-request timeout")
                disconnect(client, reason: "no first request")
            }
            awaitingStart += 1
        }
        if awaitingStart > 64, awaitingStart * 2 > awaitingFirstRequest.count {
            awaitingFirstRequest.removeFirst(awaitingStart)
            awaitingStart = 0
        }
    }

    /// When the oldest connection still waiting for its first request is
    /// closed (those that sent one, or went, are passed over for good).
    func nextFirstRequestDeadline() -> ContinuousClock.Instant? {
        while awaitingStart < awaitingFirstRequest.count {
            let (descriptor, connected) = awaitingFirstRequest[awaitingStart]
            if let client = clients[descriptor], client.connected == connected, !client.hasSentRequest {
                return connected + core.configuration.limits.firstRequestTimeout
            }
            awaitingStart += 1
        }
        awaitingFirstRequest.removeAll(keepingCapacity: true)
        awaitingStart = 0
        return nil
    }

    /// Says why, then waits for the peer to close before closing: closing
    /// with its first request unread would reset the connection and lose the
    /// reason. At most 64 refused connections linger; more are closed at once.
    func refuse(_ descriptor: Int32, with refusal: ProtocolError) {
        let line = Wire.failure(refusal, to: nil)
        _ = line.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        shutdown(descriptor, Int32(SHUT_WR))
        guard refused.count < 64 else {
            close(descriptor)
            return
        }
        refused.insert(descriptor)
        add(descriptor, events: interestIn | interestPeerClosed)
    }

    /// Reads and drops what a refused peer sends, until it closes.
    func drainRefused(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        if count > 0 || (count < 0 && (errno == EAGAIN || errno == EINTR)) { return }
        lproj_epoll_remove(poller, descriptor)
        close(descriptor)
        refused.remove(descriptor)
        resumeAccepting()
    }
}
