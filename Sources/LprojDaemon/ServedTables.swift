#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import LprojBundles
import LprojFormats
import LprojPaths
import LprojTables
import LprojWatch

/// The daemon's knowledge of the tables under its roots: every table file's
/// last good parse and current diagnostics, and the tables served from them.
/// Owned by the daemon's loop (not thread-safe by design: one owner).
///
/// A file that fails to parse keeps its last good version served; the
/// change that fixes it is diffed against that version. Everything the
/// it reports is derived from the files by one rule (`refresh`), so an
/// edit, a deleted directory and a rescan after an overflow agree.
final class ServedTables {
    /// Something subscribers should hear about, in the order it happened.
    enum Change {
        case bundleAdded(String)
        case bundleRemoved(String)
        case localizationAdded(bundle: String, localization: String)
        case localizationRemoved(bundle: String, localization: String)
        case tableChanged(TableAddress, TableDiff, deleted: Bool)
        case tableInvalid(file: String, bundle: String, localization: String?, table: String, diagnostics: [Diagnostic], keptLastGood: Bool)
    }

    /// What was last read from one table file (where it sits follows from
    /// its path: `classify`; not stored, as there may be a million files).
    struct FileRecord {
        /// The last contents that parsed without errors.
        var lastGood: TableFile.Contents?
        /// The diagnostics of the last read (errors mean `lastGood` is older than the file).
        var diagnostics: [Diagnostic]

        var isInvalid: Bool { diagnostics.containsErrors }

        /// The localizations its last good contents serve, for a file at `place`.
        func localizations(at place: Place) -> [String] {
            if let localization = place.localization { return lastGood == nil ? [] : [localization] }
            guard case .catalog(let tables)? = lastGood else { return [] }
            return Array(tables.tables.keys)
        }

        /// The served tables its last good contents are part of, for a file at `place`.
        func addresses(at place: Place) -> [TableAddress] {
            localizations(at: place).map { TableAddress(bundle: place.bundle, localization: $0, table: place.table) }
        }

        /// Where a new file's record starts (no real record is both without
        /// good contents and without diagnostics).
        static let placeholder = FileRecord(lastGood: nil, diagnostics: [])

        /// Takes in a read of the file: a broken or unreadable file keeps its
        /// last good contents. Returns the record before (nil if it was the
        /// placeholder) and after.
        mutating func update(with outcome: consuming Result<TableFile, TableReadError>, path: String) -> (before: FileRecord?, after: FileRecord) {
            let before = lastGood == nil && diagnostics.isEmpty ? nil : self
            switch consume outcome {
            case .failure(let error):
                // There but unreadable (permissions): like a broken save, the last good stays.
                diagnostics = [Diagnostic(file: path, line: 1, column: 1, severity: .error, message: "cannot read the file: \(error.reason)")]
            case .success(let file):
                diagnostics = file.diagnostics
                if !file.hasErrors { lastGood = file.contents }
            }
            return (before, self)
        }
    }

    /// Where a table file sits (`TablePlace`, the one rule, in LprojPaths).
    typealias Place = TablePlace

    private(set) var files = FileRecords()
    /// The tables served, composed from the files' last good contents.
    private(set) var served = ServedIndex()
    /// The tables the last reported batch replaced, as they were (nil: it had none there): what a generation undoes.
    private(set) var replaced: [TableAddress: Table?] = [:]
    /// The keys each table name's localizations share (the reading threads make tables over them).
    let keyShelf = KeyShelf()
    /// Per bundle, per table name: how many localizations serve it (the
    /// name's shared keys are forgotten when none does).
    private var tableNames: [ExactName: [ExactName: Int]] = [:]
    var exclusions: Exclusions
    /// Which symbolic links are followed (`LinkPolicy`: into the roots).
    var links: LinkPolicy
    /// How many `.stringsdict` and `.xcstrings` files are known: while there
    /// are none, composing a table looks up its `.strings` file alone.
    private var fileCounts = FormatCounts()
    /// Counters for `status`.
    private(set) var filesParsed: UInt64 = 0
    private(set) var parseFailures: UInt64 = 0

    init(exclusions: Exclusions, links: LinkPolicy = .nowhere) {
        self.exclusions = exclusions
        self.links = links
    }

    /// The bundles, with their localizations and tables, sorted.
    var bundles: [String] { served.bundleNames.sorted().map(\.string) }

    /// How many bundles serve a table.
    var bundleCount: Int { served.bundleCount }

    /// Drops every file under `directory` whatever is on disk (a root no
    /// longer watched): what they served goes.
    func forget(under directory: String) -> [Change] {
        forget(files(under: directory))
    }

    /// Drops the files at `paths` whatever is on disk (excluded now, or no longer under a root).
    func forget(_ paths: [String]) -> [Change] {
        apply(paths.compactMap { path in
            TablePlace.of(path).map { Loaded(path: ExactName(path), place: $0, outcome: .failure(TableReadError(path: path, reason: "forgotten")),
                                                forgotten: true) }
        })
    }

