
/// Where a table file belongs: the one rule, used by the daemon's catalog,
/// `LocalizedBundle` (a client's offline start, `lprojctl get`) and the
/// tests that hold them to each other.
///
/// - `B/L.lproj/T.strings` and `B/L.lproj/T.stringsdict` are table `T` of
///   localization `L` (the directory's name as it is: `en`, `zh-Hant`,
///   `Base`, legacy `English`, `zh_CN`) of bundle `B`.
/// - `B/T.xcstrings` is table `T` of bundle `B`, in every language it has.
/// - Names compare as bytes; extensions are case-sensitive; the last dot
///   starts the extension; a name without a table name (`.strings`) is not
///   a table; an editor's or sync tool's temporary (`TemporaryFiles`) never is.
/// - Symbolic links are followed only as `LinkPolicy` says (into a root,
///   never round a loop); a followed link is a table or a bundle under its
///   own path (`en.lproj -> ..data/en.lproj` is `en.lproj`), and names that
///   start with `..` are never walked.
/// - `Exclude=` patterns (`Exclusions`) leave files and directories out.
public struct TablePlace: Sendable, Equatable {
    public var format: TableFormat
    public var bundle: String
    /// nil for a String Catalog (its languages are inside it).
    public var localization: String?
    public var table: String

    public init(format: TableFormat, bundle: String, localization: String?, table: String) {
        self.format = format
        self.bundle = bundle
        self.localization = localization
        self.table = table
    }

    /// The file this place names: `<bundle>/<localization>.lproj/<table>.<ext>`,
    /// or `<bundle>/<table>.xcstrings` — what `of(_:)` reads back.
    public var path: String {
        guard format != .xcstrings, let localization else { return Self.catalog(table, in: bundle) }
        return Self.directory(of: localization, in: bundle) + "/" + table + "." + format.rawValue
    }

    /// The `.lproj` directory of `localization` in `bundle`.
    public static func directory(of localization: String, in bundle: String) -> String {
        bundle + "/" + localization + ".lproj"
    }

    /// The String Catalog of `table` in `bundle`.
    public static func catalog(_ table: String, in bundle: String) -> String {
        bundle + "/" + table + ".xcstrings"
    }

    /// The `.strings` and `.stringsdict` files of `table` of `localization` in `bundle`.
    public static func files(of table: String, localization: String, in bundle: String) -> (strings: String, stringsdict: String) {
        (TablePlace(format: .strings, bundle: bundle, localization: localization, table: table).path,
         TablePlace(format: .stringsdict, bundle: bundle, localization: localization, table: table).path)
    }

    /// Where the file at `path` belongs, when it is a table file.
    public static func of(_ path: String) -> TablePlace? {
        guard let slash = PathBytes.lastOffset(of: UInt8(ascii: "/"), in: path) else { return nil }
        return DirectoryPlaces(String(Substring(path.utf8.prefix(slash))))
            .place(ofFile: String(Substring(path.utf8.dropFirst(slash + 1))))
    }
}

/// Where the table files of one directory sit (what `TablePlace.of` says
/// of each), worked out once for the directory. Works on the UTF-8 bytes:
/// it runs for every directory of every crawl.
public struct DirectoryPlaces: Sendable {
    public let directory: String
    /// For an `.lproj` directory with a parent: the parent (the bundle of
    /// its `.strings` and `.stringsdict` files) and its localization.
    public let lproj: (bundle: String, localization: String)?

    /// The bundle is `bundleLike` itself when it has the same bytes (one
    /// string shared by a bundle's localizations, not one made per directory).
    public init(_ directory: String, bundleLike: String = "") {
        self.directory = directory
        var bytes = directory
        lproj = bytes.withUTF8 { bytes -> (bundle: String, localization: String)? in
            let suffix = ".lproj".utf8
            let stemEnd = bytes.count - suffix.count
            guard stemEnd > 0, bytes[stemEnd...].elementsEqual(suffix),
                  let parentSlash = bytes[..<stemEnd].lastIndex(of: UInt8(ascii: "/")), parentSlash + 1 < stemEnd else { return nil }
            let parent = UnsafeBufferPointer(rebasing: bytes[..<parentSlash])
            let bundle = PathBytes.equal(bundleLike, parent) ? bundleLike : String(decoding: parent, as: UTF8.self)
            return (bundle, String(decoding: UnsafeBufferPointer(rebasing: bytes[(parentSlash + 1)..<stemEnd]), as: UTF8.self))
        }
    }

    /// The bundle of the `.strings` and `.stringsdict` files here, if any.
    public var bundle: String? { lproj?.bundle }

    /// Where the file `name` in this directory sits, when it is a table file.
    public func place(ofFile name: String) -> TablePlace? {
        var name = name
        let place = name.withUTF8 { bytes -> TablePlace? in
            guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot != 0,
                  let format = TableFormat(extension: UnsafeBufferPointer(rebasing: bytes[(dot + 1)...])) else { return nil }
            let table = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<dot]), as: UTF8.self)
            if format == .xcstrings { return TablePlace(format: format, bundle: directory, localization: nil, table: table) }
            guard let lproj else { return nil }
            return TablePlace(format: format, bundle: lproj.bundle, localization: lproj.localization, table: table)
        }
        // An editor's temporary is never a table (only `.#name` and `#name` can end like one).
        if place != nil, name.utf8.first == UInt8(ascii: ".") || name.utf8.first == UInt8(ascii: "#"), TemporaryFiles.isTemporary(name) {
            return nil
        }
        return place
    }
}

