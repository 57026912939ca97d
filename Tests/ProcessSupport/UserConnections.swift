import Foundation

/// Connections held by a process running as another user (`setpriv`), that
/// send nothing (`idle`) or half a request line (`half`), and report each
/// line the daemon sends and each close as `N: line` / `N: closed` on their
/// output, until their standard input closes.
public final class UserConnections {
    private let script: UserScript

    private static let script = #"""
    import selectors, socket, sys
    path, count, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    chooser = selectors.DefaultSelector()
    for index in range(count):
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        if mode == "half":
            s.send(b'{"id":1,"op":')
        chooser.register(s, selectors.EVENT_READ, index)
    chooser.register(sys.stdin, selectors.EVENT_READ, -1)
    pending = {}
    while True:
        for key, _ in chooser.select():
            if key.data == -1:
                if not sys.stdin.buffer.read1(1):
                    sys.exit(0)
                continue
            data = key.fileobj.recv(65536)
            if not data:
                print(f"{key.data}: closed", flush=True)
                chooser.unregister(key.fileobj)
                continue
            pending[key.data] = pending.get(key.data, b"") + data
            *lines, pending[key.data] = pending[key.data].split(b"\n")
            for line in lines:
                print(f"{key.data}: {line.decode()}", flush=True)
    """#

    public init(uid: UInt32, socket: String, count: Int, mode: String) throws {
        script = try UserScript(uid: uid, Self.script, arguments: [socket, "\(count)", mode])
    }

    /// The next `count` lines it reports, waiting at most `timeout` in all.
    public func lines(_ count: Int, timeout: Duration = .seconds(30)) throws -> [String] {
        try script.lines(count, timeout: timeout)
    }

    /// Closes its standard input: it closes its connections and exits.
    public func finish() {
        script.finish()
    }
}
