#if canImport(Glibc)
import Glibc
#endif
import LprojTables

/// The table images clients map (`images`), in sealed memory files: one
/// per table address, made when a client first asks for the table and
/// handed to every client that asks while the table stays the same, so
/// every process of a service maps the same pages. A changed table gets a
/// new image when next asked for; processes that mapped the old one keep
/// it until they let it go. Holds at most its capacity
/// (`[Limits] SharedImages=`) of descriptors: past it, the image asked
/// for least recently is closed. An image made is also published
/// (`ImagePublisher`) when a publisher is set, kept up to date as its
/// table changes, and withdrawn when the image is closed.
/// Shell only: the core names the tables.
final class ImageShelf {
    private struct Kept {
        var table: Table
        var descriptor: Int32
        var used: UInt64
    }

    private var kept: [TableAddress: Kept] = [:]
    private var tick: UInt64 = 0
    /// Images made since start (a `status` counter).
    private(set) var made: UInt64 = 0
    /// Lines sent without their images since start (a `status` counter: `DescriptorBudget`).
    private(set) var withheld: UInt64 = 0
    /// Whether descriptors were handed out since `takeHandedOut` last said so.
    private var handedOut = false
    /// Where images made are published too (nil: nowhere).
    var publisher: ImagePublisher?
    /// Whether the table at an address may be published: every local user could read it from its files.
    var mayPublish: (TableAddress) -> Bool = { _ in false }

    deinit {
        for image in kept.values { close(image.descriptor) }
    }

    var count: Int { kept.count }

    /// A descriptor for each image, in order (the shelf's: send them, do
    /// not close them); nil when one could not be made (out of memory or
    /// descriptors), with none of them kept open for it.
    func descriptors(for images: [AttachedImage]) -> [Int32]? {
        handedOut = true
        var descriptors: [Int32] = []
        for image in images {
            // One tick an image: of a reply's images, the later ones count as asked for more recently.
            tick += 1
            if let found = kept[image.address], found.table.isIdentical(to: image.table) {
                kept[image.address]?.used = tick
                descriptors.append(found.descriptor)
                continue
            }
            let bytes = TableImage.encode(image.table)
            guard let descriptor = try? SharedTableImage.file(holding: bytes) else { return nil }
            if let old = kept[image.address] { close(old.descriptor) }
            kept[image.address] = Kept(table: image.table, descriptor: descriptor, used: tick)
            made += 1
            publish(bytes, of: image.table, at: image.address)
            descriptors.append(descriptor)
        }
        return descriptors
    }

    /// Makes and publishes the image of each table, as if a client had asked for it:
    /// at start, the tables published when the daemon last ran.
    func publishAhead(_ images: [AttachedImage]) {
        guard publisher != nil else { return }
        for image in images where mayPublish(image.address) {
            _ = descriptors(for: [image])
        }
    }

    /// Counts a line sent without its images.
    func countWithheld() {
        withheld += 1
        handedOut = true
    }

    /// Whether images were handed out (or withheld) since the last call (then: trim, count).
    func takeHandedOut() -> Bool {
        defer { handedOut = false }
        return handedOut
    }

    /// Brings the published images of tables that changed up to date: the
    /// table `served` gives for the address is published in place of the
    /// old (unless an event that carried its image did already), or the
    /// file is removed when there is none or it may not be published. A
    /// table once asked for stays published across its changes.
    func republish(_ addresses: some Sequence<TableAddress>, served: (TableAddress) -> Table?) {
        guard let publisher, publisher.count > 0 else { return }
        for address in addresses {
            guard let published = publisher.table(at: address) else { continue }
            guard let table = served(address) else {
                publisher.withdraw(address)
                continue
            }
            guard !published.isIdentical(to: table) else { continue }
            publish(TableImage.encode(table), of: table, at: address)
        }
    }

    /// Publishes `image` of `table` at `address` when a publisher is set;
    /// what cannot be published (any more) does not stay published as it was.
    private func publish(_ image: [UInt8], of table: Table, at address: TableAddress) {
        guard let publisher else { return }
        if !mayPublish(address) || !publisher.publish(image, of: table, at: address) { publisher.withdraw(address) }
    }

    /// Closes the images asked for least recently until at most `capacity` are kept.
    func trim(to capacity: Int) {
        guard kept.count > capacity else { return }
        let oldest = kept.sorted { $0.value.used < $1.value.used }.prefix(kept.count - capacity)
        for (address, image) in oldest {
            close(image.descriptor)
            kept[address] = nil
            publisher?.withdraw(address)
        }
    }
}
