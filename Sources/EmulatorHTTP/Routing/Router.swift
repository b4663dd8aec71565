/// Handles one request. Handlers run on a transport thread and must not block for long.
package typealias HTTPHandler = @Sendable (HTTPRequest) -> HTTPResponse

/// Maps requests to handlers by method and path pattern.
///
/// Patterns are `/`-separated; a segment `:name` captures one segment, and a final `*` captures
/// the rest of the path (possibly empty) as parameter `"*"`. Routes are tried in the order added;
/// a path that matches no route gets the fallback (404 by default); a path that matches only with
/// another method gets 405.
package struct Router: Sendable {
    private struct Route: Sendable {
        var method: HTTPMethod?
        var segments: [Substring]
        var handler: HTTPHandler
    }

    private var routes: [Route] = []
    private var fallback: HTTPHandler = { _ in HTTPResponse.text("Not Found", status: .notFound) }

    package init() {}

    /// Adds a route; `method == nil` matches every method.
    package mutating func add(_ method: HTTPMethod?, _ pattern: String, handler: @escaping HTTPHandler) {
        routes.append(Route(method: method, segments: pattern.split(separator: "/"), handler: handler))
    }

    /// Sets the handler for requests that match no route.
    package mutating func setFallback(_ handler: @escaping HTTPHandler) {
        fallback = handler
    }

    /// Routes `request` and returns the handler's response.
    package func respond(to request: HTTPRequest) -> HTTPResponse {
        let path = request.rawPath.split(separator: "/")
        var methodMismatch = false
        for route in routes {
            guard let parameters = Self.match(route.segments, path) else { continue }
            if let method = route.method, method != request.method {
                methodMismatch = true
                continue
            }
            var routed = request
            routed.parameters = parameters
            return route.handler(routed)
        }
        if methodMismatch {
            return HTTPResponse.text("Method Not Allowed", status: .methodNotAllowed)
        }
        return fallback(request)
    }

    private static func match(_ pattern: [Substring], _ path: [Substring]) -> [String: String]? {
        var parameters: [String: String] = [:]
        var index = 0
        for segment in pattern {
            if segment == "*" {
                let rest = path[min(index, path.count)...].joined(separator: "/")
                parameters["*"] = PercentEncoding.decode(rest) ?? rest
                return parameters
            }
            guard index < path.count else { return nil }
            if segment.first == ":" {
                let raw = path[index]
                parameters[String(segment.dropFirst())] = PercentEncoding.decode(raw) ?? String(raw)
            } else if segment != path[index] {
                return nil
            }
            index += 1
        }
        return index == path.count ? parameters : nil
    }
}
