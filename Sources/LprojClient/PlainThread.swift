import CLinux

/// A thread started with `pthread_create` alone. Starting a Foundation
/// `Thread` costs its starter about 60 µs (its object, attributes, the
/// name); a plain one about a third of that — and a `LiveBundle` starts
/// its connection's thread inside the first call a process makes to it.
enum PlainThread {
    /// Runs `body` on a new detached thread named `name` (at most 15 bytes
    /// kept); false when no thread could be made.
    @discardableResult
    static func start(named name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        let failed = lproj_start_thread({ context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            body.run()
        }, box, name)
        if failed != 0 { Unmanaged<Body>.fromOpaque(box).release() }
        return failed == 0
    }

    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
