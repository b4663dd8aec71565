package import EmulatorHTTP
import EmulatorSupport

/// The hub's routes, as the official hub answers them (JSON pretty-printed with two spaces).
///
/// - `GET /` → `{"version", "origins", "pid", "host", "port"}`
/// - `GET /emulators` → name → `{listen: [{address, family, port}], name, host, port, pid}`
/// - `POST /_admin/export` `{path, initiatedBy?, targets?}` → `200 {"message":"OK"}`, or
///   `{"message": reason}` with 400 (bad body), 403 (browser origin), 500 (failed), 501 (not built yet).
/// - `POST /_admin/import` `{path}` (ours: the Emulator UI's import; the official hub has none) →
///   `200 {"message"}` once the directory is loaded over the running data, through the same
///   checks and code as `--import`; 400 (bad body, or not an export), 403, 500 as for export.
/// - `PUT /functions/disableBackgroundTriggers` and `…/enableBackgroundTriggers` (the test library's
///   `withFunctionTriggersDisabled`) → 400: this suite runs no Cloud Functions emulator. The
///   bodies are the official hub's: JSON `{"error": …}` for disable, plain text for enable.
///
/// With `deferExports` (a transport that completes deferred responses) an export runs on a
/// thread of its own and is answered when it ends, so the hub keeps answering `GET /` and
/// `GET /emulators` meanwhile (a 1 GB export takes seconds). Exports take `turn`, so they run one
/// at a time (the suite passes the turn its `--export-on-exit` and shutdown take too).
package enum HubRouter {
    package static func make(
        directory: HubDirectory, deferExports: Bool = false, turn: ExportTurn = ExportTurn(),
        export: @escaping @Sendable (ExportRequest) throws(SnapshotFailure) -> Void,
        import importer: (@Sendable (String) throws(SnapshotFailure) -> String)? = nil
    ) -> Router {
        @Sendable func run(_ request: ExportRequest) -> HTTPResponse {
            turn.run {
                do throws(SnapshotFailure) {
                    try export(request)
                    return message("OK", status: .ok)
                } catch {
                    return message(error.message, status: error.code == .notImplemented ? .notImplemented : .internalServerError)
                }
            }
        }
        var router = Router()
        router.add(.get, "/") { _ in json(directory.rootDocument) }
        router.add(.get, "/emulators") { _ in json(directory.emulatorsDocument) }
        router.add(.post, "/_admin/export") { request in
            // A page on another site must not make the suite write files (AdminOriginCheck).
            if !AdminOriginCheck.permits(request) {
                return message("Export cannot be triggered by external callers.", status: .forbidden)
            }
            let running = directory.running.map(\.kind).filter(\.isEmulator)
            let decoded = decodeExport(request.body, running: running)
            guard case .success(let exportRequest) = decoded else {
                if case .failure(let failure) = decoded { return message(failure.message, status: .badRequest) }
                return message("Bad request", status: .badRequest)
            }
            guard deferExports else { return run(exportRequest) }
            let deferred = HTTPDeferredResponse()
            // The completed response replaces the deferred one, so it carries its own CORS fields
            // (a browser page, the Emulator UI, reads the answer).
            let started = PosixThread.spawn { deferred.complete(CORSPolicy().decorate(run(exportRequest), for: request)) }
            return started ? .deferred(deferred) : run(exportRequest)
        }
        if let importer {
            @Sendable func runImport(_ path: String) -> HTTPResponse {
                turn.run {
                    do throws(SnapshotFailure) {
                        return message(try importer(path), status: .ok)
                    } catch {
                        let status: HTTPStatus =
                            error.code == .notImplemented ? .notImplemented : error.code == .invalid ? .badRequest : .internalServerError
                        return message(error.message, status: status)
                    }
                }
            }
            router.add(.post, "/_admin/import") { request in
                if !AdminOriginCheck.permits(request) {
                    return message("Import cannot be triggered by external callers.", status: .forbidden)
                }
                let path: String
                switch decodeImport(request.body) {
                case .success(let decoded): path = decoded
                case .failure(let failure): return message(failure.message, status: .badRequest)
                }
                guard deferExports else { return runImport(path) }
                let deferred = HTTPDeferredResponse()
                let started = PosixThread.spawn { deferred.complete(CORSPolicy().decorate(runImport(path), for: request)) }
                return started ? .deferred(deferred) : runImport(path)
            }
        }
        router.add(.put, "/functions/disableBackgroundTriggers") { _ in
            json(.object([JSONMember("error", .string(functionsNotRunning))]), status: .badRequest)
        }
        router.add(.put, "/functions/enableBackgroundTriggers") { _ in
            HTTPResponse.text(functionsNotRunning, status: .badRequest)
        }
        router.setFallback { request in
            message("Cannot \(request.method.token) \(request.rawPath)", status: .notFound)
        }
        return router
    }

    /// What the official hub answers to the trigger switches when no Functions emulator runs.
    static let functionsNotRunning = "The Cloud Functions emulator is not running."

    /// Decodes the export body; `targets` defaults to every running emulator and is cut to them.
    static func decodeExport(_ body: [UInt8], running: [EmulatorKind]) -> Result<ExportRequest, SnapshotFailure> {
        let value: JSONValue
        do {
            value = try JSONReader.parse(body.isEmpty ? Array("{}".utf8) : body)
        } catch {
            return .failure(SnapshotFailure(.failed, "Request body is not JSON: \(error)"))
        }
        guard case .string(let path)? = value[member: "path"], !path.isEmpty else {
            return .failure(SnapshotFailure(.failed, "Export request body must have a \"path\" string"))
        }
        guard path.hasPrefix("/") else {
            return .failure(SnapshotFailure(.failed, "Export path must be absolute, got \"\(path)\""))
        }
        var initiatedBy = "unknown"
        if case .string(let text)? = value[member: "initiatedBy"] { initiatedBy = text }
        var targets = running
        if case .array(let items)? = value[member: "targets"] {
            let named = Set(items.compactMap { item -> EmulatorKind? in
                if case .string(let name) = item { return EmulatorKind(rawValue: name) }
                return nil
            })
            targets = running.filter(named.contains)
        }
        return .success(ExportRequest(path: path, initiatedBy: initiatedBy, targets: targets))
    }

    /// Decodes the import body: `{"path": "/absolute/directory"}`.
    static func decodeImport(_ body: [UInt8]) -> Result<String, SnapshotFailure> {
        guard let value = try? JSONReader.parse(body.isEmpty ? Array("{}".utf8) : body) else {
            return .failure(SnapshotFailure(.invalid, "Request body is not JSON"))
        }
        guard case .string(let path)? = value[member: "path"], !path.isEmpty else {
            return .failure(SnapshotFailure(.invalid, "Import request body must have a \"path\" string"))
        }
        guard path.hasPrefix("/") else {
            return .failure(SnapshotFailure(.invalid, "Import path must be absolute, got \"\(path)\""))
        }
        return .success(path)
    }

    /// The hub's handler as served: CORS for any origin (the official hub uses `origin: true`),
    /// and Private Network Access preflights answered, so pages on public origins may call it.
    package static func handler(_ router: Router) -> HTTPHandler {
        let cors = router.withCORS()
        return { request in
            var response = cors(request)
            if request.method == .options, request.headers["Access-Control-Request-Private-Network"] != nil {
                response.headers.set("Access-Control-Allow-Private-Network", "true")
            }
            return response
        }
    }

    static func json(_ value: JSONValue, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse.json(JSONWriter.encode(value, pretty: true), status: status)
    }

    static func message(_ text: String, status: HTTPStatus) -> HTTPResponse {
        json(.object([JSONMember("message", .string(text))]), status: status)
    }
}
