/// Whether a request may use an emulator's administration endpoints (Firestore rules upload and
/// clear, the hub's export, the RTDB `.settings`), judged by its `Origin`.
///
/// Those endpoints need no credentials, and the CORS policy lets every origin through so that web
/// apps served from any dev server can use the SDKs. Without this check any page the user visits
/// could, through their browser, replace rules or wipe data. Browsers always send `Origin` on
/// cross-origin requests (and on every POST, PUT and DELETE), and a page cannot forge it; tools,
/// SDKs and scripts outside a browser send none. So a request passes when it has no `Origin` or
/// one on a loopback host (`localhost`, `*.localhost`, `127.0.0.0/8`, `[::1]`: the user's own dev
/// servers, test runners and the Emulator UI), and is refused otherwise (including `null`, the
/// origin of sandboxed frames and `file:` pages).
///
/// A separate seam from ``CORSPolicy`` on purpose: CORS decides what a page may read, this decides
/// what it may change.
///
/// ```swift
/// AdminOriginCheck.permits(request)   // false for `Origin: https://evil.example`
/// ```
package enum AdminOriginCheck {
    /// The message of the 403 answering a refused request.
    package static let refusal = "Emulator administration endpoints only accept requests from loopback origins."

    /// Whether `request` may use an administration endpoint.
    package static func permits(_ request: HTTPRequest) -> Bool {
        guard let origin = request.headers["Origin"] else { return true }
        return isLoopbackOrigin(origin)
    }

    /// Whether `origin` (`scheme://host[:port]`) is an http(s) origin on a loopback host.
    package static func isLoopbackOrigin(_ origin: String) -> Bool {
        let lower = origin.lowercased()
        let rest: Substring
        if lower.hasPrefix("http://") {
            rest = lower.dropFirst(7)
        } else if lower.hasPrefix("https://") {
            rest = lower.dropFirst(8)
        } else {
            return false
        }
        // An origin has no path, query, user info or fragment.
        guard !rest.isEmpty, !rest.contains(where: { "/?#@ \\".contains($0) }) else { return false }
        var host = rest
        if host.first == "[" {
            guard let close = host.firstIndex(of: "]") else { return false }
            let after = host[host.index(after: close)...]
            guard after.isEmpty || (after.first == ":" && isPort(after.dropFirst())) else { return false }
            return host[host.index(after: host.startIndex)..<close] == "::1"
        }
        if let colon = host.lastIndex(of: ":") {
            guard isPort(host[host.index(after: colon)...]) else { return false }
            host = host[..<colon]
        }
        if host == "localhost" || host.hasSuffix(".localhost") { return host.count > ".localhost".count || host == "localhost" }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { octet in
            !octet.isEmpty && octet.count <= 3 && octet.allSatisfy(\.isASCIIDigit) && (Int(octet) ?? 256) <= 255
        }
    }

    private static func isPort(_ text: Substring) -> Bool {
        !text.isEmpty && text.count <= 5 && text.allSatisfy(\.isASCIIDigit)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
