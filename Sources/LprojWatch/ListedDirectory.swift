/// One directory as the first walk lists it: its path and the names of
/// its files (temporaries left out), handed over to be read.
public struct ListedDirectory: Sendable, Equatable {
    /// The directory's path.
    public let path: String
    /// Its files' names.
    public let files: [String]

    public init(path: String, files: [String]) {
        self.path = path
        self.files = files
    }

    /// Its files' paths.
    public var paths: [String] { files.map { path + "/" + $0 } }
}
