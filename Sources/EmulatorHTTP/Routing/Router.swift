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
        /// `segments` as bytes, which a path's bytes are matched against in place.
        var segmentBytes: [[UInt8]]
        var handler: HTTPHandler

        init(method: HTTPMethod?, segments: [Substring], handler: @escaping HTTPHandler) {
            self.method = method
            self.segments = segments
            segmentBytes = segments.map { Array($0.utf8) }
            self.handler = handler
        }

        func matches(_ path: Substring) -> Bool {
            path.utf8.withContiguousStorageIfAvailable { Router.matches(segmentBytes, $0) }
                ?? Router.matches(segments, path)
        }
    }

    private var routes: [Route] = []
    private var fallback: HTTPHandler = { _ in HTTPResponse.text("Not Found", status: .notFound) }

    package init() {}

    /// Adds a route; `method == nil` matches every method.
    package mutating func add(_ method: HTTPMethod?, _ pattern: String, handler: @escaping HTTPHandler) {
        routes.append(Route(method: method, segments: Self.segments(pattern[...]), handler: handler))
    }

    /// Sets the handler for requests that match no route.
    package mutating func setFallback(_ handler: @escaping HTTPHandler) {
        fallback = handler
    }

    /// Routes `request` and returns the handler's response.
    package func respond(to request: HTTPRequest) -> HTTPResponse {
        let path = request.rawPath
        var methodMismatch = false
        for route in routes {
            guard route.matches(path) else { continue }
            if let method = route.method, method != request.method {
                methodMismatch = true
                continue
            }
            var routed = request
            routed.routePattern = route.segments
            return route.handler(routed)
        }
        if methodMismatch {
            return HTTPResponse.text("Method Not Allowed", status: .methodNotAllowed)
        }
        return fallback(request)
    }

    /// The non-empty `/`-separated segments of `text`, split on the byte (not on Characters: a
    /// combining mark after `/` must not hide the separator, and byte scans are cheaper).
    static func segments(_ text: Substring) -> [Substring] {
        var result: [Substring] = []
        var cursor = SegmentCursor(text)
        while let segment = cursor.next() { result.append(segment) }
        return result
    }

    /// Whether `path` matches `pattern`, compared segment by segment in place (nothing is built).
    static func matches(_ pattern: [Substring], _ path: Substring) -> Bool {
        var cursor = SegmentCursor(path)
        for segment in pattern {
            if segment.utf8.elementsEqual("*".utf8) { return true }
            guard let next = cursor.next() else { return false }
            if segment.utf8.first == UInt8(ascii: ":") { continue }
            if !segment.utf8.elementsEqual(next.utf8) { return false }  // bytes, not canonical equivalence
        }
        return cursor.next() == nil
    }

    /// ``matches(_:_:)`` on bytes: the same segments (split at `/`, empty ones skipped), compared
    /// byte by byte where they lie.
    static func matches(_ pattern: [[UInt8]], _ path: UnsafeBufferPointer<UInt8>) -> Bool {
        let slash = UInt8(ascii: "/")
        var i = 0
        for segment in pattern {
            if segment.count == 1, segment[0] == UInt8(ascii: "*") { return true }
            while i < path.count, path[i] == slash { i += 1 }
            guard i < path.count else { return false }
            var end = i
            while end < path.count, path[end] != slash { end += 1 }
            if segment.first != UInt8(ascii: ":") {
                guard end - i == segment.count else { return false }
                for k in 0..<segment.count where segment[k] != path[i + k] { return false }
            }
            i = end
        }
        while i < path.count, path[i] == slash { i += 1 }
        return i == path.count
    }

    /// The values `pattern` captures from `path` (which it matches), percent-decoded.
    static func parameters(_ pattern: [Substring], _ path: Substring) -> [String: String] {
        var parameters: [String: String] = [:]
        let path = segments(path)
        var index = 0
        for segment in pattern {
            if segment.utf8.elementsEqual("*".utf8) {
                let rest = path[min(index, path.count)...].joined(separator: "/")
                parameters["*"] = PercentEncoding.decode(rest) ?? rest
                return parameters
            }
            guard index < path.count else { return parameters }
            if segment.utf8.first == UInt8(ascii: ":") {
                let raw = path[index]
                parameters[String(segment.dropFirst())] = PercentEncoding.decode(raw) ?? String(raw)
            }
            index += 1
        }
        return parameters
    }
}

/// The non-empty `/`-separated segments of a path, one at a time, split on the byte.
struct SegmentCursor {
    /// The first `/` of `bytes`, by a scan of their contiguous storage where there is one.
    static func firstSlash(_ bytes: Substring.UTF8View) -> String.Index? {
        let offset = bytes.withContiguousStorageIfAvailable { $0.firstIndex(of: UInt8(ascii: "/")) }
        switch offset {
        case .some(.some(let offset)): return bytes.index(bytes.startIndex, offsetBy: offset)
        case .some(.none): return nil
        case .none: return bytes.firstIndex(of: UInt8(ascii: "/"))
        }
    }

    private let text: Substring
    private var position: Substring.Index

    init(_ text: Substring) {
        self.text = text
        position = text.startIndex
    }

    mutating func next() -> Substring? {
        let utf8 = text.utf8
        while position < text.endIndex {
            let end = Self.firstSlash(utf8[position...]) ?? text.endIndex
            let start = position
            position = end < text.endIndex ? utf8.index(after: end) : text.endIndex
            if start < end { return text[start..<end] }
        }
        return nil
    }
}