    /// A bundle's served tables as one value, for lookups.
    /// With `only`, just the tables of those names (every localization still listed).
    func localizedBundle(_ path: String, only names: Set<String>? = nil) -> LocalizedBundle? {
        guard let localizations = served.localizations(of: ExactName(path)) else { return nil }
        var tables: [String: [String: Table]] = [:]
        for (localization, byName) in localizations {
            var selected: [String: Table] = [:]
            for (name, table) in byName where names?.contains(name.string) ?? true { selected[name.string] = table }
            tables[localization.string] = selected
        }
        return LocalizedBundle(path: path, tables: tables)
    }

    /// A table file read (or not) and parsed, with where it sits: what `apply` takes.
    struct Loaded: Sendable {
        var path: ExactName
        var place: Place
        var outcome: Result<TableFile, TableReadError>
        /// Taken out of the served tables whatever the disk says (`forget`).
        var forgotten = false
    }

    /// Whether the served tables has a record of the file at `path`.
    func knows(_ path: String) -> Bool {
        files[ExactName(path)] != nil
    }

    /// Whether a bundle at `path` serves any table.
    func hasBundle(_ path: String) -> Bool {
        served.has(bundle: ExactName(path))
    }

    /// Takes in what `load` read (each path once) and returns what changed for subscribers,
    /// in order. With `reporting: false` (the first load, when nobody
    /// listens yet) only the state is updated: no diffs are made.
    func apply(_ loaded: consuming [Loaded], reporting: Bool = true) -> [Change] {
        var invalid: [Change] = []
        var affected: [TableAddress: Composition] = [:]
        if reporting { affected.reserveCapacity(loaded.count) }
        var fixed = Set<TableAddress>()
        assert(Set(loaded.lazy.map(\.path)).count == loaded.count, "a path read twice in one batch")
        // Taken off the end (moved, not copied: no retain and release of each
        // table; `reverse` copied them). Each path comes once, so the order is
        // free but for the diagnostics', put back in the files' order below.
        while let item = loaded.popLast() {
            let (key, place) = (item.path, item.place)
            let path = key.string
            let readable = if case .success = item.outcome { true } else { false }
            let gone = if case .failure(let error) = item.outcome { error.isMissing || error.isSymbolicLink || error.isSpecialFile } else { false }
            // Gone, or a link or a FIFO, socket or device (not a table file): what it served goes.
            if !readable, item.forgotten || gone {
                if let old = files.removeValue(forKey: key) {
                    fileCounts[place.format] -= 1
                    for address in old.addresses(at: place) { affected[address] = .compose }
                }
                continue
            }
            // One lookup: the record is changed where it is stored.
            let (before, record) = files.update(key, placeholder: .placeholder) { $0.update(with: item.outcome, path: path) }
            if before == nil { fileCounts[place.format] += 1 }
            if readable { filesParsed += 1 }
            if record.isInvalid {
                parseFailures += 1
                if reporting {
                    invalid.append(.tableInvalid(file: path, bundle: place.bundle, localization: place.localization, table: place.table,
                                                 diagnostics: record.diagnostics, keptLastGood: record.lastGood != nil))
                }
            }
            let oldAddresses = before?.addresses(at: place) ?? []
            for address in oldAddresses { affected[address] = .compose }
            let newAddresses: [TableAddress]
            // A `.strings` file where no other kind of table file is known serves its table as it is.
            if place.format == .strings, fileCounts[.stringsdict] == 0, fileCounts[.xcstrings] == 0,
               let localization = place.localization, case .table(let table)? = record.lastGood {
                let address = TableAddress(bundle: place.bundle, localization: localization, table: place.table)
                // Nobody listens yet: served at once (an address composed later in the batch is composed from the files).
                if reporting { affected[address] = .known(table) } else { serve(table, at: address) }
                newAddresses = before?.isInvalid == true ? [address] : []
            } else {
                newAddresses = record.addresses(at: place)
                for address in newAddresses { affected[address] = .compose }
            }
            if before?.isInvalid == true && !record.isInvalid { fixed.formUnion(oldAddresses + newAddresses) }
        }
        return structuralChanges(recomposing: affected, fixed: fixed, reporting: reporting) + invalid.reversed()
    }

    /// How to find the table served at an address that `apply` touched.
    private enum Composition {
        /// From its files' last good contents.
        case compose
        /// This one (its only file was just read).
        case known(Table)
    }

    /// The table files known under `directory` (for a directory that went away).
    func files(under directory: String) -> [String] {
        files.paths(under: directory)
    }

