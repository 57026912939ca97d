extension Ack {
    /// An `ack` line read in one pass, without `JSONSerialization` or
    /// `JSONDecoder`: a daemon with a thousand acknowledging clients reads a
    /// thousand of them after every save. Only the plain form is taken —
    /// members `id` (an integer or a plain string), `op` (`"ack"`), `bundle`
    /// (a plain string) and `generation` (a non-negative integer), each once,
    /// nothing else —; anything else gives nil, for the general path to read
    /// (and to explain).
    public static func scanned(_ line: [UInt8]) -> (id: RequestID, ack: Ack)? {
        var scanner = Wire.Scanner(bytes: line)
        var id: RequestID?, op: String?, bundle: String?, generation: Int64?
        guard scanner.skipSpace(), scanner.take(UInt8(ascii: "{")), scanner.skipSpace() else { return nil }
        while true {
            guard let key = scanner.plainString(), scanner.skipSpace(), scanner.take(UInt8(ascii: ":")), scanner.skipSpace() else { return nil }
            switch key {
            case "id" where id == nil:
                if let number = scanner.integer() { id = .number(number) } else if let text = scanner.plainString() { id = .string(text) } else { return nil }
            case "op" where op == nil:
                op = scanner.plainString()
                guard op == Ack.op else { return nil }
            case "bundle" where bundle == nil:
                guard let text = scanner.plainString() else { return nil }
                bundle = text
            case "generation" where generation == nil:
                guard let number = scanner.integer(), number >= 0 else { return nil }
                generation = number
            default:
                return nil
            }
            scanner.skipSpace()
            if scanner.take(UInt8(ascii: "}")) { break }
            guard scanner.take(UInt8(ascii: ",")), scanner.skipSpace() else { return nil }
        }
        scanner.skipSpace()
        guard scanner.atEnd, let id, op != nil, let bundle, let generation else { return nil }
        return (id, Ack(bundle: bundle, generation: UInt64(generation)))
    }
}
