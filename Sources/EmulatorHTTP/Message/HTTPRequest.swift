/// A complete HTTP request as the emulators see it: head parsed, body read in full.
package struct HTTPRequest: Sendable {
    package var method: HTTPMethod
    /// The request target exactly as sent, e.g. `/users/ada.json?print=pretty`.
    package var target: String {
        didSet { queryMark = Self.queryMark(target) }
    }
    package var headers: HTTPHeaders
    package var body: [UInt8]
    /// The segments of the route pattern that matched this request (set by ``Router``).
    package var routePattern: [Substring] = []

    /// Values captured by the route pattern (`:name` segments, `*` as `"*"`), percent-decoded.
    /// Worked out when read: most handlers parse the path themselves.
    package var parameters: [String: String] { Router.parameters(routePattern, rawPath) }

    package init(method: HTTPMethod, target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        queryMark = Self.queryMark(target)
    }

    /// A request whose target's `?` the parser found at UTF-8 offset `queryOffset` (`nil`: none).
    init(method: HTTPMethod, target: String, queryOffset: Int?, headers: HTTPHeaders, body: [UInt8]) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        queryMark = queryOffset.map { target.utf8.index(target.utf8.startIndex, offsetBy: $0) }
    }

    /// The path part of the target, still percent-encoded.
    package var rawPath: Substring {
        // Byte scans: `?`, `&` and `=` are ASCII, so their UTF-8 indices are character boundaries
        // (a Character scan would run grapheme breaking over the whole target on every request).
        guard let mark = queryMark else { return target[...] }
        return target[..<mark]
    }

    /// Where `?` is in the target, found once (the path and the query are asked for several
    /// times per request).
    private var queryMark: String.Index?

    /// Where `?` is in `target`: a scan of the contiguous bytes (the generic `firstIndex` over a
    /// string's UTF-8 view steps index by index).
    private static func queryMark(_ target: String) -> String.Index? {
        let utf8 = target.utf8
        let offset = utf8.withContiguousStorageIfAvailable { $0.firstIndex(of: UInt8(ascii: "?")) }
        switch offset {
        case .some(.some(let offset)): return utf8.index(utf8.startIndex, offsetBy: offset)
        case .some(.none): return nil
        case .none: return utf8.firstIndex(of: UInt8(ascii: "?"))
        }
    }

    /// The query part of the target (after `?`), still percent-encoded; empty when absent.
    package var rawQuery: Substring {
        guard let mark = queryMark else { return "" }
        return target[target.utf8.index(after: mark)...]
    }

    /// Query parameters in order, percent-decoded (`+` is a space).
    package var queryItems: [(name: String, value: String)] {
        if queryMark == nil { return [] }  // most requests have no query
        var items: [(name: String, value: String)] = []
        forEachQueryItem { name, value in
            items.append((Self.decode(name), Self.decode(value)))
            return false
        }
        return items
    }

    /// Calls `body` with each `name=value` item of the query, still encoded, until it returns true.
    private func forEachQueryItem(_ body: (_ name: Substring, _ value: Substring) -> Bool) {
        let query = rawQuery
        var start = query.startIndex
        while start < query.endIndex {
            let end = query.utf8[start...].firstIndex(of: UInt8(ascii: "&")) ?? query.endIndex
            if start < end {
                let item = query[start..<end]
                let stop: Bool
                if let eq = item.utf8.firstIndex(of: UInt8(ascii: "=")) {
                    stop = body(item[..<eq], item[item.utf8.index(after: eq)...])
                } else {
                    stop = body(item, "")
                }
                if stop { return }
            }
            start = end < query.endIndex ? query.utf8.index(after: end) : query.endIndex
        }
    }

    private static func decode(_ text: Substring) -> String {
        PercentEncoding.decode(text, plusIsSpace: true) ?? String(text)
    }

    /// The first query parameter called `name`.
    package func query(_ name: String) -> String? {
        if queryMark == nil { return nil }
        var found: String?
        forEachQueryItem { rawName, rawValue in
            guard Self.decode(rawName) == name else { return false }
            found = Self.decode(rawValue)
            return true
        }
        return found
    }
}
