/// The places in Swift source where a string literal is given a localizable
/// type — `LocalizedStringKey`, `LocalizedStringResource`,
/// `String.LocalizationValue` and the App Intents types made from them —
/// and so is extracted by Xcode: an argument of an API that takes one, as
/// Apple's documented signatures declare it, one line each.
///
/// A position is written `NAME:LABEL`: `Button:_` is `Button`'s first
/// unlabelled argument (`Button("Save") { … }`), `.navigationTitle:_` the
/// modifier's (`.navigationTitle("Settings")`), `@Parameter:title` the
/// property wrapper's (`@Parameter(title: "Name")`), `searchable:prompt`
/// a labelled one. A NAME without `.` or `@` is a type or function called
/// by its name. Users add their own (`lprojctl catalog sync --localizable
/// NAME:LABEL`); functions and initializers the sources declare with a
/// parameter of a localizable type are found without being named.
public struct LocalizablePositions: Sendable, Equatable {
    /// Labels by callee: `Button` → `_`, `.help` → `_`, `@Parameter` → `title`, `description`.
    public private(set) var labels: [String: Set<String>] = [:]

    /// The table below.
    public static let apple: LocalizablePositions = {
        var positions = LocalizablePositions()
        for line in appleTable.split(separator: "\n") {
            let position = line.split(separator: "#", omittingEmptySubsequences: false)[0].trimmingCharacters(in: .whitespaces)
            if !position.isEmpty { try! positions.add(position) }
        }
        return positions
    }()

    public init() {}

    /// Adds `NAME:LABEL`; throws a message naming what is wrong with it.
    public mutating func add(_ position: String) throws(PositionError) {
        let parts = position.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, case let (name, label) = (String(parts[0]), String(parts[1])),
              Self.isName(name.drop { $0 == "." || $0 == "@" }), label == "_" || Self.isName(label[...]) else {
            throw PositionError(position: position)
        }
        labels[name, default: []].insert(label)
    }

    /// Whether a call of `callee` (written with its `.` or `@`) takes a localizable literal at `label` (`_`: unlabelled).
    public func takes(_ callee: String, _ label: String) -> Bool {
        labels[callee]?.contains(label) == true
    }

    /// The types that make a literal localizable where it is given one: in a declaration (`var title: LocalizedStringResource = "…"`),
    /// a return, a parameter's default value.
    public static let types: Set<String> = [
        "LocalizedStringKey", "LocalizedStringResource", "LocalizationValue", "IntentDescription", "IntentDialog",
        "DisplayRepresentation", "TypeDisplayRepresentation",
    ]

    /// A position written wrongly.
    public struct PositionError: Error, CustomStringConvertible, Sendable {
        public var position: String
        public var description: String {
            "'\(position)' is not a position: write NAME:LABEL (Button:_, .navigationTitle:_, @Parameter:title, MyView:title)"
        }
    }

    private static func isName(_ text: Substring) -> Bool {
        guard let first = text.unicodeScalars.first, first.properties.isXIDStart || first == "_" else { return false }
        return text.unicodeScalars.allSatisfy { $0.properties.isXIDContinue }
    }

    // Each from Apple's declaration: `init(_ titleKey: LocalizedStringKey, …)` is `NAME:_`.
    private static let appleTable = """
        # Foundation
        String:localized                 # String(localized: String.LocalizationValue, table:, bundle:, locale:, comment:)
        AttributedString:localized       # AttributedString(localized:…)
        LocalizedStringKey:_
        LocalizedStringResource:_        # LocalizedStringResource(_ keyAndValue: String.LocalizationValue, table:, …)
        LocalizationValue:_
        # SwiftUI views
        Text:_                           # Text(_ key: LocalizedStringKey, tableName:, bundle:, comment:)
        Label:_                          # Label(_ titleKey: LocalizedStringKey, systemImage:)
        Button:_
        Toggle:_
        Picker:_
        Section:_
        Menu:_
        Link:_
        TextField:_
        SecureField:_
        Stepper:_
        DatePicker:_
        MultiDatePicker:_
        ColorPicker:_
        ProgressView:_
        LabeledContent:_
        GroupBox:_
        DisclosureGroup:_
        NavigationLink:_
        TableColumn:_
        Tab:_
        ControlGroup:_
        ContentUnavailableView:_
        ShareLink:_
        MenuBarExtra:_
        WindowGroup:_
        Window:_
        CommandMenu:_
        # SwiftUI modifiers
        .navigationTitle:_
        .navigationSubtitle:_
        .navigationBarTitle:_
        .help:_
        .accessibilityLabel:_
        .accessibilityHint:_
        .accessibilityValue:_
        .accessibilityAction:named
        .alert:_
        .confirmationDialog:_
        .searchable:prompt
        .badge:_
        .fileDialogMessage:_
        .fileDialogConfirmationLabel:_
        # App Intents
        @Parameter:title
        @Parameter:description
        @Property:title
        IntentDescription:_
        IntentDescription:categoryName
        IntentDialog:_
        DisplayRepresentation:title
        DisplayRepresentation:subtitle
        TypeDisplayRepresentation:name
        AppShortcut:shortTitle
        .result:dialog
        """
}
