import Foundation
import LprojClient
import LprojCommandLine

/// The demo's one screen and its loop: keys from the terminal, redraws when
/// the bundle changes (the change handler only wakes the loop; drawing
/// happens on the loop's thread, so frames never interleave).
final class DemoScreen {
    private let bundle: LiveBundle
    private let name: String
    private let plain: Bool
    private var count = 1
    private let wake = Interrupter()
    private var original = termios()
    private var tokens: [ObservationToken] = []

    init(bundle: LiveBundle, name: String, plain: Bool) {
        self.bundle = bundle
        self.name = name
        self.plain = plain
    }

    func run() -> Never {
        let wake = wake
        tokens = [bundle.observe { _ in wake.interrupt() }, bundle.observeConnection { _ in wake.interrupt() }]
        if !plain { enterRawMode() }
        draw()
        var pending: [UInt8] = []
        while true {
            var polls = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                         pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)]
            guard poll(&polls, 2, -1) >= 0 || errno == EINTR else { quit(1) }
            if polls[1].revents != 0 {
                wake.drain()
                draw()
            }
            guard polls[0].revents != 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            if count <= 0 { quit(0) }
            pending += buffer.prefix(count)
            // Raw mode: every byte is a key. Plain mode: one key per line.
            while let key = pending.first {
                pending.removeFirst()
                if key == 0x0A || key == 0x0D || key == 0x20 { continue }
                handle(key)
            }
        }
    }

    private func handle(_ key: UInt8) {
        switch key {
        case UInt8(ascii: "q"), 0x03, 0x04: quit(0)
        case UInt8(ascii: "+"): count += 1; draw()
        case UInt8(ascii: "-"): count = max(0, count - 1); draw()
        case UInt8(ascii: "0"): select("system")
        case UInt8(ascii: "1")...UInt8(ascii: "9"):
            let choices = bundle.localizations.filter { $0 != "Base" }
            let index = Int(key - UInt8(ascii: "1"))
            if index < choices.count { select(choices[index]) }
        default: break
        }
    }

    private func select(_ language: String) {
        do { try bundle.setLanguage(language) } catch { status = error.description }
        // The change (if any) wakes the loop, which redraws.
    }

    private var status: String?

    /// One frame from one view: a save or a switch between two lookups never mixes two states on screen.
    private func draw() {
        let b = bundle.current
        let tabs = ["tab_home", "tab_subscription", "tab_mine"].map { "[ \(b.localizedString(forKey: $0, value: nil, table: nil)) ]" }
        let languages = bundle.localizations.filter { $0 != "Base" }.enumerated().map { "\($0.offset + 1) \($0.element)" }
        let selection = bundle.selectedLanguage == nil ? "system" : "selected"
        let direction = b.layoutDirection == .rightToLeft ? ", right-to-left" : ""
        var lines = [
            "lproj-demo — \(bundle.app ?? "")   language: \(b.language ?? "none") (\(selection)\(direction))",
            "",
            "  " + b.localizedString(forKey: "home_title", value: nil, table: nil),
            "  " + b.localizedString(format: "welcome_message", name),
            "  " + b.localizedString(format: "item_count", count),
            "  " + b.localizedString(format: "today_label", b.string(from: Date(), dateStyle: .long)),
            "  " + b.localizedString(format: "diamonds_label", b.string(from: 1000)),
            "",
            "  " + tabs.joined(separator: " "),
            "",
            "keys: " + languages.joined(separator: "  ") + "  0 system   +/- count   q quit",
            bundle.isConnected ? "following lprojd" : "files on disk (no lprojd)",
        ]
        if let status { lines.append(status) }
        if plain {
            Console.out((["---"] + lines).joined(separator: "\n"))
        } else {
            // Home, clear, then each line with its end cleared.
            Console.write("\u{1B}[H\u{1B}[2J" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\r\n", to: STDOUT_FILENO)
        }
    }

    private func enterRawMode() {
        guard isatty(STDIN_FILENO) != 0 else { return }
        tcgetattr(STDIN_FILENO, &original)
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        Console.write("\u{1B}[?1049h\u{1B}[?25l", to: STDOUT_FILENO)   // alternate screen, hide cursor
    }

    private func quit(_ status: Int32) -> Never {
        if !plain && isatty(STDIN_FILENO) != 0 {
            tcsetattr(STDIN_FILENO, TCSANOW, &original)
            Console.write("\u{1B}[?25h\u{1B}[?1049l", to: STDOUT_FILENO)
        }
        exit(status)
    }
}
