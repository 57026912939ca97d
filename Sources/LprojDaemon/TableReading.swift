#if canImport(Glibc)
import Glibc
#endif
import LprojFormats
import LprojPaths
import LprojTables
import LprojWatch

/// Reading table files for the served tables: the shell's side of a change. The
/// served tables decide what a read means (`ServedTables.apply`); this opens, reads
/// and parses — a few files on the caller's thread, many on every core
/// (`ReadingThreads`: parsing is pure), a directory opened once for its
/// files — and crawls roots for a rescan.
enum TableReading {
    /// Every table file under `roots` (excluded paths left out).
    static func crawl(roots: [String], exclusions: Exclusions, links: LinkPolicy) -> [String] {
        var found: [String] = []
        var pending = roots
        while let directory = pending.popLast() {
            let places = DirectoryPlaces(directory)
            DirectoryListing.forEachEntry(of: directory, following: links) { name, path, kind in
                guard !exclusions.excludes(path) else { return }
                switch kind {
                case .directory: pending.append(path)
                case .file: if places.place(ofFile: name) != nil, !TemporaryFiles.isTemporary(name) { found.append(path) }
                }
            }
        }
        return found
    }


    /// Reads and parses the table files among `paths` (other files and
    /// excluded ones are left out). Pure, so any thread may call it; a long
    /// list is read on every core unless `inParallel` is false.
    /// `reader` reads them here (other threads get readers with its limits).
    /// A localization's table is made over the keys its other localizations
    /// share on `keys` (when it has them, in order).
    static func load(_ paths: some Sequence<String>, with reader: inout TableFileReader, exclusions: Exclusions, links: LinkPolicy,
                     keys: KeyShelf, inParallel: Bool = true) -> [ServedTables.Loaded] {
        // Consecutive paths of one directory are read as one; a path given twice is read once.
        var directories: [ListedDirectory] = []
        var directory: Substring?
        var names: [String] = []
        var seen = Set<ExactName>()
        for path in paths where seen.insert(ExactName(path)).inserted {
            guard let slash = PathBytes.lastOffset(of: UInt8(ascii: "/"), in: path) else { continue }
            let parent = Substring(path.utf8.prefix(slash)), name = String(Substring(path.utf8.dropFirst(slash + 1)))
            // Bytes, not `==` (canonically equivalent names are two directories).
            if let current = directory, current.utf8.elementsEqual(parent.utf8) {
                names.append(name)
                continue
            }
            if let current = directory { directories.append(ListedDirectory(path: String(current), files: names)) }
            directory = parent
            names = [name]
        }
        if let current = directory { directories.append(ListedDirectory(path: String(current), files: names)) }
        return load(directories, with: &reader, exclusions: exclusions, links: links, keys: keys, inParallel: inParallel)
    }

    /// Reads and parses the table files in `directories` (other files and
    /// excluded ones are left out), each directory opened once. `listed`:
    /// the files were just listed as regular files (not checked again).
    static func load(_ directories: [ListedDirectory], with reader: inout TableFileReader, exclusions: Exclusions, links: LinkPolicy,
                     keys: KeyShelf, inParallel: Bool = true, listed: Bool = false) -> [ServedTables.Loaded] {
        var candidates: [(path: String, name: String, place: TablePlace)] = []
        var runs: [(directory: String, files: Range<Int>)] = []
        // One string per bundle, shared by the addresses in it (directories
        // come a bundle at a time: comparing with the last one is enough).
        var lastBundle = ""
        for directory in directories {
            let places = DirectoryPlaces(directory.path, bundleLike: lastBundle)
            lastBundle = places.bundle ?? lastBundle
            let first = candidates.count
            for name in directory.files {
                guard let place = places.place(ofFile: name) else { continue }
                let path = directory.path + "/" + name
                guard !exclusions.excludes(path) else { continue }
                candidates.append((path, name, place))
            }
            if candidates.count > first { runs.append((directory.path, first..<candidates.count)) }
        }
        return read(candidates, runs: runs, with: &reader, links: links, keys: keys, inParallel: inParallel, listed: listed)
    }

