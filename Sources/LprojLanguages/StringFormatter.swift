import Foundation
import LprojTables
import Synchronization

/// printf-style formatting the way `String.localizedStringWithFormat` does
/// it, plus the `%#@variable@` substitutions of `.stringsdict` entries and
/// String Catalog variations.
///
/// Specifiers: `%@ %d %i %u %x %X %o %c %C %s %S %f %F %e %E %g %G %a %A %%`
/// with flags, width, precision and length modifiers (`%ld %lld %lu %.2f
/// %5d %-5d`), and positional arguments (`%1$@ %2$d`). Numbers are written
/// for the formatter's locale (`1,000` in English, `1.000` in German).
/// Arguments are normalised first (every integer to 64 bits), so a `%d`
/// given an `Int` beyond 32 bits prints right instead of reading half of it;
/// an argument missing for a specifier leaves the specifier as written, and
/// one of the wrong kind is printed as text: never a crash.
public struct StringFormatter: Sendable {
    /// The language plural rules follow (BCP 47).
    public let language: String
    /// The locale numbers are written in.
    public let locale: Locale

    public init(language: String) {
        self.language = language
        self.locale = Locale(identifier: language)
    }

    /// The formatter for a localization's texts (`zh-Hant`, nil: none):
    /// its language tag's, English when it has none. Made once per
    /// localization in a process and kept — a live bundle makes its views
    /// anew on every save, and parsing the tag and making a `Locale` cost
    /// more than the rest of a view.
    public static func forLocalization(_ localization: String?) -> StringFormatter {
        let name = localization ?? ""
        if let kept = kept.withLock({ $0[name] }) { return kept }
        let made = StringFormatter(language: localization.flatMap { LanguageTag($0)?.identifier } ?? "en")
        return kept.withLock { kept in
            // Localizations are few; a process that meets very many starts over rather than grow.
            if kept.count >= 256 { kept.removeAll() }
            kept[name] = made
            return made
        }
    }

    private static let kept = Mutex<[String: StringFormatter]>([:])

    /// `format` with `arguments` substituted.
    public func string(format: String, arguments: [any CVarArg]) -> String {
        var context = Context(arguments: arguments.map(Argument.init), substitutions: [:])
        return render(format, context: &context, variable: nil)
    }

    /// The text of `entry` for `arguments`: its variants chosen by the
    /// arguments (plural category, device), its substitutions filled in.
    public func string(for entry: Entry, arguments: [any CVarArg]) -> String {
        var context = Context(arguments: arguments.map(Argument.init), substitutions: entry.substitutions)
        let text = choose(entry.value, for: context.arguments.first)
        return render(text, context: &context, variable: nil)
    }

    // MARK: - Arguments

    /// An argument, normalised from whatever `CVarArg` it came as.
    enum Argument {
        case integer(Int64)
        case unsigned(UInt64)
        case double(Double)
        case text(String)

        init(_ value: any CVarArg) {
            switch value {
            case let value as Int: self = .integer(Int64(value))
            case let value as Int8: self = .integer(Int64(value))
            case let value as Int16: self = .integer(Int64(value))
            case let value as Int32: self = .integer(Int64(value))
            case let value as Int64: self = .integer(value)
            case let value as UInt: self = .unsigned(UInt64(value))
            case let value as UInt8: self = .unsigned(UInt64(value))
            case let value as UInt16: self = .unsigned(UInt64(value))
            case let value as UInt32: self = .unsigned(UInt64(value))
            case let value as UInt64: self = .unsigned(value)
            case let value as Double: self = .double(value)
            case let value as Float: self = .double(Double(value))
            case let value as String: self = .text(value)
            case let value as NSString: self = .text(value as String)
            case let value as NSNumber: self = .double(value.doubleValue)
            default: self = .text(String(describing: value))
            }
        }

        var number: Double? {
            switch self {
            case .integer(let value): return Double(value)
            case .unsigned(let value): return Double(value)
            case .double(let value): return value
            case .text(let value): return Double(value)
            }
        }