    /// Recomposes the served tables at `addresses` and reports the
    /// differences: bundles and localizations that appeared first, then
    /// table changes, then localizations and bundles that went.
    private func structuralChanges(recomposing addresses: [TableAddress: Composition], fixed: Set<TableAddress>, reporting: Bool) -> [Change] {
        func composition(_ address: TableAddress, _ how: Composition) -> Table? {
            switch how {
            case .compose: compose(address)
            case .known(let table): table
            }
        }
        guard reporting else {
            // Nobody listens yet: the state only.
            for (address, how) in addresses { serve(composition(address, how), at: address) }
            return []
        }
        // Bundles and localizations are compared as they were before the
        // whole batch and as it leaves them: a localization renamed (the old
        // one gone, the new one there) never reports its bundle removed.
        var bundlesBefore: [(bundle: ExactName, existed: Bool)] = []
        var localizationsBefore: [(bundle: ExactName, localization: ExactName, existed: Bool)] = []
        var seenBundles = Set<ExactName>(), seenLocalizations = Set<TableAddress>()
        var tables: [Change] = []
        replaced.removeAll(keepingCapacity: true)
        // The keys alone are sorted (a pair with its composition costs a retain and release at every move).
        for address in addresses.keys.sorted() {
            let how = addresses[address]!
            let bundle = ExactName(address.bundle), localization = ExactName(address.localization)
            if seenBundles.insert(bundle).inserted { bundlesBefore.append((bundle, served.has(bundle: bundle))) }
            if seenLocalizations.insert(TableAddress(bundle: address.bundle, localization: address.localization, table: "")).inserted {
                localizationsBefore.append((bundle, localization, served.has(bundle: bundle, localization: localization)))
            }
            let old = served[address]
            let new = composition(address, how)
            serve(new, at: address)
            let diff = TableDiff(from: old ?? Table(), to: new ?? Table())
            switch (old, new) {
            case (nil, nil):
                continue
            case (nil, .some):
                tables.append(.tableChanged(address, diff, deleted: false))
                replaced[address] = .some(nil)
            case (.some, nil):
                tables.append(.tableChanged(address, diff, deleted: true))
                replaced[address] = old
            case (.some, .some):
                if !diff.isEmpty || fixed.contains(address) {
                    tables.append(.tableChanged(address, diff, deleted: false))
                    replaced[address] = old
                }
            }
        }
        var appeared: [Change] = []
        var gone: [Change] = []
        for (bundle, existed) in bundlesBefore where !existed && served.has(bundle: bundle) {
            appeared.append(.bundleAdded(bundle.string))
        }
        for (bundle, localization, existed) in localizationsBefore {
            let exists = served.has(bundle: bundle, localization: localization)
            if !existed && exists { appeared.append(.localizationAdded(bundle: bundle.string, localization: localization.string)) }
            if existed && !exists { gone.append(.localizationRemoved(bundle: bundle.string, localization: localization.string)) }
        }
        for (bundle, existed) in bundlesBefore where existed && !served.has(bundle: bundle) {
            gone.append(.bundleRemoved(bundle.string))
        }
        return appeared + tables + gone
    }

    /// Serves `table` at `address` (nil: nothing), counting each bundle's localizations of a table name.
    private func serve(_ table: Table?, at address: TableAddress) {
        let old = served.serve(table, at: address)
        let bundle = ExactName(address.bundle), name = ExactName(address.table)
        if old == nil, table != nil {
            tableNames[bundle, default: [:]][name, default: 0] += 1
        } else if old != nil, table == nil {
            tableNames[bundle]?[name]! -= 1
            if tableNames[bundle]?[name] == 0 {
                tableNames[bundle]?[name] = nil
                keyShelf.forget(bundle: bundle, table: name)
            }
            if tableNames[bundle]?.isEmpty == true { tableNames[bundle] = nil }
        }
    }

    /// The served table at `address` from its files' last good contents.
    private func compose(_ address: TableAddress) -> Table? {
        let lproj = "\(address.bundle)/\(address.localization).lproj/\(address.table)"
        var layers: [(layer: TableLayers.Layer, table: Table)] = []
        if case .table(let table)? = files[ExactName(lproj + ".strings")]?.lastGood { layers.append((.strings, table)) }
        if fileCounts[.stringsdict] > 0, case .table(let table)? = files[ExactName(lproj + ".stringsdict")]?.lastGood {
            layers.append((.stringsdict, table))
        }
        if fileCounts[.xcstrings] > 0,
           case .catalog(let tables)? = files[ExactName(address.bundle + "/" + address.table + ".xcstrings")]?.lastGood,
           let table = tables.tables[address.localization] {
            layers.append((.catalog, table))
        }
        return TableLayers.compose(layers)
    }

    /// Where a path sits, when it is a table file (`TablePlace.of`).
    static func classify(_ path: String) -> Place? {
        TablePlace.of(path)
    }
}

/// A count per table format (consulted for every file the served tables takes in: no hashing).
private struct FormatCounts {
    private var strings = 0
    private var stringsDict = 0
    private var catalogs = 0

    subscript(format: TableFormat) -> Int {
        get {
            switch format {
            case .strings: strings
            case .stringsdict: stringsDict
            case .xcstrings: catalogs
            }
        }
        set {
            switch format {
            case .strings: strings = newValue
            case .stringsdict: stringsDict = newValue
            case .xcstrings: catalogs = newValue
            }
        }
    }
}