    /// Reads and parses files; many at once on every core (`ReadingThreads`: parsing is pure), a few on this thread.
    private static func read(_ candidates: [(path: String, name: String, place: TablePlace)], runs: [(directory: String, files: Range<Int>)],
                             with reader: inout TableFileReader, links: LinkPolicy, keys: KeyShelf, inParallel: Bool,
                             listed: Bool) -> [ServedTables.Loaded] {
        let limits = reader.limits
        // Each result is made where it is stored: nothing is copied (and retained) after.
        return Array(unsafeUninitializedCapacity: candidates.count) { results, initialized in
            nonisolated(unsafe) let results = results
            // Each run of one directory is read by one worker, relative to
            // the directory. (`warmUp` has run: see there.)
            @Sendable func readRun(_ run: Int, with reader: inout TableFileReader) {
                let (path, range) = runs[run]
                let directory = range.count > 1 ? open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1
                defer { if directory >= 0 { close(directory) } }
                // A directory's tables are one bundle's (or a few): its sets are taken once.
                var bundle: KeyShelf.Bundle?
                for index in range {
                    let (path, name, place) = candidates[index]
                    if bundle?.path != place.bundle { bundle = keys.bundle(place.bundle) }
                    // A link is read where it leads into a root (`LinkPolicy`), as the walk follows it.
                    let outcome = Result { () throws(TableReadError) in
                        var file = try reader.read(path: path, directory: directory >= 0 ? directory : nil, name: name, listedAsRegular: listed,
                                                   links: links, sharing: bundle?.sets(for: place) ?? [])
                        if !file.hasErrors, case .table(let table) = file.contents, !table.sharesKeys {
                            file.contents = .table(keys.share(table, at: place))
                        }
                        return file
                    }
                    (results.baseAddress! + index).initialize(to: ServedTables.Loaded(path: ExactName(path), place: place, outcome: outcome))
                }
            }
            if inParallel && candidates.count >= 64 {
                ReadingThreads.perform(iterations: runs.count) { run in
                    var reader = TableFileReader(limits: limits)
                    readRun(run, with: &reader)
                }
            } else {
                for run in runs.indices { readRun(run, with: &reader) }
            }
            initialized = candidates.count
        }
    }

    /// Parses one small table of every kind on this thread. Call once before
    /// parsing on several threads: two threads instantiating the same
    /// generic metadata at once were seen to deadlock in the Swift runtime
    /// (swift_once in getCanonicalPrespecializedGenericMetadata).
    static func warmUp() {
        let strings = "/* c */\n\"a\" = \"\\U00e9\\n\\\"x\\\"\";\nb = c;\n\"a\" = \"d\"\n"
        let samples: [(String, [UInt8])] = [
            ("w.strings", Array(strings.utf8)),
            ("w.strings", [0xFF, 0xFE] + strings.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }),
            ("w.strings", Array("<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>a</key><string>b</string></dict></plist>".utf8)),
            ("w.stringsdict", Array("""
                <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>n</key><dict>
                <key>NSStringLocalizedFormatKey</key><string>%#@v@</string><key>v</key><dict>
                <key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>
                <key>NSStringFormatValueTypeKey</key><string>d</string>
                <key>one</key><string>%d</string><key>other</key><string>%d</string></dict></dict></dict></plist>
                """.utf8)),
            ("w.xcstrings", Array("""
                {"sourceLanguage":"en","version":"1.0","strings":{"k":{"localizations":{
                "en":{"stringUnit":{"state":"translated","value":"v"}},
                "fr":{"variations":{"plural":{"one":{"stringUnit":{"state":"needs_review","value":"1"}},
                "other":{"stringUnit":{"state":"translated","value":"%d"}}}}}}}}}
                """.utf8)),
        ]
        for (path, bytes) in samples {
            let file = TableFile(bytes: bytes, path: path, format: TableFormat(path: path)!)
            switch file.contents {
            case .table(let table): _ = TableDiff(from: Table(), to: table)
            case .catalog(let tables): for table in tables.tables.values { _ = TableDiff(from: Table(), to: table) }
            }
        }
    }
}
