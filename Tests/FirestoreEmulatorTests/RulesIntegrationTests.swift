import EmulatorHTTP
import EmulatorSupport
import Testing

/// Rules uploaded through `:securityRules` are enforced by the SecurityRules engine.
@Suite struct RulesIntegrationTests {
    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /posts/{postId} {
              allow read: if true;
              allow create: if request.auth != null && request.resource.data.authorId == request.auth.uid
                && request.resource.data.title is string;
              allow update, delete: if request.auth != null && resource.data.authorId == request.auth.uid;
            }
            match /small/{id} {
              allow get: if true;
              allow list: if request.query.limit <= 10;
              allow write: if exists(/databases/$(database)/documents/keys/$(id));
            }
            match /keys/{id} { allow read, write: if true; }
            match /paired/{id} {
              allow write: if existsAfter(/databases/$(database)/documents/keys/$(id))
                && !exists(/databases/$(database)/documents/keys/$(id));
            }
          }
        }
        """

    static func token(uid: String) -> String {
        let header = Base64.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8), alphabet: .urlSafe, padding: false)
        let payload = Base64.encode(Array(#"{"user_id":"\#(uid)","sub":"\#(uid)"}"#.utf8), alphabet: .urlSafe, padding: false)
        return "Bearer \(header).\(payload)."
    }

    func client() -> FirestoreTestClient {
        let c = FirestoreTestClient(rulesEngine: true)
        let body = JSONWriter.encodeToString(.object([
            JSONMember("rules", .object([JSONMember("files", .array([.object([JSONMember("content", .string(Self.rules))])]))]))
        ]))
        let r = c.send(.put, "/emulator/v1/projects/demo:securityRules", body)
        #expect(r.status == 200, "\(r.text)")
        return c
    }

    func create(_ c: FirestoreTestClient, _ path: String, _ fields: String, auth: String?) -> FirestoreTestClient.Response {
        c.send(.post, "/v1/\(c.root):commit", #"{"writes":[{"update":{"name":"\#(c.name(path))","fields":\#(fields)},"currentDocument":{"exists":false}}]}"#,
            headers: auth.map { [("Authorization", $0)] } ?? [])
    }

    @Test func writesNeedTheRightAuthAndData() {
        let c = client()
        let post = #"{"authorId":{"stringValue":"ada"},"title":{"stringValue":"Hi"}}"#
        let anonymous = create(c, "posts/p1", post, auth: nil)
        #expect(anonymous.status == 403)
        #expect(anonymous.json.errorStatus == "PERMISSION_DENIED")
        #expect(create(c, "posts/p1", post, auth: Self.token(uid: "bob")).status == 403)
        #expect(create(c, "posts/p1", #"{"authorId":{"stringValue":"ada"}}"#, auth: Self.token(uid: "ada")).status == 403)
        #expect(create(c, "posts/p1", post, auth: Self.token(uid: "ada")).status == 200)
        #expect(c.send(.get, "/v1/\(c.name("posts/p1"))").status == 200)
        let delete = c.send(.delete, "/v1/\(c.name("posts/p1"))", headers: [("Authorization", Self.token(uid: "bob"))])
        #expect(delete.status == 403)
        let owner = c.send(.delete, "/v1/\(c.name("posts/p1"))", headers: [("Authorization", "Bearer owner")])
        #expect(owner.status == 200)
        let bad = c.send(.get, "/v1/\(c.name("posts/p1"))", headers: [("Authorization", "Bearer not-a-jwt")])
        #expect(bad.json.errorStatus == "INVALID_ARGUMENT")
    }

    @Test func queriesAreCheckedByTheirConstraints() {
        let c = client()
        let ok = c.query(#"{"from":[{"collectionId":"small"}],"limit":5}"#)
        #expect(ok.status == 200)
        let tooBig = c.query(#"{"from":[{"collectionId":"small"}],"limit":20}"#)
        #expect(tooBig.status == 403)
        #expect(c.query(#"{"from":[{"collectionId":"small"}]}"#).status == 403)
    }

    @Test func getAndExistsReadOtherDocuments() {
        let c = client()
        #expect(create(c, "small/a", "{}", auth: nil).status == 403)
        #expect(create(c, "keys/a", "{}", auth: nil).status == 200)
        #expect(create(c, "small/a", "{}", auth: nil).status == 200)
    }

    @Test func getAfterSeesTheWholeBatchAndGetTheStateBefore() {
        let c = client()
        func commit(_ paths: [String]) -> Int {
            let writes = paths.map { #"{"update":{"name":"\#(c.name($0))","fields":{}}}"# }.joined(separator: ",")
            return c.post(":commit", #"{"writes":[\#(writes)]}"#).status
        }
        #expect(commit(["paired/p"]) == 403)
        #expect(commit(["paired/p", "keys/p"]) == 200)
        #expect(c.send(.get, "/v1/\(c.name("keys/p"))").status == 200)
        // The key exists before this batch now, so `!exists(...)` fails and nothing is written.
        #expect(commit(["keys/q", "paired/p"]) == 403)
        #expect(c.send(.get, "/v1/\(c.name("keys/q"))").status == 404)
    }

    @Test func invalidRulesReportIssuesAndKeepTheOldRules() {
        let c = client()
        let body = #"{"rules":{"files":[{"name":"security.rules","content":"rules_version = '2';\nservice cloud.firestore {\n  match /x { allow read: if ; }\n}"}]}}"#
        let r = c.send(.put, "/emulator/v1/projects/demo:securityRules", body)
        #expect(r.status == 400)
        let issue = r.json[member: "issues"]?.array?.first
        #expect(issue?[member: "sourcePosition"]?[member: "line"]?.int == 3)
        #expect(issue?[member: "severity"]?.string == "ERROR")
        let ignored = c.send(.put, "/emulator/v1/projects/demo:securityRules", String(body.dropLast()) + #","ignore_errors":true}"#)
        #expect(ignored.status == 200)
        #expect(create(c, "posts/p2", "{}", auth: nil).status == 403)
    }
}
