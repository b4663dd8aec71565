import EmulatorHTTP
import EmulatorModel
import EmulatorSupport
import SecurityRules

extension DatabaseEmulator {
    /// `/.settings/rules.json`: GET the rules text (`format=strict` gives strict JSON), PUT new
    /// rules (admin only; a bad file answers 400 with the parse message).
    func rulesEndpoint(_ http: HTTPRequest) throws(DatabaseFailure) -> HTTPResponse {
        // Admin credentials travel in the query (`access_token=owner`), so a page on another site
        // could send them through the user's browser: only loopback origins may (AdminOriginCheck).
        guard AdminOriginCheck.permits(http) else { return Self.error(.forbidden, AdminOriginCheck.refusal) }
        let items = http.queryItems
        let name = try DatabaseRESTRequest.namespace(http, items: items, defaultNamespace: configuration.defaultNamespace)
        let auth = try DatabaseRequestAuth.resolve(http, query: items)
        guard auth.isAdmin else { throw .permissionDenied }
        let namespace = service.namespace(name)
        switch http.method {
        case .get:
            let source = namespace.rules.source
            if items.contains(where: { $0.name == "format" && $0.value == "strict" }),
                let json = try? JSONReader.parse(source, allowComments: true)
            {
                return .json(JSONWriter.encode(json, pretty: true))
            }
            return .json(source)
        case .put, .post:
            do throws(DatabaseRulesCompileError) {
                try service.setRules(http.body, namespace: name)
                return .json(Array("{\"status\":\"ok\"}".utf8))
            } catch {
                throw .invalid(error.message)
            }
        default:
            return Self.error(.methodNotAllowed, "Method not allowed: \(http.method.token)")
        }
    }

    /// `/.inspect/databases.json`: the namespaces that exist, `[{"name": …}]`.
    func databasesEndpoint(_ http: HTTPRequest) -> HTTPResponse {
        let list = JSONValue.array(service.store.names.map { .object([JSONMember("name", .string($0))]) })
        return .json(JSONWriter.encode(list))
    }

    /// `/.inspect/coverage?ns=` (a page) and `/.inspect/coverage.json`: how often each rule of
    /// the namespace's rules ran since they were installed, and how it came out. The JSON has the
    /// shape of Firestore's `:ruleCoverage` report (``RulesCoverage/json()``).
    func coverageEndpoint(_ http: HTTPRequest, html: Bool) -> HTTPResponse {
        guard http.method == .get || http.method == .head else {
            return Self.error(.methodNotAllowed, "Method not allowed: \(http.method.token)")
        }
        let name = http.query("ns").flatMap { $0.isEmpty ? nil : $0 } ?? configuration.defaultNamespace
        // Asking creates nothing: a namespace nobody used has the standard rules, none of which ran.
        let coverage = service.store.existingNamespace(name)?.rules.coverage ?? DatabaseRules.standard(logger: nil).coverage
        guard html else { return .json(JSONWriter.encode(coverage.json())) }
        var response = HTTPResponse(status: .ok, body: Array(coverage.html(title: "Realtime Database rule coverage: \(name)").utf8))
        response.headers.add("Content-Type", "text/html; charset=utf-8")
        return response
    }
}
