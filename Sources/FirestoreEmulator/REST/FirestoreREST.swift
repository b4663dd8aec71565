package import EmulatorHTTP
import EmulatorModel
import EmulatorSupport

/// The REST/JSON face of ``FirestoreService``: `projects.databases.documents` of the v1 API plus
/// the emulator's own endpoints. Streaming methods answer one JSON array.
package struct FirestoreREST: Sendable {
    let service: FirestoreService
    let rulesLoader: FirestoreRulesLoader?

    package init(service: FirestoreService, rulesLoader: FirestoreRulesLoader? = nil) {
        self.service = service
        self.rulesLoader = rulesLoader
    }

    /// Adds the v1 API and the emulator endpoints to `router`.
    package func register(on router: inout Router) {
        let api = self
        router.add(nil, "/v1/*") { api.respond(to: $0) }
        router.add(nil, "/emulator/v1/*") { api.respondAdmin(to: $0) }
    }

    /// Answers one `/v1/...` request.
    package func respond(to request: HTTPRequest) -> HTTPResponse {
        do {
            return try route(request)
        } catch {
            return Self.failure(error)
        }
    }

    static func failure(_ e: EmulatorError) -> HTTPResponse {
        HTTPResponse.json(RESTEncoding.error(e), status: HTTPStatus(e.code.httpStatus, e.code.name))
    }

    static func ok(_ bytes: [UInt8]) -> HTTPResponse { HTTPResponse.json(bytes) }

    /// The caller from `Authorization: Bearer …` (`owner` bypasses rules).
    static func caller(_ request: HTTPRequest) -> FirestoreCaller {
        guard let auth = request.headers["Authorization"] else { return .anonymous }
        let parts = auth.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return .anonymous }
        let token = String(parts[1]).trimmingSpaces
        return token == "owner" ? .owner : .user(token: token)
    }

    /// Parses the body as JSON (an empty body is `{}`); `text/plain` bodies are accepted too.
    static func body(_ request: HTTPRequest) throws(EmulatorError) -> JSONObject {
        if request.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            return try JSONObject(nil, context: "body")
        }
        do {
            return try JSONObject(try JSONReader.parse(request.body), context: "body")
        } catch let e as JSONError {
            throw .invalidArgument("Invalid JSON payload received. \(e.message) (line \(e.line), column \(e.column)).")
        } catch let e as EmulatorError {
            throw e
        } catch {
            throw .invalidArgument("Invalid JSON payload received.")
        }
    }

    /// Query parameters with snake_case names normalised to lowerCamelCase, in order.
    static func parameters(_ request: HTTPRequest) -> [(name: String, value: String)] {
        request.queryItems.map { item in
            (item.name.split(separator: ".").map { JSONObject.camelCase(String($0)) }.joined(separator: "."), item.value)
        }
    }

    private func route(_ request: HTTPRequest) throws(EmulatorError) -> HTTPResponse {
        var segments = request.rawPath.split(separator: "/", omittingEmptySubsequences: false)
        // ["", "v1", ...]
        guard segments.count >= 3, segments[0].isEmpty, segments[1] == "v1" else {
            throw .notFound("Unknown path \(request.rawPath).")
        }
        segments.removeFirst(2)
        if segments.last?.isEmpty == true && segments.count > 1 { segments.removeLast() }
        let allowMethod = request.method == .post
        let path = try RESTPath(segments: segments, allowMethod: allowMethod)
        let caller = Self.caller(request)
        if let method = path.method {
            return try custom(method, path, request, caller)
        }
        switch request.method {
        case .get:
            if path.path.isDocument { return try getDocument(path, request, caller) }
            if path.path.isEmpty { throw .invalidArgument("A collection id is required to list documents.") }
            return try listDocuments(path, request, caller)
        case .post:
            guard path.path.isCollection else {
                throw .invalidArgument("Document parent \"\(path.name.name)\" must name a collection to create a document in.")
            }
            return try createDocument(path, request, caller)
        case .patch:
            guard path.path.isDocument else { throw .invalidArgument("Document name \"\(path.name.name)\" has odd number of segments.") }
            return try patchDocument(path, request, caller)
        case .delete:
            guard path.path.isDocument else { throw .invalidArgument("Document name \"\(path.name.name)\" has odd number of segments.") }
            return try deleteDocument(path, request, caller)
        default:
            throw EmulatorError(.unimplemented, "Method \(request.method.token) is not supported on \(request.rawPath).")
        }
    }

    private func custom(
        _ method: String, _ path: RESTPath, _ request: HTTPRequest, _ caller: FirestoreCaller
    ) throws(EmulatorError) -> HTTPResponse {
        let databaseLevel: Set<String> = ["batchGet", "beginTransaction", "commit", "rollback", "batchWrite", "listen", "write", "executePipeline"]
        if databaseLevel.contains(method) && !path.path.isEmpty {
            throw .notFound("Unknown path \(request.rawPath).")
        }
        if !databaseLevel.contains(method) && !(path.path.isEmpty || path.path.isDocument) {
            throw .invalidArgument("Parent \"\(path.name.name)\" must be the documents root or a document.")
        }
        let body = try Self.body(request)
        switch method {
        case "batchGet": return try batchGet(path, body, caller)
        case "beginTransaction": return try beginTransaction(path, body)
        case "commit": return try commit(path, body, caller)
        case "rollback": return try rollback(path, body)
        case "batchWrite": return try batchWrite(path, body, caller)
        case "runQuery": return try runQuery(path, body, caller)
        case "runAggregationQuery": return try runAggregationQuery(path, body, caller)
        case "partitionQuery":
            try service.partitionQuery(path.database, parent: path.path, query: try RESTDecoding.structuredQuery(body["structuredQuery"]))
            return Self.ok(Array("{}".utf8))
        case "listCollectionIds": return try listCollectionIds(path, body)
        case "listen", "write":
            throw .unimplemented("\(method) is only available over gRPC and WebChannel.")
        default:
            throw .unimplemented("\(method) is not supported by the Firestore emulator.")
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
