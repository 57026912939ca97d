/// The daemon's images: the shelf trimmed to its capacity and counted,
/// and what is published kept in the state directory for the next start
/// (`PublishedAddresses`).
extension Daemon {
    /// Closes the images past `[Limits] SharedImages=` and counts images made, published and withheld (`status`).
    func trimAndCountImages() {
        images.trim(to: core.configuration.limits.sharedImages)
        core.counters["images-made"] = images.made
        if let publisher = images.publisher { core.counters["images-published"] = publisher.made }
        if images.withheld > 0 { core.counters["images-withheld"] = images.withheld }
    }

    /// Writes the addresses published when they changed and it is due
    /// (`now` nil: at once, the daemon stops); a failure is logged, and publishing goes on.
    func keepPublishedAddresses(now: ContinuousClock.Instant? = .now) {
        guard let publisher = images.publisher else { return }
        if publisher.takeAddressesChanged() { publishedAddresses.noteChanged(at: now ?? .now) }
        do {
            try publishedAddresses.writeIfDue(publisher.addresses, now: now)
        } catch {
            core.log.error(error.description)
        }
    }
}
