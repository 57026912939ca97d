/// The studio's translation memory: every unit — a key of a table of a
/// bundle — with its source text (the development localization's) and its
/// translations, so that an editor is offered what the repository already
/// says: the same source text translated elsewhere (exact), then the most
/// similar source texts with their translations (fuzzy, ranked, with what
/// differs). A pure value, kept up to date by `MemoryFeed`.
public struct TranslationMemory: Sendable {
    /// Where a text is: a key of a table of a bundle.
    public struct Unit: Hashable, Sendable, Comparable {
        public var bundle: String
        public var table: String
        public var key: String

        public init(bundle: String, table: String, key: String) {
            self.bundle = bundle
            self.table = table
            self.key = key
        }

        public static func < (a: Unit, b: Unit) -> Bool { (a.bundle, a.table, a.key) < (b.bundle, b.table, b.key) }
    }

    /// A translation offered for a source text.
    public struct Suggestion: Sendable, Equatable {
        /// The translation.
        public var text: String
        /// The source text it translates.
        public var source: String
        /// 1 for the same source text; else how alike the two source texts are (0…1).
        public var similarity: Double
        /// Where it is (the first, when several units hold the same translation).
        public var unit: Unit
        /// How many units hold it.
        public var uses: Int
        /// The asked source text against this one, word by word (empty for an exact match).
        public var differences: [Difference]
    }

    /// A run of words the two source texts share, or one of them only has.
    public struct Difference: Sendable, Equatable {
        public enum Kind: String, Sendable { case same, asked, other }
        public var kind: Kind
        public var text: String
    }

    /// The units whose source texts are at least this alike are offered.
    public static let threshold = 0.5
    /// Units compared character by character for one request, at most (the best by shared words).
    static let candidates = 64

    private var units: [Unit] = []
    private var ids: [Unit: Int32] = [:]
    private var sources: [String?] = []
    private var translations: [[String: String]] = []
    private var bySource: [String: Set<Int32>] = [:]
    private var byWord: [String: Set<Int32>] = [:]

    public init() {}

    /// Units known.
    public var count: Int { ids.count }

    /// Sets (nil: removes) `unit`'s source text.
    public mutating func setSource(_ text: String?, of unit: Unit) {
        let id = self.id(of: unit)
        guard sources[Int(id)] != text else { return }
        if let old = sources[Int(id)] {
            bySource[old]?.remove(id)
            if bySource[old]?.isEmpty == true { bySource[old] = nil }
            for word in Set(Self.words(of: old)) {
                byWord[word]?.remove(id)
                if byWord[word]?.isEmpty == true { byWord[word] = nil }
            }
        }
        sources[Int(id)] = text
        if let text {
            bySource[text, default: []].insert(id)
            for word in Set(Self.words(of: text)) { byWord[word, default: []].insert(id) }
        }
    }

