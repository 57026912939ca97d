import LprojProtocol

/// One event's body as each subscription's prefix addresses it
/// (`{"sub":"name",` then the body's fields), each line made once and
/// kept while the next subscriber's prefix is the same: subscriptions
/// alike share their filter's prefix (`Subscription.SharedFilters`), so a
/// fan-out to a thousand of them sends one buffer a thousand times — a
/// plain `send` each, not a two-piece `sendmsg` (0.16 µs a subscriber
/// less on this machine).
struct AddressedLines {
    /// The event's body (its own opening brace; a prefix replaces it).
    let body: [UInt8]
    private var prefix: [UInt8]?
    private var line: [UInt8] = []
    /// Every other prefix's line made so far (sessions of several kinds take turns).
    private var others: [[UInt8]: [UInt8]] = [:]

    init(body: [UInt8]) {
        self.body = body
    }

    /// `body` addressed with `prefix` (a prefix from `Wire.eventPrefix`).
    mutating func line(for prefix: [UInt8]) -> [UInt8] {
        // The same filter's prefix is the same array: compared by identity first, then by its few bytes.
        if prefix == self.prefix { return line }
        if let previous = self.prefix { others[previous] = line }
        if let made = others[prefix] {
            line = made
        } else {
            var made: [UInt8] = []
            made.reserveCapacity(prefix.count + body.count)
            Wire.appendAddressed(body, prefix: prefix, to: &made)
            line = made
        }
        self.prefix = prefix
        return line
    }
}
