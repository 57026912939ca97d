import LprojFormats
import LprojProtocol
import LprojTables

/// What one request may ask the daemon to hold or search: the names in a
/// filter (`languages`, `tables`), each name's length, and the memory a
/// connection's subscriptions may take. The one rule for `subscribe`,
/// `snapshot` and `lookup`; a request past it gets an error naming the field.
struct FilterLimits {
    /// Names in one list field (`[Limits] MaxFilterNames=`).
    var maximumNames: Int
    /// Subscriptions on one connection (`[Limits] MaxSubscriptions=`).
    var maximumSubscriptions: Int
    /// The longest name: a file name's (`NAME_MAX`), or it could never match a directory or a table.
    static let maximumNameBytes = 255

    init(_ configuration: Configuration) {
        maximumNames = configuration.limits.maximumFilterNames
        maximumSubscriptions = configuration.limits.maximumSubscriptions
    }

    /// Why the list `names` of `field` is refused, or nil.
    func problem(with names: [String]?, field: String) -> ProtocolError? {
        guard let names else { return nil }
        guard names.count <= maximumNames else {
            return ProtocolError(.limit, "\(field) names \(names.count) entries; at most \(maximumNames) ([Limits] MaxFilterNames)", field: field)
        }
        for (index, name) in names.enumerated() where name.utf8.count > Self.maximumNameBytes || name.utf8.contains(0) {
            return ProtocolError(.invalidField, "not a usable name (at most \(Self.maximumNameBytes) bytes, no NUL)", field: "\(field)[\(index)]")
        }
        return nil
    }

    /// Why one more subscription on `session` is refused, or nil: past the
    /// count, or past half the connection's queue budget (`ClientQueueBytes=`),
    /// which its subscriptions share with the events it is owed.
    func problem(adding subscription: Subscription, to session: Session) -> ProtocolError? {
        guard session.subscriptions.count < maximumSubscriptions else {
            return ProtocolError(.limit, "at most \(maximumSubscriptions) subscriptions per connection ([Limits] MaxSubscriptions)")
        }
        guard session.subscriptionBytes + subscription.footprint <= session.queueLimit / 2 else {
            return ProtocolError(.limit, "this connection's subscriptions would take more than half its \(session.queueLimit)-byte budget "
                                 + "([Limits] ClientQueueBytes); use fewer or smaller filters")
        }
        if let share = session.share, share.bytes + subscription.footprint > share.limit {
            return ProtocolError(.limit, "user \(share.user)'s connections hold their \(ByteCountText.describe(share.limit)) in all "
                                 + "([Limits] UserQueueBytes): close some, or read what they are owed")
        }
        return nil
    }
}
