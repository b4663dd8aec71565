import EmulatorModel
import EmulatorStorage
import FirestoreEmulator
import EmulatorHTTP
import EmulatorSupport
import Testing

@Suite struct IsolationTests {
    @Test func projectsAndDatabasesNeverMix() {
        let c = FirestoreTestClient()
        let targets = ["projects/p1/databases/(default)", "projects/p2/databases/(default)", "projects/p1/databases/named-db"]
        for (i, t) in targets.enumerated() {
            let r = c.send(.post, "/v1/\(t)/documents:commit", #"{"writes":[{"update":{"name":"\#(t)/documents/c/d","fields":{"i":{"integerValue":"\#(i)"}}}}]}"#)
            #expect(r.status == 200, "\(r.text)")
        }
        for (i, t) in targets.enumerated() {
            let r = c.send(.post, "/v1/\(t)/documents:runQuery", #"{"structuredQuery":{"from":[{"collectionId":"c"}]}}"#)
            let docs = r.json.array?.compactMap { $0[member: "document"] } ?? []
            #expect(docs.count == 1)
            #expect(docs.first?[member: "fields"]?[member: "i"]?[member: "integerValue"]?.string == "\(i)")
            #expect(docs.first?[member: "name"]?.string == "\(t)/documents/c/d")
        }
        // Percent-encoded (default) is the same database.
        let encoded = c.send(.get, "/v1/projects/p1/databases/%28default%29/documents/c/d")
        #expect(encoded.json[member: "fields"]?[member: "i"]?[member: "integerValue"]?.string == "0")
    }

    @Test func writeToAnotherDatabaseIsRejected() {
        let c = FirestoreTestClient()
        let r = c.post(":commit", #"{"writes":[{"update":{"name":"projects/other/databases/(default)/documents/c/d","fields":{}}}]}"#)
        #expect(r.json.errorStatus == "INVALID_ARGUMENT")
    }

    @Test func emulatorDeleteClearsADatabaseOrASubtree() {
        let c = FirestoreTestClient()
        c.set([("a/1", "{}"), ("a/2", "{}"), ("a/1/sub/x", "{}"), ("b/1", "{}")])
        let other = c.send(.post, "/v1/projects/demo/databases/other/documents:commit", #"{"writes":[{"update":{"name":"projects/demo/databases/other/documents/a/1","fields":{}}}]}"#)
        #expect(other.status == 200)
        let sub = c.send(.delete, "/emulator/v1/projects/demo/databases/(default)/documents/a/1")
        #expect(sub.status == 200)
        #expect(c.send(.get, "/v1/\(c.name("a/1"))").status == 404)
        #expect(c.send(.get, "/v1/\(c.name("a/1/sub/x"))").status == 404)
        #expect(c.send(.get, "/v1/\(c.name("a/2"))").status == 200)
        let all = c.send(.delete, "/emulator/v1/projects/demo/databases/(default)/documents")
        #expect(all.status == 200)
        #expect(c.send(.get, "/v1/\(c.name("b/1"))").status == 404)
        #expect(c.send(.get, "/v1/projects/demo/databases/other/documents/a/1").status == 200)
    }

    @Test func securityRulesEndpointAnswersIssues() {
        let c = FirestoreTestClient()
        let r = c.send(.put, "/emulator/v1/projects/demo:securityRules", #"{"rules":{"files":[{"name":"security.rules","content":"rules_version = '2';"}]}}"#)
        #expect(r.status == 200)
        #expect(r.json[member: "issues"]?.array != nil)
    }

    @Test func rulesGateDeniesNonOwners() {
        let c = FirestoreTestClient(rules: .denyAll)
        let denied = c.send(.post, "/v1/\(c.root)/c?documentId=d", "{}")
        #expect(denied.status == 403)
        #expect(denied.json.errorStatus == "PERMISSION_DENIED")
        let owner = c.send(.post, "/v1/\(c.root)/c?documentId=d", "{}", headers: [("Authorization", "Bearer owner")])
        #expect(owner.status == 200)
        #expect(c.send(.get, "/v1/\(c.name("c/d"))").status == 403)
        #expect(c.query(#"{"from":[{"collectionId":"c"}]}"#).status == 403)
    }

    @Test func rulesGateSeesPathsAndExistingDocuments() {
        let gate = FirestoreRulesGate { access, lookup in
            if access.path.segments.first == "locked" { return false }
            // Writes to "needs" require that a "keys/<id>" document exists (a rules get()).
            if access.path.segments.first == "needs", let id = access.path.lastSegment {
                return lookup(.init(segments: ["keys", id])) != nil
            }
            return true
        }
        let c = FirestoreTestClient(rules: gate)
        #expect(c.set([("open/a", "{}")]).status == 200)
        #expect(c.set([("locked/a", "{}")]).json.errorStatus == "PERMISSION_DENIED")
        #expect(c.set([("needs/k1", "{}")]).json.errorStatus == "PERMISSION_DENIED")
        // Lookups see the state before the commit: a key written in the same batch does not count.
        #expect(c.set([("keys/k1", "{}"), ("needs/k1", "{}")]).json.errorStatus == "PERMISSION_DENIED")
        #expect(c.set([("keys/k1", "{}")]).status == 200)
        #expect(c.set([("needs/k1", "{}")]).status == 200)
        #expect(c.send(.get, "/v1/\(c.name("locked/a"))").status == 403)
    }

    @Test func singleProjectModeWarnsOncePerOtherProject() {
        let logs = MemoryLogHandler()
        let emulator = FirestoreEmulator(
            storage: StorageEngine(),
            configuration: .init(projectID: "demo", logger: Logger(label: "firestore", handler: logs)))
        for project in ["demo", "other", "other"] {
            let r = emulator.router.respond(to: HTTPRequest(method: .get, target: "/v1/projects/\(project)/databases/(default)/documents/c/d"))
            #expect(r.status.code == 404)
        }
        let warnings = logs.records.filter { $0.level == .warning }
        #expect(warnings.count == 1)
        #expect(warnings.first?.message.contains("Requested project ID other") == true)
    }
}