        var isWholeNumber: Bool {
            switch self {
            case .integer, .unsigned: return true
            case .double, .text: return false
            }
        }
    }

    private struct Context {
        var arguments: [Argument]
        var substitutions: [String: Substitution]
        var nextArgument = 0
    }

    // MARK: - Rendering

    /// Renders `format`. Inside a variable's chosen form (`variable` set),
    /// unnumbered specifiers start at the variable's own argument and
    /// `%arg` stands for it.
    private func render(_ format: String, context: inout Context, variable: (index: Int, specifier: String?, written: String)?) -> String {
        var output = ""
        var scalars = format.unicodeScalars[...]
        var sequential = variable?.index ?? context.nextArgument
        while let percent = scalars.firstIndex(of: "%") {
            output.unicodeScalars.append(contentsOf: scalars[..<percent])
            scalars = scalars[scalars.index(after: percent)...]
            if let variable, scalars.starts(with: "arg".unicodeScalars) {
                scalars = scalars.dropFirst(3)
                output += formatted(Specifier(conversion: Character(variable.specifier?.last.map(String.init) ?? "@"),
                                              length: ""), context.arguments[safe: variable.index], written: variable.written)
                continue
            }
            guard let specifier = Specifier.parse(&scalars) else {
                output += "%"
                continue
            }
            if specifier.conversion == "%" {
                output += "%"
                continue
            }
            let index: Int
            if let position = specifier.position {
                index = position - 1
            } else {
                index = sequential
                sequential += 1
            }
            if let name = specifier.variableName {
                output += substitute(name, argumentIndex: index, context: &context)
            } else {
                output += formatted(specifier, context.arguments[safe: index], written: specifier.written)
            }
        }
        output.unicodeScalars.append(contentsOf: scalars)
        if variable == nil { context.nextArgument = sequential }
        return output
    }

    /// The chosen form of variable `name`, rendered with its argument.
    private func substitute(_ name: String, argumentIndex: Int, context: inout Context) -> String {
        guard let substitution = context.substitutions[name] else { return "%#@\(name)@" }
        let index = substitution.argumentNumber.map { $0 - 1 } ?? argumentIndex
        let form = choose(substitution.variants, for: context.arguments[safe: index])
        return render(form, context: &context, variable: (index, substitution.formatSpecifier, substitution.argumentSpecifier))
    }

    /// Picks the variant for `argument`: its plural category, the device `other`.
    private func choose(_ variants: Variants, for argument: Argument?) -> String {
        switch variants {
        case .text(let text):
            return text
        case .plural(let forms):
            var category = PluralCategory.other
            if let argument, let number = argument.number {
                category = PluralCategory(number, language: language, fractionDigits: argument.isWholeNumber ? 0 : nil)
            }
            let form = forms[category.rawValue] ?? forms["other"]
                ?? PluralCategory.allCases.reversed().lazy.compactMap { forms[$0.rawValue] }.first
            return form.map { choose($0, for: argument) } ?? ""
        case .device(let forms):
            let form = forms["other"] ?? forms["mac"] ?? forms.min { $0.key < $1.key }?.value
            return form.map { choose($0, for: argument) } ?? ""
        }
    }

