import Synchronization

/// Handlers registered from any thread and called, in registration order,
/// with each value announced; a handler stays until its token is cancelled.
final class ObserverList<Value: Sendable>: Sendable {
    private let state = Mutex<(next: Int, handlers: [Int: @Sendable (Value) -> Void])>((0, [:]))

    func add(_ handler: @escaping @Sendable (Value) -> Void) -> ObservationToken {
        let id = state.withLock { state -> Int in
            state.next += 1
            state.handlers[state.next] = handler
            return state.next
        }
        return ObservationToken { [weak self] in
            _ = self?.state.withLock { $0.handlers.removeValue(forKey: id) }
        }
    }

    /// Calls every handler with `value` (outside the lock: a handler may add or cancel).
    func announce(_ value: Value) {
        let handlers = state.withLock { $0.handlers.sorted { $0.key < $1.key }.map(\.value) }
        for handler in handlers { handler(value) }
    }
}
