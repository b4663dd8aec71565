import EmulatorHTTP
import EmulatorModel
import EmulatorSupport

extension DatabaseEmulator {
    /// Answers one HTTP request.
    func respond(to request: HTTPRequest) -> HTTPResponse {
        var response: HTTPResponse
        do {
            response = try dispatch(request)
        } catch {
            response = error.httpResponse
            configuration.logger.debug("\(request.method.token) \(request.target) → \(error.httpStatus.code) \(error.message)")
        }
        response.headers.set("Access-Control-Allow-Origin", "*")
        if case .bytes = response.body { response.headers.set("Cache-Control", "no-cache") }
        return response
    }

    private func dispatch(_ request: HTTPRequest) throws(DatabaseFailure) -> HTTPResponse {
        if request.method == .options {
            var headers = HTTPHeaders()
            headers.add("Access-Control-Allow-Methods", "GET, PUT, POST, PATCH, DELETE, OPTIONS")
            headers.add("Access-Control-Allow-Headers", request.headers["Access-Control-Request-Headers"] ?? "*")
            return HTTPResponse(status: .ok, headers: headers)
        }
        let path = request.rawPath
        // The service endpoints all begin `/.` (a request target is ASCII: the parser refuses
        // other bytes, so byte and character comparisons agree).
        if path.utf8.dropFirst().first == UInt8(ascii: ".") {
            if path == "/.settings/rules.json" { return try rulesEndpoint(request) }
            if path == "/.inspect/databases.json" { return databasesEndpoint(request) }
            if path == "/.inspect/coverage" || path == "/.inspect/coverage.json" {
                return coverageEndpoint(request, html: path == "/.inspect/coverage")
            }
            if path == "/.ws", let upgrade = longPollUpgrade(request) { return upgrade }
            if path == "/.ws" { return try webSocket(request) }
            if path == "/.lp" { return longPoll(request) }
        }
        guard path.utf8.reversed().starts(with: "nosj.".utf8) else {
            return Self.error(HTTPStatus(404, "Not Found"), "append .json to your request URI to use the REST API.")
        }
        let decoded = try DatabaseRESTRequest(request, defaultNamespace: configuration.defaultNamespace)
        switch decoded.method {
        case .get, .head: return try read(request, decoded, service.store.namespaceForReading(decoded.namespace))
        case .put: return try put(request, decoded, service.namespace(decoded.namespace))
        case .post: return try post(request, decoded, service.namespace(decoded.namespace))
        case .patch: return try patch(request, decoded, service.namespace(decoded.namespace))
        case .delete: return try delete(request, decoded, service.namespace(decoded.namespace))
        default: throw .unsupported("Method not allowed: \(decoded.method.token)")
        }
    }

    // MARK: Responses

    /// `{"error": message}` in the production layout.
    static func error(_ status: HTTPStatus, _ message: String) -> HTTPResponse {
        var body = Array("{\n  \"error\" : ".utf8)
        body.append(contentsOf: JSONWriter.encode(.string(message)))
        body.append(contentsOf: "\n}\n".utf8)
        return HTTPResponse.json(body, status: status)
    }

    /// A data response of `node` (its `json(export:)`), encoded straight from the node.
    static func data(_ node: DatabaseNode, export: Bool, _ request: DatabaseRESTRequest, etag: String? = nil) -> HTTPResponse {
        var response: HTTPResponse
        switch request.print {
        case .silent: response = HTTPResponse(status: .noContent)
        case .pretty: response = .json(node.encoded(export: export, pretty: true))
        case .normal: response = .json(node.encoded(export: export))
        }
        if let etag { response.headers.set("ETag", etag) }
        return response
    }

    /// A data response honouring `print=pretty|silent`.
    static func data(_ json: JSONValue, _ request: DatabaseRESTRequest, etag: String? = nil) -> HTTPResponse {
        var response: HTTPResponse
        switch request.print {
        case .silent: response = HTTPResponse(status: .noContent)
        case .pretty: response = .json(JSONWriter.encode(json, pretty: true))
        case .normal: response = .json(JSONWriter.encode(json))
        }
        if let etag { response.headers.set("ETag", etag) }
        return response
    }
}