    /// Sets (nil: removes) `unit`'s translation into `language`.
    public mutating func setTranslation(_ text: String?, of unit: Unit, language: String) {
        let id = self.id(of: unit)
        translations[Int(id)][language] = text.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Forgets every unit of `bundle` (it is no longer served, or is read again).
    public mutating func removeBundle(_ bundle: String) {
        for (unit, id) in ids where unit.bundle == bundle {
            setSource(nil, of: unit)
            translations[Int(id)] = [:]
        }
    }

    /// What the memory offers for `source` in `language`: exact matches (the
    /// same source text elsewhere; the translation most units hold first),
    /// then fuzzy ones (most alike first), at most `limit`; `excluding` is
    /// the unit being edited.
    public func suggestions(for source: String, language: String, excluding: Unit? = nil, limit: Int = 5) -> [Suggestion] {
        let excluded = excluding.flatMap { ids[$0] }
        var found: [Suggestion] = []
        var offered: [String: Int] = [:]
        func offer(_ id: Int32, similarity: Double, differences: [Difference]) {
            guard id != excluded, let text = translations[Int(id)][language], let from = sources[Int(id)] else { return }
            if let index = offered[text] {
                // (A fuzzy match with an exact one's translation adds nothing to it.)
                guard found[index].similarity == similarity else { return }
                found[index].uses += 1
                if units[Int(id)] < found[index].unit { found[index].unit = units[Int(id)] }
                return
            }
            offered[text] = found.count
            found.append(Suggestion(text: text, source: from, similarity: similarity, unit: units[Int(id)], uses: 1, differences: differences))
        }
        for id in bySource[source] ?? [] { offer(id, similarity: 1, differences: []) }
        found.sort { ($0.uses, $1.unit) > ($1.uses, $0.unit) }
        guard found.count < limit else { return Array(found.prefix(limit)) }
        // Fuzzy: the units sharing the most words, compared character by character.
        let asked = Set(Self.words(of: source))
        guard !asked.isEmpty else { return found }
        var shared: [Int32: Int] = [:]
        for word in asked { for id in byWord[word] ?? [] where translations[Int(id)][language] != nil { shared[id, default: 0] += 1 } }
        let best = shared.filter { sources[Int($0.key)] != source }.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(Self.candidates)
        let askedCharacters = Array(source.lowercased())
        var scored: [(id: Int32, similarity: Double)] = []
        for (id, _) in best {
            let similarity = Self.similarity(askedCharacters, Array(sources[Int(id)]!.lowercased()))
            if similarity >= Self.threshold { scored.append((id, similarity)) }
        }
        scored.sort { ($0.similarity, units[Int($1.id)]) > ($1.similarity, units[Int($0.id)]) }
        let exact = found.count
        for (id, similarity) in scored where found.count < limit + exact {
            offer(id, similarity: similarity, differences: Self.differences(source, sources[Int(id)]!))
        }
        return Array(found.prefix(limit))
    }

    // MARK: - Helpers

    private mutating func id(of unit: Unit) -> Int32 {
        if let id = ids[unit] { return id }
        let id = Int32(units.count)
        units.append(unit)
        ids[unit] = id
        sources.append(nil)
        translations.append([:])
        return id
    }

    /// Words as the memory matches them: lowercased runs of letters and digits;
    /// in scripts written without spaces (Han, kana, Hangul, Thai), pairs of characters.
    static func words(of text: String) -> [String] {
        var words: [String] = []
        var run: [Character] = []
        func flush() {
            defer { run = [] }
            guard !run.isEmpty else { return }
            if run.contains(where: { $0.unicodeScalars.first.map(isUnspaced) ?? false }), run.count > 1 {
                for index in 0..<(run.count - 1) { words.append(String(run[index...index + 1])) }
            } else {
                words.append(String(run))
            }
        }
        for character in text.lowercased() {
            if character.isLetter || character.isNumber { run.append(character) } else { flush() }
        }
        flush()
        return words
    }

    private static func isUnspaced(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0E00...0x0E7F, 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7AF, 0xF900...0xFAFF: return true
        default: return false
        }
    }

    /// 1 − the edit distance over the longer length (characters, case ignored); long texts compared by their first 400.
    public static func similarity(_ a: [Character], _ b: [Character]) -> Double {
        let a = a.prefix(400), b = b.prefix(400)
        guard !a.isEmpty || !b.isEmpty else { return 1 }
        var previous = Array(0...b.count), current = [Int](repeating: 0, count: b.count + 1)
        for (i, x) in a.enumerated() {
            current[0] = i + 1
            for (j, y) in b.enumerated() {
                current[j + 1] = Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return 1 - Double(previous[b.count]) / Double(Swift.max(a.count, b.count))
    }

    /// The asked text against another, as runs of words (spaces and punctuation kept with the word before them).
    static func differences(_ asked: String, _ other: String) -> [Difference] {
        let x = pieces(of: asked), y = pieces(of: other)
        // Longest common subsequence of pieces (texts are short: a table of lengths).
        var lengths = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in stride(from: x.count - 1, through: 0, by: -1) {
            for j in stride(from: y.count - 1, through: 0, by: -1) {
                lengths[i][j] = x[i].lowercased() == y[j].lowercased() ? lengths[i + 1][j + 1] + 1 : Swift.max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var result: [Difference] = []
        func add(_ kind: Difference.Kind, _ text: String) {
            if let last = result.last, last.kind == kind { result[result.count - 1].text += text } else { result.append(Difference(kind: kind, text: text)) }
        }
        var i = 0, j = 0
        while i < x.count || j < y.count {
            if i < x.count, j < y.count, x[i].lowercased() == y[j].lowercased() {
                add(.same, y[j]); i += 1; j += 1
            } else if j < y.count, i == x.count || lengths[i][j + 1] >= lengths[i + 1][j] {
                add(.other, y[j]); j += 1
            } else {
                add(.asked, x[i]); i += 1
            }
        }
        return result
    }

    /// A text cut after each run of spaces: "Delete 3 files?" → ["Delete ", "3 ", "files?"].
    private static func pieces(of text: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        var inSpace = false
        for character in text {
            if character.isWhitespace { inSpace = true } else if inSpace { pieces.append(current); current = ""; inSpace = false }
            current.append(character)
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }
}
