import SwiftUI

// Every form `lprojctl scan` reads (ScanTests holds it to each line and column).
struct ContentView: View {
    let name = "Ada"
    var body: some View {
        VStack {
            Text("welcome_title")
            Text(verbatim: "not_a_key")
            Text("Hello \(name)!")
            Text(LocalizedStringKey("key_from_type"))
        }
    }
}

func labels(bundle: Bundle) -> [String] {
    [
        NSLocalizedString("plain_key", comment: "A plain key"),
        NSLocalizedString(
            "multi_line_call",
            tableName: "Menu",
            comment: "A call over several lines"
        ),
        String(localized: "escaped \"quotes\" and\ttab"),
        String(localized: "menu_open", table: "Menu"),
        bundle.localizedString(forKey: "bundle_key", value: nil, table: nil),
        NSLocalizedString(#"raw "quoted" key"#, comment: ""),
        NSLocalizedString("caf\u{e9}", comment: "an escaped é"),
        NSLocalizedString("missing_key", comment: "not in the table"),
        // NSLocalizedString("commented_out", comment: "")
        /* NSLocalizedString("block_commented", comment: "") /* nested */ still a comment */
        "NSLocalizedString(\"inside_a_string\", comment: \"\")",
        """
        NSLocalizedString("inside_a_multiline_string", comment: "")
        """,
    ]
}
