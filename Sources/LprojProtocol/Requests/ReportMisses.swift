/// `report-misses`: keys this process looked up in `bundle` and did not
/// find, counted since its last report. A `LiveBundle` sends them on its
/// own connection, at most once a second; the app is the connection's
/// (`hello`), the user the connection's credentials. The daemon keeps
/// them within `[Limits] Misses=`, each reporting user with a fair share.
public struct ReportMisses: Request {
    public static let op = "report-misses"

    public var bundle: String
    public var misses: [MissReport]
    /// Misses the process did not keep (its own bound was reached; 0 or more).
    public var dropped: Int?

    public init(bundle: String, misses: [MissReport], dropped: Int? = nil) {
        self.bundle = bundle
        self.misses = misses
        self.dropped = dropped
    }

    public struct Reply: Codable, Sendable, Equatable {
        /// Whether the daemon keeps misses at all (`Misses=0`: not).
        public var recording: Bool

        public init(recording: Bool) {
            self.recording = recording
        }
    }
}
