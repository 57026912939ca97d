import LprojTables
/// JSON as a String Catalog holds it, written back as Xcode writes catalogs:
/// two-space indentation, `"key" : value`, members in their order (new
/// ones where Xcode's order puts them), nothing escaped that need not be.
/// Strings and numbers read from a file keep their spelling while their
/// value is unchanged, so an unchanged catalog reads and writes the same
/// bytes, and an edit's diff shows only what changed.
indirect enum CatalogJSON: Equatable, Sendable {
    case object([Member], emptyForm: EmptyForm = .xcode)
    case array([CatalogJSON], emptyForm: EmptyForm = .xcode)
    case string(String, spelling: [UInt8]? = nil)
    /// A number as written.
    case number(String)
    case bool(Bool)
    case null

    struct Member: Equatable, Sendable {
        var key: String
        var keySpelling: [UInt8]?
        var value: CatalogJSON
        /// Where the key is written in the text it was read from (0 for a
        /// member made in memory).
        var keyOffset: Int

        static func == (lhs: Member, rhs: Member) -> Bool { lhs.key == rhs.key && lhs.value == rhs.value }

        init(_ key: String, _ value: CatalogJSON, keySpelling: [UInt8]? = nil, keyOffset: Int = 0) {
            self.key = key
            self.value = value
            self.keySpelling = keySpelling
            self.keyOffset = keyOffset
        }
    }

    /// How an empty object or array is written: Xcode's `{` blank line `}`,
    /// or `{}` as a file had it.
    enum EmptyForm: Equatable, Sendable {
        case xcode
        case compact
    }

    /// Where and why reading stopped.
    struct Failure: Error, Sendable {
        var offset: Int
        var message: String
    }

    /// The text, in Xcode's layout.
    func rendered() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(4096)
        render(into: &output, indent: 0)
        return output
    }

    /// Equal values, however they were spelled.
    static func == (lhs: CatalogJSON, rhs: CatalogJSON) -> Bool {
        switch (lhs, rhs) {
        case (.object(let a, _), .object(let b, _)): return a == b
        case (.array(let a, _), .array(let b, _)): return a == b
        case (.string(let a, _), .string(let b, _)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null): return true
        default: return false
        }
    }

    // MARK: - Access

    subscript(key: String) -> CatalogJSON? {
        member(key)?.value
    }

    /// The member `key` of this object (the last, when it is written twice).
    func member(_ key: String) -> Member? {
        guard case .object(let members, _) = self else { return nil }
        return members.last { $0.key == key }
    }

    /// This object's members, each key once (the last where it is written
    /// twice), in their order; nil when this is not an object.
    var uniqueMembers: [Member]? {
        guard case .object(let members, _) = self else { return nil }
        guard members.count > 1 else { return members }
        if members.count <= 16 {
            return members.indices.filter { index in !members[(index + 1)...].contains { $0.key == members[index].key } }.map { members[$0] }
        }
        var last: [String: Int] = [:]
        last.reserveCapacity(members.count)
        for (index, member) in members.enumerated() { last[member.key] = index }
        guard last.count < members.count else { return members }
        return members.indices.filter { last[members[$0].key] == $0 }.map { members[$0] }
    }

    var stringValue: String? {
        if case .string(let value, _) = self { return value }
        return nil
    }

    /// Sets `key` of this object, in place when it is there, else where
    /// Xcode's order puts it. Does nothing to a value that is not an object.
    mutating func set(_ key: String, _ value: CatalogJSON) {
        guard case .object(var members, let form) = self else { return }
        if let index = members.lastIndex(where: { $0.key == key }) {
            if members[index].value != value { members[index].value = value }
        } else {
            let position = members.firstIndex { XcodeOrder.precedes(key, $0.key) } ?? members.count
            members.insert(Member(key, value), at: position)
        }
        self = .object(members, emptyForm: form)
    }

    /// Removes `key` from this object; false when it was not there.
    @discardableResult
    mutating func remove(_ key: String) -> Bool {
        guard case .object(var members, let form) = self else { return false }
        let count = members.count
        members.removeAll { $0.key == key }
        self = .object(members, emptyForm: form)
        return members.count != count
    }

    /// Changes the value at `path` (keys from here) with `body`, making
    /// empty objects on the way where keys are missing.
    mutating func update(_ path: ArraySlice<String>, _ body: (inout CatalogJSON) throws(TableEditError) -> Void) throws(TableEditError) {
        guard let key = path.first else { return try body(&self) }
        var child = self[key] ?? .object([])
        try child.update(path.dropFirst(), body)
        set(key, child)
    }

    // MARK: - Writing

    private func render(into output: inout [UInt8], indent: Int) {
        switch self {
        case .object(let members, let form):
            guard !members.isEmpty else { return Self.renderEmpty("{", "}", form, indent, &output) }
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                output.append(0x0A)
                output += repeatElement(0x20, count: indent + 2)
                if let spelling = member.keySpelling { output += spelling } else { JSONStringEscape.quote(member.key, into: &output) }
                output += Array(" : ".utf8)
                member.value.render(into: &output, indent: indent + 2)
                if index < members.count - 1 { output.append(UInt8(ascii: ",")) }
            }
            output.append(0x0A)
            output += repeatElement(0x20, count: indent)
            output.append(UInt8(ascii: "}"))
        case .array(let values, let form):
            guard !values.isEmpty else { return Self.renderEmpty("[", "]", form, indent, &output) }
            output.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                output.append(0x0A)
                output += repeatElement(0x20, count: indent + 2)
                value.render(into: &output, indent: indent + 2)
                if index < values.count - 1 { output.append(UInt8(ascii: ",")) }
            }
            output.append(0x0A)
            output += repeatElement(0x20, count: indent)
            output.append(UInt8(ascii: "]"))
        case .string(let value, let spelling):
            if let spelling { output += spelling } else { JSONStringEscape.quote(value, into: &output) }
        case .number(let text):
            output += Array(text.utf8)
        case .bool(let value):
            output += Array((value ? "true" : "false").utf8)
        case .null:
            output += Array("null".utf8)
        }
    }

    private static func renderEmpty(_ open: Character, _ close: Character, _ form: EmptyForm, _ indent: Int, _ output: inout [UInt8]) {
        output.append(open.asciiValue!)
        if form == .xcode {
            output += [0x0A, 0x0A]
            output += repeatElement(0x20, count: indent)
        }
        output.append(close.asciiValue!)
    }
}

