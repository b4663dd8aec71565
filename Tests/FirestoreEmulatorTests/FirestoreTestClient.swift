import EmulatorHTTP
import EmulatorStorage
import EmulatorSupport
@testable import FirestoreEmulator

/// Drives a fresh emulator through its router, as an HTTP client would, without sockets.
struct FirestoreTestClient: Sendable {
    let emulator: FirestoreEmulator
    let project: String
    let database: String

    init(
        project: String = "demo", database: String = "(default)", useIndexes: Bool = true,
        rules: FirestoreRulesGate = .allowAll, rulesEngine: Bool = false, service: FirestoreService? = nil
    ) {
        let engine = StorageEngine()
        if let service {
            emulator = FirestoreEmulator(service: service, configuration: .init(projectID: project))
        } else if useIndexes {
            emulator = FirestoreEmulator(
                storage: engine,
                configuration: .init(
                    projectID: project, rules: rules, rulesLoader: rulesEngine ? FirestoreRulesEngine.loader : nil))
        } else {
            emulator = FirestoreEmulator(
                service: FirestoreService(store: DocumentStore(engine: engine), rules: rules, useIndexes: false),
                configuration: .init(projectID: project))
        }
        self.project = project
        self.database = database
    }

    /// `projects/p/databases/d/documents`
    var root: String { "projects/\(project)/databases/\(database)/documents" }
    func name(_ path: String) -> String { root + "/" + path }

    struct Response {
        var status: Int
        var json: JSONValue
        var text: String
    }

    func send(_ method: HTTPMethod, _ target: String, _ body: String? = nil, headers: [(String, String)] = []) -> Response {
        let request = HTTPRequest(
            method: method, target: target, headers: HTTPHeaders(headers), body: body.map { Array($0.utf8) } ?? [])
        // A request waiting for a document lock answers later: wait here, as a socket client would.
        let response = emulator.router.respond(to: request).resolved()
        let bytes = response.bodyBytes
        let json = (try? JSONReader.parse(bytes)) ?? .null
        return Response(status: response.status.code, json: json, text: String(decoding: bytes, as: UTF8.self))
    }

    /// POST `/v1/{root}{suffix}` with a JSON body.
    func post(_ suffix: String, _ body: String) -> Response { send(.post, "/v1/\(root)\(suffix)", body) }

    /// Commits `set` writes of documents given as `path → fields JSON`.
    @discardableResult
    func set(_ docs: [(String, String)]) -> Response {
        let writes = docs.map { #"{"update":{"name":"\#(name($0.0))","fields":\#($0.1)}}"# }
        return post(":commit", #"{"writes":[\#(writes.joined(separator: ","))]}"#)
    }

    /// Runs a structured query (JSON) at the root (or `parent` suffix) and returns document ids.
    func query(_ structuredQuery: String, parent: String = "") -> (status: Int, ids: [String], response: Response) {
        let r = post(parent + ":runQuery", #"{"structuredQuery":\#(structuredQuery)}"#)
        var ids: [String] = []
        if case .array(let items) = r.json {
            for item in items {
                if case .string(let n)? = item[member: "document"]?[member: "name"] {
                    ids.append(String(n.dropFirst(root.count + 1)))
                }
            }
        }
        return (r.status, ids, r)
    }
}

extension JSONValue {
    var string: String? { if case .string(let s) = self { return s } else { return nil } }
    var int: Int64? { if case .int(let i) = self { return i } else { return nil } }
    var array: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }

    /// `{"error":{"status": …}}`
    var errorStatus: String? { self[member: "error"]?[member: "status"]?.string }
    var errorMessage: String? { self[member: "error"]?[member: "message"]?.string }
}
