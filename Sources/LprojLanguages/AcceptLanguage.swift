/// An HTTP `Accept-Language` header (RFC 9110 §12.5.4) read into
/// preferences, most wanted first, for RFC 4647 lookup through Apple's
/// matching (`LanguageMatcher`).
///
/// - Each element is a language range and an optional weight
///   (`fr-CH, fr;q=0.9, en;q=0.8, *;q=0.5`); whitespace around either is
///   allowed, tags are case-insensitive, and elements of equal weight keep
///   the header's order.
/// - `q=0` means "not this one": such ranges are `excluded` (a range
///   excludes itself and every tag below it: `en;q=0` excludes `en-GB`).
/// - `*` matches any language: lookup falls through to the development
///   localization anyway, so it adds nothing but is not junk.
/// - Junk (a range that is not a language tag, a weight that is not a
///   number from 0 to 1 with at most three decimals, `;` parameters other
///   than `q`) is ignored, element by element; at most 64 elements are read.
/// - An empty or useless header gives no preferences: the development
///   localization answers.
public struct AcceptLanguage: Sendable, Equatable {
    /// The ranges wanted, most wanted first (weights above 0; `*` left out).
    public let preferences: [String]
    /// The ranges refused (`q=0`).
    public let excluded: [String]

    /// Reads `header`.
    public init(_ header: String) {
        var weighted: [(range: String, weight: Int, order: Int)] = []
        var excluded: [String] = []
        for (order, element) in header.split(separator: ",", omittingEmptySubsequences: true).prefix(64).enumerated() {
            let parts = element.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingSpaces() }
            guard let range = parts.first.map(String.init), Self.isRange(range) else { continue }
            var weight = 1000
            var valid = true
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces() }
                guard pair.count == 2, pair[0].lowercased() == "q", let value = Self.weight(pair[1]) else {
                    valid = false
                    break
                }
                weight = value
            }
            guard valid else { continue }
            if weight == 0 { excluded.append(range.lowercased()) } else { weighted.append((range, weight, order)) }
        }
        preferences = weighted.sorted { $0.weight != $1.weight ? $0.weight > $1.weight : $0.order < $1.order }
            .map(\.range).filter { $0 != "*" }
        self.excluded = excluded
    }

    /// Whether `localization` (an `.lproj` name) is refused: a `q=0` range
    /// equals it or is a prefix of it by whole subtags.
    public func excludes(_ localization: String) -> Bool {
        guard !excluded.isEmpty else { return false }
        let tag = (LanguageTag(localization)?.identifier ?? localization).lowercased()
        return excluded.contains { range in
            range == "*" || tag == range || tag.hasPrefix(range + "-")
        }
    }

    /// `alpha{1,8}(-alphanum{1,8})*` (RFC 4647 §2.1), or `*`.
    private static func isRange(_ range: String) -> Bool {
        if range == "*" { return true }
        let subtags = range.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = subtags.first, (1...8).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return subtags.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    /// A weight (`qvalue`: `0`, `1`, `0.5`, `0.125`, `1.000`) in thousandths; nil when malformed.
    private static func weight(_ text: Substring) -> Int? {
        let pieces = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = pieces.first, whole == "0" || whole == "1" else { return nil }
        let fraction = pieces.count > 1 ? pieces[1] : ""
        guard fraction.count <= 3, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let thousandths = Int(fraction.padding(toLength: 3, withPad: "0", startingAt: 0)) ?? 0
        let value = (whole == "1" ? 1000 : 0) + thousandths
        return value <= 1000 ? value : nil
    }
}

private extension Substring {
    func trimmingSpaces() -> Substring {
        let start = firstIndex { $0 != " " && $0 != "\t" } ?? endIndex
        let end = lastIndex { $0 != " " && $0 != "\t" }.map { index(after: $0) } ?? start
        return start < end ? self[start..<end] : self[start..<start]
    }
}