/// The order Xcode writes a catalog's keys in: as Finder sorts names —
/// letters without regard to case, runs of digits by their number — and
/// by bytes where that finds them equal.
public enum XcodeOrder {
    public static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        var left = lhs.unicodeScalars.makeIterator(), right = rhs.unicodeScalars.makeIterator()
        var a = left.next(), b = right.next()
        while let x = a, let y = b {
            if x.properties.numericType == .decimal, y.properties.numericType == .decimal, x.isASCII, y.isASCII {
                var first = "", second = ""
                while let digit = a, digit.isASCII, digit.properties.numericType == .decimal { first.unicodeScalars.append(digit); a = left.next() }
                while let digit = b, digit.isASCII, digit.properties.numericType == .decimal { second.unicodeScalars.append(digit); b = right.next() }
                let trimmedFirst = first.drop { $0 == "0" }, trimmedSecond = second.drop { $0 == "0" }
                if trimmedFirst.count != trimmedSecond.count { return trimmedFirst.count < trimmedSecond.count }
                if trimmedFirst != trimmedSecond { return trimmedFirst < trimmedSecond }
                continue
            }
            let foldedX = x.properties.lowercaseMapping, foldedY = y.properties.lowercaseMapping
            if foldedX != foldedY { return foldedX.unicodeScalars.lexicographicallyPrecedes(foldedY.unicodeScalars) { $0.value < $1.value } }
            a = left.next()
            b = right.next()
        }
        if (a == nil) != (b == nil) { return a == nil }
        return Array(lhs.utf8).lexicographicallyPrecedes(Array(rhs.utf8))
    }
}
