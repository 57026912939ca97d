import SwiftUI

struct Home: View {
    let count: Int

    var body: some View {
        VStack {
            Text("Welcome", comment: "The first screen's title")
            Text("Inbox")
            Text(verbatim: "not localized")
            // Text("commented out")
            Button(String(localized: "compose.button", defaultValue: "Write a message", comment: "Starts a new message")) {}
        }
    }
}
