/// `unsubscribe`: stop the named subscription on this connection.
public struct Unsubscribe: Request {
    public static let op = "unsubscribe"

    public var name: String

    public init(name: String) {
        self.name = name
    }

    public typealias Reply = EmptyReply
}

/// A reply with nothing but `id` and `ok`.
public struct EmptyReply: Codable, Sendable, Equatable {
    public init() {}
}
