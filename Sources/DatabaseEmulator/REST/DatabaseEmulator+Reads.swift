import EmulatorHTTP
import EmulatorModel
import EmulatorStorage
import EmulatorSupport

extension DatabaseEmulator {
    /// GET: the (queried) value, ETags and `if-none-match`, or an event stream.
    func read(_ http: HTTPRequest, _ request: DatabaseRESTRequest, _ namespace: DatabaseNamespace)
        throws(DatabaseFailure) -> HTTPResponse
    {
        let fields = ReadFields(http.headers)
        if fields.ifMatch {
            throw .invalid("if-match is not supported for GET requests.")
        }
        let query = try DatabaseQueryParams.parse(request.items)
        if fields.acceptsEventStream {
            return try stream(request, query: query, namespace)
        }
        let deadline = DatabaseReadDeadline(
            timeoutNanos: request.timeoutNanos, clock: request.hasTimeout ? configuration.monotonicNanos : nil)
        // One snapshot for the rules and the node (what `service.get` does).
        let data = namespace.head
        try service.checkRead(request.path, query: query, in: namespace, auth: request.auth, data: data)
        try deadline.check()
        // A conditional read answers with the ETag even unasked (get_if_changed reads it).
        let wantsETag = request.wantsETag || fields.ifNoneMatch != nil
        var response: HTTPResponse
        if !wantsETag, !request.isPriority, request.print != .silent, query == .all,
            let entry = data.packedEntry(at: request.path),
            let body = answers.answer(namespace.id, entry, export: request.export, pretty: request.print == .pretty, make: {
                guard let node = DatabaseStorageMapping.storedNode(entry.value), !node.isLeaf else { return nil }
                return node.encoded(export: request.export, pretty: request.print == .pretty)
            })
        {
            // A packed object, whose body depends on its stored bytes only: encoded once.
            response = .json(body)
            try deadline.check()
        } else {
            let stored = data.node(at: request.path)
            let node = request.isPriority ? DatabaseNode.fromPriority(stored.priority) : stored
            let etag = wantsETag ? node.etag : nil
            if let expected = fields.ifNoneMatch, let etag, expected == etag {
                var response = HTTPResponse(status: HTTPStatus(304, "Not Modified"))
                response.headers.set("ETag", etag)
                return response
            }
            let view = query.apply(to: node)
            try deadline.check()
            response = Self.data(view, export: request.export, request, etag: etag)
            try deadline.check()
        }
        if let callback = request.items.first(where: { $0.name == "callback" })?.value {
            // JSONP: `callback=fn` wraps the body as `fn(<json>)`.
            guard !callback.isEmpty, callback.utf8.allSatisfy(Self.isCallbackByte) else {
                throw .invalid("callback must be a valid JavaScript function name")
            }
            var body = Array(callback.utf8)
            body.append(UInt8(ascii: "("))
            body.append(contentsOf: response.bodyBytes)
            body.append(contentsOf: ");".utf8)
            response.body = .bytes(body)
            response.headers.set("Content-Type", "application/javascript; charset=utf-8")
        }
        if let file = request.items.first(where: { $0.name == "download" })?.value {
            let safe = String(decoding: file.utf8.filter { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != 0x7F }, as: UTF8.self)
            response.headers.set("Content-Disposition", "attachment; filename=\"\(safe)\"")
        }
        return response
    }

    /// The request fields a read looks at, found in one pass over the head.
    private struct ReadFields {
        var ifMatch = false
        var acceptsEventStream = false
        var ifNoneMatch: String?

        init(_ headers: HTTPHeaders) {
            var acceptSeen = false
            var ifNoneMatchSeen = false
            for field in headers.fields {
                switch field.name.utf8.count {
                case 6 where !acceptSeen && HTTPHeaders.namesMatch(field.name, "accept"):
                    acceptSeen = true
                    acceptsEventStream = field.value.contains("text/event-stream")
                case 8 where HTTPHeaders.namesMatch(field.name, "if-match"):
                    ifMatch = true
                case 13 where !ifNoneMatchSeen && HTTPHeaders.namesMatch(field.name, "if-none-match"):
                    ifNoneMatchSeen = true
                    ifNoneMatch = field.value
                default: continue
                }
            }
        }
    }

    private static func isCallbackByte(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    /// `Accept: text/event-stream`: a first `put /`, then one event per write that touches the location.
    private func stream(_ request: DatabaseRESTRequest, query: DatabaseQueryParams, _ namespace: DatabaseNamespace)
        throws(DatabaseFailure) -> HTTPResponse
    {
        try service.checkRead(request.path, query: query, in: namespace, auth: request.auth)
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/event-stream")
        headers.add("Cache-Control", "no-cache")
        let path = request.path
        let auth = request.auth
        let name = namespace.name
        return HTTPResponse(
            status: .ok, headers: headers,
            stream: HTTPStreamBody { [service] writer in
                // A stream is a connection: its namespace is known while it is open, and kept for
                // good within the bound of ``DatabaseStore/namespaceForConnection(_:)``. Taken when
                // the stream starts, so a response whose connection went first holds nothing.
                let connected = service.store.namespaceForConnection(name)
                service.openStream(path, query: query, in: connected, auth: auth, writer: writer)
                // Runs at once if the client already went.
                writer.onClose { service.store.connectionEnded(connected) }
            })
    }
}
