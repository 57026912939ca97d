/// The studio's page, script and style, served from the binary: plain HTML,
/// CSS and JavaScript, no build step, nothing loaded from the network. The
/// script (`StudioAssets.script`) puts every value on the page as text
/// (`textContent`), never as markup, and talks only to the JSON API.
enum StudioAssets {
    struct File {
        var type: String
        var text: String
    }

    static let files: [String: File] = [
        "/index.html": File(type: "text/html; charset=utf-8", text: page),
        "/studio.js": File(type: "text/javascript; charset=utf-8", text: script),
        "/studio.css": File(type: "text/css; charset=utf-8", text: style),
        "/favicon.svg": File(type: "image/svg+xml", text: icon),
        "/favicon.ico": File(type: "image/svg+xml", text: icon),
    ]

    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0a64d8"/>\
        <text x="8" y="12" font-size="10" text-anchor="middle" fill="#fff" font-family="sans-serif">L</text></svg>

        """
}
