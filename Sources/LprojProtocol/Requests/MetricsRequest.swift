/// `metrics`: the daemon's metrics in Prometheus' text exposition format
/// (what `MetricsListen=`'s HTTP endpoint serves): per bundle its generation
/// and the processes following it and behind it; clients, subscriptions,
/// events, acknowledgements, parse refusals, reloads, watches beside the
/// kernel's limit, history, misses, and a save → published histogram.
public struct MetricsRequest: Request {
    public static let op = "metrics"

    public init() {}

    public struct Reply: Codable, Sendable, Equatable {
        public var text: String

        public init(text: String) {
            self.text = text
        }
    }
}
