import EmulatorHTTP
import EmulatorModel
import EmulatorSupport

extension DatabaseEmulator {
    /// GET: the (queried) value, ETags and `if-none-match`, or an event stream.
    func read(_ http: HTTPRequest, _ request: DatabaseRESTRequest, _ namespace: DatabaseNamespace)
        throws(DatabaseRESTError) -> HTTPResponse
    {
        if http.headers["if-match"] != nil {
            throw .badRequest("if-match is not supported for GET requests.")
        }
        let query = try DatabaseQuery.parse(request.items)
        if http.headers["Accept"]?.contains("text/event-stream") == true {
            return try stream(request, query: query, namespace)
        }
        let now = configuration.now()
        let (node, allowed) = namespace.read { data, rules in
            guard request.auth.isAdmin
                || rules.canRead(request.path, query: query, auth: request.auth, now: now, data: data)
            else {
                return (DatabaseNode.empty, false)
            }
            var node = data.node(at: request.path)
            if request.isPriority { node = DatabaseNode.fromPriority(node.priority) }
            return (node, true)
        }
        guard allowed else { throw .permissionDenied }
        let etag = request.wantsETag || http.headers["if-none-match"] != nil ? node.etag : nil
        if let expected = http.headers["if-none-match"], let etag, expected == etag {
            var response = HTTPResponse(status: HTTPStatus(304, "Not Modified"))
            response.headers.set("ETag", etag)
            return response
        }
        let view = query.apply(to: node)
        return Self.data(view.json(export: request.export), request, etag: request.wantsETag ? etag : nil)
    }

    /// `Accept: text/event-stream`: a first `put /`, then one event per write that touches the location.
    private func stream(_ request: DatabaseRESTRequest, query: DatabaseQuery, _ namespace: DatabaseNamespace)
        throws(DatabaseRESTError) -> HTTPResponse
    {
        let now = configuration.now()
        let allowed = namespace.read { data, rules in
            request.auth.isAdmin || rules.canRead(request.path, query: query, auth: request.auth, now: now, data: data)
        }
        guard allowed else { throw .permissionDenied }
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/event-stream")
        headers.add("Cache-Control", "no-cache")
        let path = request.path
        let auth = request.auth
        return HTTPResponse(
            status: .ok, headers: headers,
            stream: HTTPStreamBody { writer in
                namespace.openStream(path: path, query: query, auth: auth, writer: writer)
            })
    }
}
