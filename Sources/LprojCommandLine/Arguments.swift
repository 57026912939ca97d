/// A command line split into options and operands by a declared grammar:
/// `--name value`, `--name=value`, flags without values, `--` ending options.
/// Anything not declared is a usage error naming the argument.
public struct Arguments: Sendable {
    /// Operands in order.
    public private(set) var operands: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// Parses `arguments` (without the program and subcommand names).
    /// `flags` take no value; `options` take one and may repeat. Short
    /// aliases map `-h` to a long name.
    public init(_ arguments: [String], flags: Set<String> = [], options: Set<String> = [],
                aliases: [String: String] = ["-h": "--help"]) throws(UsageError) {
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            var argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                operands.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            argument = aliases[argument] ?? argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                inlineValue = String(argument[argument.index(after: equals)...])
                argument = String(argument[..<equals])
            }
            let name = String(argument.drop { $0 == "-" })
            if flags.contains(name) {
                guard inlineValue == nil else { throw UsageError("option '--\(name)' takes no value") }
                self.flags.insert(name)
            } else if options.contains(name) {
                if let inlineValue {
                    values[name, default: []].append(inlineValue)
                } else {
                    guard index < arguments.count else { throw UsageError("option '--\(name)' needs a value") }
                    values[name, default: []].append(arguments[index])
                    index += 1
                }
            } else {
                throw UsageError("unknown option '\(argument)'")
            }
        }
    }

    /// Whether the flag `name` (without dashes) was given.
    public func has(_ name: String) -> Bool { flags.contains(name) }

    /// The last value given for option `name`.
    public func value(_ name: String) -> String? { values[name]?.last }

    /// Every value given for option `name`, in order.
    public func values(_ name: String) -> [String] { values[name] ?? [] }
}

/// A command line that does not fit the grammar: exit status 2.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
