/// The snapshot steps of one generation's events, held until the
/// `generation` event that ends them and then made one update: the tables
/// of a change arrive together, in one observer call. Used by the
/// connection's thread only.
final class HeldChanges {
    /// One event's change: a new snapshot from the one before, with the keys it changed (nil: nothing changed).
    typealias Step = (LiveSnapshot) -> (LiveSnapshot, changedKeys: [String: Set<String>])?

    private var steps: [Step] = []

    var isEmpty: Bool { steps.isEmpty }

    func hold(_ step: @escaping Step) {
        steps.append(step)
    }

    /// Applies every held step as one update of `core` (the keys each changed, together), and forgets them.
    func apply(to core: LiveCore) {
        guard !steps.isEmpty else { return }
        let taken = steps
        steps = []
        core.update { old in
            var snapshot = old
            var changed: [String: Set<String>] = [:]
            var any = false
            for step in taken {
                guard let (next, keys) = step(snapshot) else { continue }
                snapshot = next
                any = true
                changed.merge(keys) { $0.union($1) }
            }
            return any ? (snapshot, changed) : nil
        }
    }
}
