import EmulatorHTTP
import Testing

/// A page on another site must not replace rules or wipe data through the user's browser.
@Suite struct AdminOriginTests {
    static let rules = #"{"rules":{"files":[{"name":"security.rules","content":"rules_version = '2';"}]}}"#

    @Test func foreignOriginsCannotClearDocumentsOrUploadRules() {
        let c = FirestoreTestClient()
        c.set([("a/1", "{}")])
        let evil = [("Origin", "https://evil.example")]
        let clear = c.send(.delete, "/emulator/v1/projects/demo/databases/(default)/documents", headers: evil)
        #expect(clear.status == 403)
        #expect(clear.json.errorStatus == "PERMISSION_DENIED")
        #expect(c.send(.get, "/v1/\(c.name("a/1"))").status == 200)
        #expect(c.send(.put, "/emulator/v1/projects/demo:securityRules", Self.rules, headers: evil).status == 403)
    }

    @Test func loopbackOriginsAndToolsStillCan() {
        let c = FirestoreTestClient()
        c.set([("a/1", "{}")])
        let local = [("Origin", "http://localhost:5173")]
        #expect(c.send(.put, "/emulator/v1/projects/demo:securityRules", Self.rules, headers: local).status == 200)
        #expect(c.send(.put, "/emulator/v1/projects/demo:securityRules", Self.rules).status == 200)
        #expect(c.send(.delete, "/emulator/v1/projects/demo/databases/(default)/documents", headers: local).status == 200)
        #expect(c.send(.get, "/v1/\(c.name("a/1"))").status == 404)
    }
}
