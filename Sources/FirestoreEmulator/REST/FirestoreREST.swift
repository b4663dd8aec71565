package import EmulatorHTTP
import EmulatorModel
package import EmulatorSupport
import Synchronization

/// The REST/JSON face of ``FirestoreService``: `projects.databases.documents` of the v1 API plus
/// the emulator's own endpoints. Streaming methods answer one JSON array.
///
/// A class: the routes' closures and every request's lock attempt capture it, and a struct of
/// these fields would be copied (a retain and a release per field) each time.
package final class FirestoreREST: Sendable {
    let service: FirestoreService
    let rulesLoader: FirestoreRulesLoader?
    let logger: Logger?
    /// In single-project mode: the configured project, whose mismatches are warned about once each.
    let singleProject: String?
    private let warnedProjects = WarnedProjects()
    /// GetDocument's JSON answers, reused while the document is unchanged.
    let documentCache = EncodedDocumentCache()

    package init(
        service: FirestoreService, rulesLoader: FirestoreRulesLoader? = nil, logger: Logger? = nil,
        singleProject: String? = nil
    ) {
        self.service = service
        self.rulesLoader = rulesLoader
        self.logger = logger
        self.singleProject = singleProject
    }

    private final class WarnedProjects: Sendable {
        let seen = Mutex<Set<String>>([])
    }

    /// Warns once per project id that differs from the single project (requests still succeed).
    func noteProject(_ project: String) {
        guard let singleProject, let logger, !project.utf8.elementsEqual(singleProject.utf8) else { return }
        if warnedProjects.seen.withLock({ $0.insert(project).inserted }) {
            logger.warning(
                "Multiple projectIds are not recommended in single project mode. Requested project ID \(project), but the emulator is configured for \(singleProject).")
        }
    }

    /// Adds the v1 API and the emulator endpoints to `router`, open to browsers (the JS SDKs send
    /// preflighted requests from pages, as they do to the official emulator).
    package func register(on router: inout Router, cors: CORSPolicy = CORSPolicy()) {
        let api = self
        router.add(nil, "/v1/*", handler: cors.wrap { api.respondWaiting(to: $0) })
        router.add(nil, "/emulator/v1/*", handler: cors.wrap { api.respondAdmin(to: $0) })
    }

    /// Answers one `/v1/...` request. One that must wait for a document lock answers later (a
    /// deferred response completed once the wait ends), so the event loop goes on; if the client
    /// closes the connection meanwhile, the wait is withdrawn.
    package func respondWaiting(to request: HTTPRequest) -> HTTPResponse {
        let attempt = LockAttempt()
        switch attempt.run({ respond(to: request) }, resumable: { { self.respond(to: request) } }) {
        case .now(let response):
            return response
        case .later(let pending):
            let deferred = HTTPDeferredResponse()
            deferred.onCancel { attempt.cancel() }
            pending.onResult { deferred.complete($0) }
            return .deferred(deferred)
        }
    }

    /// Answers one `/v1/...` request (a lock wait unwinds it with ``LockAttempt/parked``).
    package func respond(to request: HTTPRequest) -> HTTPResponse {
        let response: HTTPResponse
        do {
            response = try route(request)
        } catch {
            response = Self.failure(error)
        }
        logger?.debug("\(request.method.token) \(request.rawPath) -> \(response.status.code)")
        return response
    }

    static func failure(_ e: EmulatorError) -> HTTPResponse {
        HTTPResponse.json(RESTEncoding.error(e), status: HTTPStatus(e.code.httpStatus, e.code.name))
    }

    static func ok(_ bytes: [UInt8]) -> HTTPResponse { HTTPResponse.json(bytes) }

    /// The caller from `Authorization: Bearer …`, or from `access_token=` when there is no header.
    /// `owner` (in any case, with `Bearer` in any case) is the admin token and bypasses rules.
    static func caller(_ request: HTTPRequest) -> FirestoreCaller {
        if let header = request.headers["Authorization"] { return FirestoreCaller(authorization: header) }
        guard let token = request.query("access_token"), !token.isEmpty else { return .anonymous }
        return FirestoreCaller.isOwnerToken(token) ? .owner : .user(token: token)
    }

    /// Parses the body as JSON (an empty body is `{}`); `text/plain` bodies are accepted too.
    /// `context` is the body's proto path: empty when the body is the request (`body: "*"`),
    /// `document` for createDocument and patch (`body: "document"`).
    static func body(_ request: HTTPRequest, _ message: RESTMessage, context: String = "") throws(EmulatorError) -> JSONObject {
        if request.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            return try JSONObject(nil, context: context, message: message)
        }
        return try object(request.body, message, context: context)
    }

    /// Parses one ProtoJSON message (a REST body, a WebChannel `req{i}___data__`) as `message`.
    static func object(_ bytes: [UInt8], _ message: RESTMessage, context: String = "") throws(EmulatorError) -> JSONObject {
        do {
            // Duplicate names are refused, as protobuf's JSON parsers recommend (conformance test
            // `FieldNameDuplicate`), instead of one value being dropped silently.
            return try JSONObject(
                try JSONReader.parse(bytes, rejectingDuplicateKeys: true), context: context, message: message)
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
        let rawPath = request.rawPath
        let allowMethod = request.method == .post
        let path = try RESTPath.parse(rawPath, allowMethod: allowMethod)
        noteProject(path.database.project)
        let caller = Self.caller(request)
        if let method = path.method {
            return try custom(method, path, request, caller)
        }
        switch request.method {
        case .get:
            if path.path.isDocument {
                try Self.checkQueryParameters(request, allowed: QueryParameters.get)
                return try getDocument(path, request, caller)
            }
            if path.path.isEmpty { throw .invalidArgument("A collection id is required to list documents.") }
            try Self.checkQueryParameters(request, allowed: QueryParameters.list)
            return try listDocuments(path, request, caller)
        case .post:
            guard path.path.isCollection else {
                throw .invalidArgument("Document parent \"\(path.name.name)\" must name a collection to create a document in.")
            }
            try Self.checkQueryParameters(request, allowed: QueryParameters.create)
            return try createDocument(path, request, caller)
        case .patch:
            guard path.path.isDocument else { throw .invalidArgument("Document name \"\(path.name.name)\" has odd number of segments.") }
            try Self.checkQueryParameters(request, allowed: QueryParameters.patch)
            return try patchDocument(path, request, caller)
        case .delete:
            guard path.path.isDocument else { throw .invalidArgument("Document name \"\(path.name.name)\" has odd number of segments.") }
            try Self.checkQueryParameters(request, allowed: QueryParameters.delete)
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
        switch method {
        case "batchGet": return try batchGet(path, Self.body(request, .batchGetDocumentsRequest), caller)
        case "beginTransaction": return try beginTransaction(path, Self.body(request, .beginTransactionRequest))
        case "commit": return try commit(path, request, caller)
        case "rollback": return try rollback(path, Self.body(request, .rollbackRequest))
        case "batchWrite": return try batchWrite(path, Self.body(request, .batchWriteRequest), caller)
        case "runQuery": return try runQuery(path, Self.body(request, .runQueryRequest), caller)
        case "runAggregationQuery": return try runAggregationQuery(path, Self.body(request, .runAggregationQueryRequest), caller)
        case "partitionQuery": return try partitionQuery(path, Self.body(request, .partitionQueryRequest), caller)
        case "listCollectionIds": return try listCollectionIds(path, Self.body(request, .listCollectionIdsRequest), caller)
        case "listen", "write":
            throw .unimplemented("\(method) is only available over gRPC and WebChannel.")
        default:
            throw .unimplemented("\(method) is not supported by the Firestore emulator.")
        }
    }
}
