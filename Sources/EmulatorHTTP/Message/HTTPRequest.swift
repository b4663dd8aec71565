/// A complete HTTP request as the emulators see it: head parsed, body read in full.
package struct HTTPRequest: Sendable {
    package var method: HTTPMethod
    /// The request target exactly as sent, e.g. `/users/ada.json?print=pretty`.
    package var target: String
    package var headers: HTTPHeaders
    package var body: [UInt8]
    /// Values captured by the route pattern (`:name` segments, `*` as `"*"`), percent-decoded.
    package var parameters: [String: String] = [:]

    package init(method: HTTPMethod, target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// The path part of the target, still percent-encoded.
    package var rawPath: Substring {
        let t = target[...]
        if let q = t.firstIndex(of: "?") { return t[..<q] }
        return t
    }

    /// The query part of the target (after `?`), still percent-encoded; empty when absent.
    package var rawQuery: Substring {
        let t = target[...]
        if let q = t.firstIndex(of: "?") { return t[t.index(after: q)...] }
        return ""
    }

    /// Query parameters in order, percent-decoded (`+` is a space).
    package var queryItems: [(name: String, value: String)] {
        rawQuery.split(separator: "&", omittingEmptySubsequences: true).map { item in
            if let eq = item.firstIndex(of: "=") {
                return (
                    PercentEncoding.decode(item[..<eq], plusIsSpace: true) ?? String(item[..<eq]),
                    PercentEncoding.decode(item[item.index(after: eq)...], plusIsSpace: true)
                        ?? String(item[item.index(after: eq)...])
                )
            }
            return (PercentEncoding.decode(item, plusIsSpace: true) ?? String(item), "")
        }
    }

    /// The first query parameter called `name`.
    package func query(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}
