/// JSON form of entries, used by `lprojctl dump` and the wire protocol.
///
/// A plain string entry (no state, or `translated`) is a bare JSON string.
/// Any other entry is an object:
/// `{"value": V, "substitutions": {name: {"argNum", "formatSpecifier",
/// "variations": V}}, "state": "translated"}` where `V` is a string,
/// `{"plural": {category: V}}` or `{"device": {device: V}}`.
extension Entry: Codable {
    private enum CodingKeys: String, CodingKey {
        case value, substitutions, state
    }

    public init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            self.init(text: text)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(value: try container.decode(Variants.self, forKey: .value),
                  substitutions: try container.decodeIfPresent([String: Substitution].self, forKey: .substitutions) ?? [:],
                  state: try container.decodeIfPresent(TranslationState.self, forKey: .state))
    }

    public func encode(to encoder: any Encoder) throws {
        if let text, state == nil || state == .translated {
            var container = encoder.singleValueContainer()
            try container.encode(text)
            return
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
        if !substitutions.isEmpty { try container.encode(substitutions, forKey: .substitutions) }
        try container.encodeIfPresent(state, forKey: .state)
    }
}

extension Variants: Codable {
    private enum CodingKeys: String, CodingKey {
        case plural, device
    }

    public init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            self = .text(text)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let forms = try container.decodeIfPresent([String: Variants].self, forKey: .plural) {
            self = .plural(forms)
        } else if let forms = try container.decodeIfPresent([String: Variants].self, forKey: .device) {
            self = .device(forms)
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "expected a string, {\"plural\": …} or {\"device\": …}"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .text(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .plural(let forms):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(forms, forKey: .plural)
        case .device(let forms):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(forms, forKey: .device)
        }
    }
}

extension TranslationState: Codable {}

extension Entry {
    /// The same JSON form as plain values — `String`, `Int` and dictionaries
    /// of them — for a caller building a larger JSON answer without encoding
    /// and decoding each entry (a test holds it equal to the encoder's).
    public var jsonValue: Any {
        if let text, state == nil || state == .translated { return text }
        var object: [String: Any] = ["value": value.jsonValue]
        if !substitutions.isEmpty {
            object["substitutions"] = substitutions.mapValues { substitution -> Any in
                var fields: [String: Any] = ["variations": substitution.variants.jsonValue]
                if let number = substitution.argumentNumber { fields["argNum"] = number }
                if let specifier = substitution.formatSpecifier { fields["formatSpecifier"] = specifier }
                return fields
            }
        }
        if let state { object["state"] = state.rawValue }
        return object
    }
}

extension Variants {
    /// `jsonValue` of a variation: a string, or `{"plural" | "device": {name: V}}`.
    public var jsonValue: Any {
        switch self {
        case .text(let text): return text
        case .plural(let forms): return ["plural": forms.mapValues(\.jsonValue)]
        case .device(let forms): return ["device": forms.mapValues(\.jsonValue)]
        }
    }
}
