import Foundation

extension Wire {
    /// A line from the daemon, read once: a reply to a request, or an event
    /// for a subscription. The envelope (`id`, `ok`, `error`; `sub`,
    /// `event`, `clock`) is decoded when the line arrives; a message's own
    /// fields are decoded from the same bytes when asked for, as the type
    /// the caller expects.
    public enum Incoming: Sendable {
        case reply(Reply)
        case event(ReceivedEvent)

        /// Reads `line`; nil when it is neither a reply nor an event.
        public init?(line: [UInt8]) {
            guard let envelope = Envelope.read(line) else { return nil }
            if let name = envelope.event, let subscription = envelope.sub {
                self = .event(ReceivedEvent(name: name, subscription: subscription, clock: envelope.clock.flatMap(Clock.init), line: line,
                                            carriesImage: envelope.image == true))
            } else if let ok = envelope.ok {
                let error = ok ? nil : envelope.error ?? ProtocolError(.internal, String(decoding: line, as: UTF8.self))
                self = .reply(Reply(id: envelope.id, error: error, line: line))
            } else {
                return nil
            }
        }
    }

    /// A reply line: the request it answers, and its error when it failed.
    public struct Reply: Sendable {
        /// nil when the daemon could not read the request's id (a malformed line).
        public var id: RequestID?
        /// nil on success.
        public var error: ProtocolError?
        public var line: [UInt8]

        /// The reply's fields as `R`.
        public func decode<R: Decodable>(_ type: R.Type) throws -> R {
            try JSONDecoder().decode(R.self, from: Data(line))
        }
    }

    /// An event line: its name, its subscription, its clock, the whole line.
    public struct ReceivedEvent: Sendable {
        public var name: String
        public var subscription: String
        /// nil for events that carry none.
        public var clock: Clock?
        public var line: [UInt8]
        /// Whether a descriptor (a table's image) came with the line.
        public var carriesImage: Bool

        public init(name: String, subscription: String, clock: Clock?, line: [UInt8], carriesImage: Bool = false) {
            self.name = name
            self.subscription = subscription
            self.clock = clock
            self.line = line
            self.carriesImage = carriesImage
        }

        /// The event's fields as type `E`.
        public func decode<E: Event>(_ type: E.Type) throws -> E {
            // The event every client reads on every save is read in one pass when it can be.
            if E.self == TableChanged.self, let event = TableChanged.scanned(line) { return event as! E }
            return try JSONDecoder().decode(E.self, from: Data(line))
        }

        /// The event's fields as a dictionary (tools that show any event).
        public var object: [String: Any] {
            ((try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any]) ?? [:]
        }
    }
}
