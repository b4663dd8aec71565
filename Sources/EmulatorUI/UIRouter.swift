package import EmulatorHTTP
import EmulatorSupport
import SecurityRules

/// The Emulator UI's port: the page and its assets, and a few JSON endpoints the page needs
/// that no emulator answers. The page talks to the emulators themselves over their own REST
/// and SSE APIs with the owner credential.
///
/// - `GET /`, `/firestore…`, `/database…`, `/logs…` → the page (the script draws the view
///   the path names, so the banner's links `http://127.0.0.1:4000/firestore` work).
/// - `GET /assets/{app.js, app.css, icon.svg}`.
/// - `GET /api/config` → `{"projectId", "experiments": [], <name>: {listen, name, host, port, pid}, …}`,
///   the shape the official UI server gives its page.
/// - `GET /api/logs?after=n` → the log lines numbered above `n` (``UILogBook``);
///   `DELETE /api/logs` clears them.
/// - `GET /api/requests?after=n`, `GET /api/requests/{seq}`, `DELETE /api/requests`: the rules
///   decisions of both emulators (``UIRequests``).
///
/// Any request that is not `GET`/`HEAD` must carry an `Origin` that is one of the UI's own
/// (403 otherwise), so no other web page can change anything through the user's browser. The
/// UI port answers no CORS: other origins cannot read it either.
package enum UIRouter {
    package static func make(_ environment: UIEnvironment) -> Router {
        var router = Router()
        let page = asset(UIAsset.page)
        for route in ["/", "/firestore", "/firestore/*", "/database", "/database/*", "/logs", "/logs/*", "/requests", "/requests/*"] {
            router.add(.get, route) { _ in page }
            router.add(.head, route) { _ in page }
        }
        for file in UIAsset.all {
            let response = asset(file)
            router.add(.get, file.path) { _ in response }
            // Browsers ask for /favicon.ico whatever the page says.
            if file.path == "/assets/icon.svg" { router.add(.get, "/favicon.ico") { _ in response } }
        }
        router.add(.get, "/api/config") { _ in json(config(environment)) }
        router.add(.get, "/api/logs") { request in
            let after = request.query("after").flatMap { Int($0) } ?? 0
            return json(UILogBook.document(environment.logs.lines(after: after)))
        }
        router.add(.delete, "/api/logs") { _ in
            environment.logs.clear()
            return json(.object([JSONMember("cleared", .bool(true))]))
        }
        router.add(.get, "/api/requests") { request in
            let after = request.query("after").flatMap { Int($0) } ?? 0
            let limit = request.query("limit").flatMap { Int($0) }.map { min(max($0, 0), 1_000) } ?? 1_000
            return json(UIRequests.page(environment.requests, after: after, limit: limit))
        }
        router.add(.get, "/api/requests/*") { request in
            guard let text = request.rawPath.split(separator: "/").last, let sequence = Int(text),
                let record = environment.requests?.record(sequence)
            else {
                return json(.object([JSONMember("error", .string("That request is no longer kept."))]), status: .notFound)
            }
            return json(UIRequests.detail(record))
        }
        router.add(.delete, "/api/requests") { _ in
            environment.requests?.clear()
            return json(.object([JSONMember("cleared", .bool(true))]))
        }
        router.setFallback { request in
            json(.object([JSONMember("error", .string("Not found: \(request.rawPath)"))]), status: .notFound)
        }
        return router
    }

    /// The router's handler with the origin check in front (see the type's documentation).
    package static func handler(_ environment: UIEnvironment) -> HTTPHandler {
        let router = make(environment)
        return { request in
            if !isSafe(request.method) {
                guard isOwnOrigin(request, environment) else {
                    return json(
                        .object([JSONMember("error", .string(forbiddenMessage))]), status: .forbidden)
                }
            }
            return router.respond(to: request)
        }
    }

    /// Whether the request's `Origin` is the UI's: one of the addresses it listens on, or (the
    /// UI bound to a wildcard and opened through another address) the `Host` it was sent to,
    /// when that host is an IP address or `localhost`. A name that only resolves to this machine
    /// (DNS rebinding) is not enough.
    static func isOwnOrigin(_ request: HTTPRequest, _ environment: UIEnvironment) -> Bool {
        guard let origin = request.headers["Origin"] else { return false }
        if environment.ownOrigins().contains(origin) { return true }
        guard let host = request.headers["Host"], origin == "http://" + host else { return false }
        var name = Substring(host)
        if name.hasPrefix("[") { return true }  // an IPv6 literal
        if let colon = name.lastIndex(of: ":") { name = name[..<colon] }
        if name == "localhost" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.allSatisfy { UInt8($0) != nil }
    }

    /// What a request from another origin (or none) that would change state gets.
    package static let forbiddenMessage = "Only the Emulator UI's own pages may change data through this port."

    /// `/api/config`: the project and every running listener, as the hub lists them.
    static func config(_ environment: UIEnvironment) -> JSONValue {
        var members = [
            JSONMember("projectId", .string(environment.projectId)),
            JSONMember("experiments", .array([])),
        ]
        if case .object(let running) = environment.emulators() { members += running }
        return .object(members)
    }

    private static func isSafe(_ method: HTTPMethod) -> Bool {
        method == .get || method == .head
    }

    private static func asset(_ asset: UIAsset) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", asset.contentType)
        headers.add("Cache-Control", "no-cache")
        headers.add("X-Content-Type-Options", "nosniff")
        if asset.contentType.hasPrefix("text/html") {
            // Scripts and styles only from this port; the page fetches from the emulators' ports.
            headers.add(
                "Content-Security-Policy",
                "default-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self' http: https: ws: wss:; img-src 'self' data: blob:; frame-ancestors 'none'")
            headers.add("X-Frame-Options", "DENY")
        }
        return HTTPResponse(status: .ok, headers: headers, body: asset.bytes)
    }

    private static func json(_ value: JSONValue, status: HTTPStatus = .ok) -> HTTPResponse {
        var response = HTTPResponse.json(JSONWriter.encode(value), status: status)
        response.headers.add("Cache-Control", "no-store")
        return response
    }
}
