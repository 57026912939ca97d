import Foundation
import LprojProtocol

/// The daemon's metrics in Prometheus' text exposition format (version
/// 0.0.4): `lprojctl metrics`, and `MetricsListen=`'s HTTP endpoint. Built
/// by the core from what it holds; no I/O here.
struct MetricsText {
    private(set) var text = ""
    private var described = Set<String>()

    /// One sample of `name` (a gauge or counter) with its labels.
    mutating func sample(_ name: String, _ kind: String, _ help: String, _ value: Double, labels: [(String, String)] = []) {
        describe(name, kind, help)
        text += name + Self.labels(labels) + " " + Self.number(value) + "\n"
    }

    /// A histogram's samples: its buckets (cumulative), sum and count.
    mutating func histogram(_ name: String, _ help: String, _ histogram: LatencyHistogram) {
        describe(name, "histogram", help)
        var cumulative: UInt64 = 0
        for (bound, count) in zip(LatencyHistogram.bounds, histogram.counts) {
            cumulative += count
            text += "\(name)_bucket{le=\"\(Self.number(bound))\"} \(cumulative)\n"
        }
        text += "\(name)_bucket{le=\"+Inf\"} \(histogram.total)\n"
        text += "\(name)_sum \(Self.number(histogram.sum))\n"
        text += "\(name)_count \(histogram.total)\n"
    }

    private mutating func describe(_ name: String, _ kind: String, _ help: String) {
        guard described.insert(name).inserted else { return }
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(kind)\n"
    }

    private static func labels(_ labels: [(String, String)]) -> String {
        guard !labels.isEmpty else { return "" }
        return "{" + labels.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",") + "}"
    }

    /// A label value as the format escapes it: backslash, double quote, line feed.
    static func escape(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    private static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

/// Durations in fixed buckets (seconds), for a Prometheus histogram.
struct LatencyHistogram {
    static let bounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
    private(set) var counts = [UInt64](repeating: 0, count: bounds.count)
    private(set) var total: UInt64 = 0
    private(set) var sum: Double = 0

    mutating func record(_ duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        total += 1
        sum += seconds
        if let bucket = Self.bounds.firstIndex(where: { seconds <= $0 }) { counts[bucket] += 1 }
    }
}

extension DaemonCore {
    /// Everything `lprojctl metrics` and the HTTP endpoint show, as of now.
    func metricsText(at now: ContinuousClock.Instant = .now) -> String {
        var metrics = MetricsText()
        metrics.sample("lprojd_build_info", "gauge", "The daemon's version.", 1, labels: [("version", Self.server.split(separator: " ").last.map(String.init) ?? "")])
        metrics.sample("lprojd_uptime_seconds", "gauge", "Seconds since the daemon started.",
                       Double((now - started).components.seconds))
        for (bundle, generation) in generations.current.sorted(by: { $0.key < $1.key }) {
            let path = bundle.string
            metrics.sample("lprojd_bundle_generation", "gauge", "A bundle's current generation.", Double(generation.number),
                           labels: [("bundle", path)])
        }
        // (Each family's samples together, as the format wants them.)
        let following = generations.current.keys.sorted().map { bundle in
            (bundle: bundle.string, number: generations.current[bundle]!.number, followers: followers(of: bundle.string, at: now))
        }
        for bundle in following {
            metrics.sample("lprojd_bundle_processes", "gauge", "Connections following a bundle.", Double(bundle.followers.count),
                           labels: [("bundle", bundle.bundle)])
        }
        for bundle in following {
            let behind = bundle.followers.filter { $0.acknowledges && ($0.refused != nil || ($0.generation ?? 0) < bundle.number) }.count
            metrics.sample("lprojd_bundle_processes_behind", "gauge",
                           "Acknowledging connections that do not show a bundle's current generation (or refused it).", Double(behind),
                           labels: [("bundle", bundle.bundle)])
        }
        metrics.sample("lprojd_bundles", "gauge", "Bundles served.", Double(tables.bundles.count))
        metrics.sample("lprojd_tables", "gauge", "Tables served.", Double(tables.served.count))
        metrics.sample("lprojd_clients", "gauge", "Connected clients.", Double(publisher.sessions.count))
        metrics.sample("lprojd_subscriptions", "gauge", "Subscriptions of every client.",
                       Double(publisher.sessions.reduce(0) { $0 + $1.subscriptions.count }))
        let counters = self.counters.merging(publisher.counters) { $0 + $1 }
        metrics.sample("lprojd_events_total", "counter", "Events published.", Double(counters["events"] ?? 0))
        metrics.sample("lprojd_events_dropped_total", "counter", "Events dropped for subscribers that did not read.",
                       Double(counters["events-dropped"] ?? 0))
        metrics.sample("lprojd_resyncs_total", "counter", "Resyncs told to subscribers.", Double(counters["resyncs"] ?? 0))
        metrics.sample("lprojd_acknowledgements_total", "counter", "Generations acknowledged by clients.", Double(counters["acknowledgements"] ?? 0))
        metrics.sample("lprojd_files_parsed_total", "counter", "Table files read.", Double(tables.filesParsed))
        metrics.sample("lprojd_parse_refusals_total", "counter", "Table files read with errors (their last good version kept).",
                       Double(tables.parseFailures))
        metrics.sample("lprojd_reloads_total", "counter", "Configuration reloads (SIGHUP).", Double(counters["reloads"] ?? 0))
        let tree = treeStatus()
        metrics.sample("lprojd_watches", "gauge", "inotify watches held.", Double(tree.watches))
        if let limit = Self.kernelNumber("/proc/sys/fs/inotify/max_user_watches") {
            metrics.sample("lprojd_watches_limit", "gauge", "The kernel's limit of inotify watches per user (fs.inotify.max_user_watches).", limit)
        }
        metrics.sample("lprojd_history_events", "gauge", "Events kept for since-replay.", Double(publisher.history.count))
        metrics.sample("lprojd_history_bytes", "gauge", "Bytes of events kept for since-replay.", Double(publisher.history.bytes))
        metrics.sample("lprojd_misses", "gauge", "Missed keys recorded.", Double(misses.count))
        metrics.sample("lprojd_misses_dropped_total", "counter", "Missed keys not recorded (the book was full).", Double(misses.dropped))
        metrics.histogram("lprojd_publish_seconds", "From the watcher reading a save's event to its change being published.", publishLatency)
        return metrics.text
    }

    private static func kernelNumber(_ path: String) -> Double? {
        firstLine(of: path).flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }

    func metrics(_ request: MetricsRequest, session: Session, id: RequestID) -> Answer<MetricsRequest.Reply> {
        .reply(MetricsRequest.Reply(text: metricsText()))
    }
}
