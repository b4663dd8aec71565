package import EmulatorHTTP
import EmulatorModel
import EmulatorSupport
import SecurityRules

extension FirestoreREST {
    /// `DELETE /emulator/v1/projects/{p}/databases/{d}/documents[/{path}]` clears documents;
    /// `PUT /emulator/v1/projects/{p}:securityRules` replaces the project's rules;
    /// `GET /emulator/v1/projects/{p}:ruleCoverage` (JSON) and `:ruleCoverage.html` report how
    /// often each rule of the project's rules ran, and how it came out (``RulesCoverage``).
    /// Pages on other sites are refused (``AdminOriginCheck``): through the user's browser they
    /// could otherwise replace rules or wipe data.
    package func respondAdmin(to request: HTTPRequest) -> HTTPResponse {
        guard AdminOriginCheck.permits(request) else { return Self.failure(.permissionDenied(AdminOriginCheck.refusal)) }
        do {
            var segments = request.rawPath.split(separator: "/", omittingEmptySubsequences: false)
            guard segments.count >= 4, segments[0].isEmpty, segments[1] == "emulator", segments[2] == "v1" else {
                throw EmulatorError.notFound("Unknown path \(request.rawPath).")
            }
            segments.removeFirst(3)
            if segments.last?.isEmpty == true { segments.removeLast() }
            if segments.count == 2, segments[0] == "projects",
                let suffix = [":ruleCoverage", ":ruleCoverage.html"].first(where: { segments[1].hasSuffix($0) })
            {
                guard request.method == .get || request.method == .head else {
                    throw EmulatorError.unimplemented("Use GET to read rule coverage.")
                }
                let raw = segments[1].dropLast(suffix.count)
                return ruleCoverage(project: PercentEncoding.decode(raw) ?? String(raw), html: suffix.hasSuffix(".html"))
            }
            if segments.count == 2, segments[0] == "projects", segments[1].hasSuffix(":securityRules") {
                guard request.method == .put || request.method == .post else {
                    throw EmulatorError.unimplemented("Use PUT to set security rules.")
                }
                let raw = segments[1].dropLast(":securityRules".count)
                return try setRules(project: PercentEncoding.decode(raw) ?? String(raw), request)
            }
            guard request.method == .delete else {
                throw EmulatorError.notFound("Unknown emulator endpoint \(request.method.token) \(request.rawPath).")
            }
            let path = try RESTPath(segments: segments, allowMethod: false)
            service.clear(path.database, under: path.path)
            return Self.ok(Array("{}".utf8))
        } catch let e as EmulatorError {
            return Self.failure(e)
        } catch {
            return Self.failure(.internal("\(error)"))
        }
    }

    private func ruleCoverage(project: String, html: Bool) -> HTTPResponse {
        let coverage = service.gate(DatabaseID(project: project, database: "(default)")).coverage
        if html {
            let title = "Firestore rule coverage: \(project)"
            let page =
                coverage?.html(title: title)
                ?? RulesCoverage.emptyPage(title: title, message: "No rules file is in force: every request is allowed.")
            var response = HTTPResponse(status: .ok, body: Array(page.utf8))
            response.headers.add("Content-Type", "text/html; charset=utf-8")
            response.headers.add("Cache-Control", "no-store")
            return response
        }
        let document = coverage?.json() ?? RulesCoverage.emptyJSON
        return Self.ok(JSONWriter.encode(document))
    }

    private func setRules(project: String, _ request: HTTPRequest) throws(EmulatorError) -> HTTPResponse {
        let body = try Self.body(request, .open)
        let rules = try body.object("rules", .open)
        var source = ""
        for f in try rules?.array("files") ?? [] {
            let file = try JSONObject(f, context: "rules.files", message: .open)
            source += try file.string("content") ?? ""
        }
        var issues: [FirestoreRulesIssue] = []
        if let rulesLoader {
            let (gate, found) = rulesLoader(source)
            issues = found
            if let gate { service.setRules(gate, project: project) }
        }
        var w = JSONWriter()
        w.beginObject()
        w.appendKey("issues")
        w.beginArray()
        for i in issues {
            w.beginObject()
            w.appendKey("sourcePosition")
            w.beginObject()
            w.appendKey("fileName")
            w.appendString("security.rules")
            w.appendKey("line")
            w.appendInt(i.line)
            w.appendKey("column")
            w.appendInt(i.column)
            w.endObject()
            w.appendKey("description")
            w.appendString(i.description)
            w.appendKey("severity")
            w.appendString(i.severity)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        let ignoreErrors = try body.bool("ignoreErrors") ?? false
        let failed = !ignoreErrors && issues.contains { $0.severity == "ERROR" }
        return HTTPResponse.json(w.bytes, status: failed ? .badRequest : .ok)
    }
}
