import Foundation

/// Who may use the studio, decided per request before anything else: a
/// server that writes files answers only its token (an `Authorization:
/// Bearer` header, or the cookie the page sets from `?token=`), only under
/// its own host names (DNS rebinding), and changes state only for its own
/// origin (CSRF). Every answer carries a strict Content-Security-Policy.
public struct StudioAccess: Sendable {
    /// The secret printed with the address.
    public let token: String
    /// `host:port` names the server answers to.
    public let hosts: Set<String>
    /// The origins allowed to change state (`http://` + each host).
    public var origins: Set<String> { Set(hosts.map { "http://" + $0 }) }

    /// The policy of a server listening on `address`:`port`, with a new random token.
    public init(address: String, port: UInt16, token: String = StudioAccess.newToken()) {
        self.token = token
        let bracketed = address.contains(":") ? "[\(address)]" : address
        var hosts: Set<String> = ["\(bracketed):\(port)", "localhost:\(port)"]
        if address == "127.0.0.1" || address == "::1" { hosts.formUnion(["127.0.0.1:\(port)", "[::1]:\(port)"]) }
        self.hosts = hosts
    }

    /// 32 hex digits from the system's random source.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let digits = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    /// Headers every answer carries.
    public static let securityHeaders: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
            + "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Cache-Control", "no-store"),
    ]

    /// How a request may proceed.
    public enum Verdict: Equatable, Sendable {
        case allowed
        /// The page asked with `?token=`: set the cookie, then go on.
        case allowedSettingCookie
        case refused(status: Int, field: String, message: String)
    }

    /// The verdict on `request`.
    public func check(_ request: HTTPRequest) -> Verdict {
        guard let host = request.headers["host"], hosts.contains(host.lowercased()) else {
            return .refused(status: 403, field: "Host", message: "this server answers only to \(hosts.sorted().joined(separator: ", "))")
        }
        let bearer = request.headers["authorization"].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        let authenticated: Verdict
        if let bearer, Self.equal(bearer, token) {
            authenticated = .allowed
        } else if let cookie = request.cookie, Self.equal(cookie, token) {
            authenticated = .allowed
        } else if let asked = request.query["token"], Self.equal(asked, token), request.method == "GET", request.path == "/" {
            // Only the page's first load takes it (then it is a cookie): a token in an API address would end up in logs and histories.
            authenticated = .allowedSettingCookie
        } else {
            return .refused(status: 401, field: "Authorization", message: "the studio's token is needed (open the address lprojctl studio printed)")
        }
        if !["GET", "HEAD"].contains(request.method) {
            // A cookie rides along with a foreign page's request; a Bearer header cannot. A state change by cookie needs our Origin.
            if let origin = request.headers["origin"] {
                guard origins.contains(origin.lowercased()) else {
                    return .refused(status: 403, field: "Origin", message: "a change from \(origin) is refused")
                }
            } else if bearer == nil {
                return .refused(status: 403, field: "Origin", message: "a change needs the Origin header of this studio's page")
            }
        }
        return authenticated
    }

    /// The cookie that keeps the token for the page's later requests.
    /// How long a browser keeps the cookie: the token is kept across runs (`StudioSettings`), so a bookmark opens without it for a month.
    static let cookieLifetime = 30 * 24 * 3600

    public var cookieHeader: (String, String) {
        ("Set-Cookie", "\(HTTPServer.cookieName)=\(token); Path=/; Max-Age=\(Self.cookieLifetime); HttpOnly; SameSite=Strict")
    }

    /// Compares in time that does not depend on where they differ.
    private static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