    /// One specifier applied to one argument.
    private func formatted(_ specifier: Specifier, _ argument: Argument?, written: String) -> String {
        guard let argument else { return written }
        let conversion = specifier.conversion
        switch conversion {
        case "@", "s", "S":
            let text: String
            switch argument {
            case .text(let value): text = value
            case .integer(let value): text = String(value)
            case .unsigned(let value): text = String(value)
            case .double(let value): text = String(value)
            }
            return specifier.pad(text)
        case "d", "i", "u", "x", "X", "o", "c", "C":
            let cFormat = "%" + specifier.flags + specifier.width + specifier.precision + "ll" + (conversion == "i" ? "d" : String(conversion))
            switch argument {
            case .integer(let value):
                if conversion == "c" || conversion == "C" { return specifier.pad(Unicode.Scalar(UInt32(truncatingIfNeeded: value)).map { String($0) } ?? "") }
                return String(format: cFormat, locale: locale, value)
            case .unsigned(let value):
                if conversion == "c" || conversion == "C" { return specifier.pad(Unicode.Scalar(UInt32(truncatingIfNeeded: value)).map { String($0) } ?? "") }
                return String(format: cFormat, locale: locale, value)
            case .double(let value):
                guard value.isFinite, let whole = Int64(exactly: value.rounded(.towardZero)) else { return specifier.pad(String(value)) }
                return String(format: cFormat, locale: locale, whole)
            case .text(let value):
                guard let whole = Int64(value) else { return specifier.pad(value) }
                return String(format: cFormat, locale: locale, whole)
            }
        default:
            // Floating point: f F e E g G a A.
            guard let value = argument.number else { return specifier.pad(String(describing: argument)) }
            let cFormat = "%" + specifier.flags + specifier.width + specifier.precision + String(conversion)
            return String(format: cFormat, locale: locale, value)
        }
    }
}

/// One `%` specifier: `%[n$][flags][width][.precision][length]conversion`,
/// or `%[n$]#@name@`.
struct Specifier {
    var position: Int?
    var flags = ""
    var width = ""
    var precision = ""
    var length: String
    var conversion: Character
    var variableName: String?
    var written = ""

    init(conversion: Character, length: String) {
        self.conversion = conversion
        self.length = length
    }

    /// Parses after the `%`; on success `scalars` moves past the specifier.
    static func parse(_ scalars: inout Substring.UnicodeScalarView) -> Specifier? {
        var cursor = scalars
        func take(while predicate: (Unicode.Scalar) -> Bool) -> String {
            var taken = ""
            while let scalar = cursor.first, predicate(scalar) {
                taken.unicodeScalars.append(scalar)
                cursor = cursor.dropFirst()
            }
            return taken
        }
        let digits: (Unicode.Scalar) -> Bool = { $0.properties.numericType == .decimal && $0.isASCII }
        var position: Int?
        let leading = take(while: digits)
        if !leading.isEmpty {
            if cursor.first == "$" {
                cursor = cursor.dropFirst()
                position = Int(leading)
                guard let position, position >= 1 else { return nil }
            } else {
                cursor = scalars
            }
        }
        let flags = take(while: { "-+ #0'".unicodeScalars.contains($0) })
        if flags.contains("#"), cursor.first == "@" {
            cursor = cursor.dropFirst()
            let name = take(while: { $0 != "@" })
            guard cursor.first == "@", !name.isEmpty else { return nil }
            cursor = cursor.dropFirst()
            var specifier = Specifier(conversion: "@", length: "")
            specifier.position = position
            specifier.variableName = name
            scalars = cursor
            return specifier
        }
        let width = take(while: digits)
        var precision = ""
        if cursor.first == "." {
            cursor = cursor.dropFirst()
            precision = "." + take(while: digits)
        }
        let length = take(while: { "hlqLztj".unicodeScalars.contains($0) })
        guard let conversion = cursor.first, "@dDiuUxXoOcCsSfFeEgGaA%".unicodeScalars.contains(conversion) else { return nil }
        cursor = cursor.dropFirst()
        var specifier = Specifier(conversion: Character(conversion == "D" ? "d" : conversion == "U" ? "u" : conversion == "O" ? "o" : conversion),
                                  length: length)
        specifier.position = position
        specifier.flags = flags.replacingOccurrences(of: "'", with: "")
        specifier.width = width
        specifier.precision = precision
        specifier.written = "%" + String(String.UnicodeScalarView(scalars[scalars.startIndex..<cursor.startIndex]))
        scalars = cursor
        return specifier
    }

    /// `text` padded to the width, left-aligned with the `-` flag.
    func pad(_ text: String) -> String {
        guard let width = Int(width), text.count < width else { return text }
        let padding = String(repeating: " ", count: width - text.count)
        return flags.contains("-") ? text + padding : padding + text
    }
}

extension Array {
    subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
