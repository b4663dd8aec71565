/// Cross-origin rules for browser clients: answers preflight `OPTIONS` requests and adds
/// `Access-Control-Allow-Origin` to every response.
///
/// ```swift
/// let handler = CORSPolicy().wrap(router.respond(to:))
/// ```
package struct CORSPolicy: Sendable {
    /// Allowed origins; `nil` allows any origin (the request's `Origin` is echoed back).
    package var allowedOrigins: [String]?
    package var allowedMethods: [String]
    /// Preflight cache lifetime in seconds.
    package var maxAge: Int
    /// Whether to send `Access-Control-Allow-Credentials: true`.
    package var allowCredentials: Bool

    package init(
        allowedOrigins: [String]? = nil,
        allowedMethods: [String] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
        maxAge: Int = 86_400,
        allowCredentials: Bool = true
    ) {
        self.allowedOrigins = allowedOrigins
        self.allowedMethods = allowedMethods
        self.maxAge = maxAge
        self.allowCredentials = allowCredentials
    }

    /// The value of `Access-Control-Allow-Origin` for a request with this `Origin`, or `nil`.
    package func allowOrigin(for origin: String?) -> String? {
        guard let origin else { return allowedOrigins == nil ? "*" : nil }
        if let allowedOrigins {
            return allowedOrigins.contains(origin) ? origin : nil
        }
        return origin
    }

    /// Whether `request` is a CORS preflight (`OPTIONS` with `Access-Control-Request-Method`).
    package func isPreflight(_ request: HTTPRequest) -> Bool {
        request.method == .options && request.headers["Access-Control-Request-Method"] != nil
    }

    /// The 204 answer to a preflight request.
    package func preflightResponse(to request: HTTPRequest) -> HTTPResponse {
        var headers = HTTPHeaders()
        if let origin = allowOrigin(for: request.headers["Origin"]) {
            headers.add("Access-Control-Allow-Origin", origin)
            if origin != "*" { headers.add("Vary", "Origin") }
            if allowCredentials, origin != "*" { headers.add("Access-Control-Allow-Credentials", "true") }
            headers.add("Access-Control-Allow-Methods", allowedMethods.joined(separator: ", "))
            if let requested = request.headers["Access-Control-Request-Headers"] {
                headers.add("Access-Control-Allow-Headers", requested)
            }
            var maxAgeBytes: [UInt8] = []
            HTTP1ResponseEncoder.appendDecimal(maxAge, into: &maxAgeBytes)
            headers.add("Access-Control-Max-Age", String(decoding: maxAgeBytes, as: UTF8.self))
        }
        return HTTPResponse(status: .noContent, headers: headers)
    }

    /// Adds the allow-origin fields to a response for `request`.
    /// The response is taken, not copied: a copy would share its fields' storage, so adding
    /// one would copy them all.
    package func decorate(_ response: consuming HTTPResponse, for request: HTTPRequest) -> HTTPResponse {
        guard let origin = allowOrigin(for: request.headers["Origin"]) else { return response }
        if origin == "*", response.headers == HTTPResponse.jsonHeaders {
            // The usual JSON answer to a request without an `Origin`: fields made once.
            response.headers = HTTPResponse.jsonHeadersForAnyOrigin
            return response
        }
        if response.headers["Access-Control-Allow-Origin"] == nil {
            response.headers.add("Access-Control-Allow-Origin", origin)
            if origin != "*" {
                response.headers.add("Vary", "Origin")
                if allowCredentials { response.headers.add("Access-Control-Allow-Credentials", "true") }
            }
        }
        return response
    }

    /// Wraps a handler: preflights are answered here, other responses get the allow-origin fields.
    package func wrap(_ handler: @escaping HTTPHandler) -> HTTPHandler {
        let policy = self
        return { request in
            if policy.isPreflight(request) { return policy.preflightResponse(to: request) }
            return policy.decorate(handler(request), for: request)
        }
    }
}

extension Router {
    /// This router's handler with `policy` applied (see ``CORSPolicy``).
    package func withCORS(_ policy: CORSPolicy = CORSPolicy()) -> HTTPHandler {
        policy.wrap(self.respond(to:))
    }
}
