import DatabaseEmulator
import EmulatorHTTP
import EmulatorSupport
import Testing

/// `/.settings/rules.json`, admin tokens and rules denials.
@Suite struct RulesEndpointTests {
    @Test func defaultRulesAreOpen() {
        let db = DatabaseTestClient()
        let r = db.get("/.settings/rules.json?ns=r", headers: DatabaseTestClient.owner)
        #expect(r.status.code == 200)
        #expect(json(r) == j(#"{"rules":{".read":true,".write":true}}"#))
        #expect(db.put("/x.json?ns=r", "1").status.code == 200)
        #expect(db.value("/x.json?ns=r") == .int(1))
    }

    @Test func rulesNeedTheOwnerToken() {
        let db = DatabaseTestClient()
        #expect(db.get("/.settings/rules.json?ns=r").status.code == 401)
        #expect(db.get("/.settings/rules.json?ns=r&access_token=owner").status.code == 200)
        #expect(db.put("/.settings/rules.json?ns=r", #"{"rules":{}}"#).status.code == 401)
    }

    @Test func putRulesWithCommentsThenGetStrict() {
        let db = DatabaseTestClient()
        let text = "{\n  // locked\n  \"rules\": {\".read\": false, \"public\": {\".read\": true}}\n}"
        #expect(db.put("/.settings/rules.json?ns=r", text, headers: DatabaseTestClient.owner).status.code == 200)
        #expect(db.get("/.settings/rules.json?ns=r", headers: DatabaseTestClient.owner).bodyText == text)
        let strict = db.get("/.settings/rules.json?ns=r&format=strict", headers: DatabaseTestClient.owner)
        #expect(json(strict) == j(#"{"rules":{".read":false,"public":{".read":true}}}"#))
    }

    @Test func badRulesAre400WithAMessageAndKeepTheOldRules() {
        let db = DatabaseTestClient()
        let r = db.put("/.settings/rules.json?ns=r", #"{"rules": {"#, headers: DatabaseTestClient.owner)
        #expect(r.status.code == 400)
        #expect(errorText(r)?.isEmpty == false)
        #expect(db.put("/x.json?ns=r", "1").status.code == 200)
    }

    @Test func deniedRequestsAre401PermissionDeniedAndOwnerBypasses() {
        let db = DatabaseTestClient()
        db.put("/.settings/rules.json?ns=r", #"{"rules":{"public":{".read":true,".write":"true"}}}"#, headers: DatabaseTestClient.owner)
        let denied = db.put("/private.json?ns=r", "1")
        #expect(denied.status.code == 401)
        #expect(errorText(denied) == "Permission denied")
        #expect(db.get("/private.json?ns=r").status.code == 401)
        #expect(db.put("/public/x.json?ns=r", "1").status.code == 200)
        #expect(db.value("/public/x.json?ns=r") == .int(1))
        #expect(db.put("/private.json?ns=r", "2", headers: DatabaseTestClient.owner).status.code == 200)
        #expect(db.put("/private.json?ns=r&access_token=owner", "3").status.code == 200)
        #expect(db.get("/private.json?ns=r&auth=owner").bodyText == "3")
        // A multi-path update with one denied path writes nothing.
        let patch = db.patch("/.json?ns=r", #"{"public/y":1,"private":9}"#)
        #expect(patch.status.code == 401)
        #expect(db.value("/public/y.json?ns=r&access_token=owner") == .null)
    }

    @Test func authVariableOverrideDropsAdminRights() {
        let db = DatabaseTestClient()
        db.put("/.settings/rules.json?ns=r", #"{"rules":{"public":{".read":true}}}"#, headers: DatabaseTestClient.owner)
        db.put("/secret.json?ns=r", "1", headers: DatabaseTestClient.owner)
        let r = db.get("/secret.json?ns=r&auth_variable_override=null", headers: DatabaseTestClient.owner)
        #expect(r.status.code == 401)
        let p = db.get("/public.json?ns=r&auth_variable_override=%7B%22uid%22%3A%22u1%22%7D", headers: DatabaseTestClient.owner)
        #expect(p.status.code == 200)
    }

    @Test func namespacesHaveTheirOwnRules() {
        let db = DatabaseTestClient()
        db.put("/.settings/rules.json?ns=locked", #"{"rules":{}}"#, headers: DatabaseTestClient.owner)
        #expect(db.put("/x.json?ns=locked", "1").status.code == 401)
        #expect(db.put("/x.json?ns=open", "1").status.code == 200)
    }

    @Test func unsignedJWTIsAcceptedAsAUser() {
        let db = DatabaseTestClient()
        // {"alg":"none","type":"JWT"} . {"sub":"alice","user_id":"alice"} . (empty signature)
        let token = "eyJhbGciOiJub25lIiwidHlwZSI6IkpXVCJ9.eyJzdWIiOiJhbGljZSIsInVzZXJfaWQiOiJhbGljZSJ9."
        #expect(db.get("/x.json?ns=r&auth=" + token).status.code == 200)
        #expect(db.get("/x.json?ns=r", headers: [("Authorization", "Bearer " + token)]).status.code == 200)
    }
}

/// Rule expressions through the SecurityRules engine.
@Suite struct RuleExpressionTests {
    static let rules = #"""
        {
          "rules": {
            "users": {
              "$uid": {
                ".read": "auth != null",
                ".write": "$uid === auth.uid",
                ".validate": "newData.hasChildren(['name'])"
              }
            },
            "counter": { ".write": true, ".validate": "newData.isNumber() && (!data.exists() || newData.val() > data.val())" },
            "stamped": { ".write": true, ".validate": "newData.val() === now" }
          }
        }
        """#

    func setUp() -> DatabaseTestClient {
        let db = DatabaseTestClient(now: 5_000)
        db.put("/.settings/rules.json?ns=x", Self.rules, headers: DatabaseTestClient.owner)
        return db
    }

    /// `auth_variable_override` for `{"uid": uid}` with the owner token.
    static func asUser(_ uid: String) -> String {
        "&access_token=owner&auth_variable_override=%7B%22uid%22%3A%22\(uid)%22%7D"
    }

    @Test func ownerOfAPathMayWriteIt() {
        let db = setUp()
        #expect(db.put("/users/alice.json?ns=x" + Self.asUser("alice"), #"{"name":"A"}"#).status.code == 200)
        #expect(db.put("/users/alice.json?ns=x" + Self.asUser("bob"), #"{"name":"B"}"#).status.code == 401)
        #expect(db.put("/users/alice.json?ns=x", #"{"name":"C"}"#).status.code == 401)
        #expect(db.value("/users/alice/name.json?ns=x&access_token=owner") == .string("A"))
    }

    @Test func readNeedsAuthentication() {
        let db = setUp()
        db.put("/users/alice.json?ns=x", #"{"name":"A"}"#, headers: DatabaseTestClient.owner)
        #expect(db.get("/users/alice.json?ns=x").status.code == 401)
        #expect(db.get("/users/alice.json?ns=x" + Self.asUser("bob")).status.code == 200)
        let token = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSIsInVzZXJfaWQiOiJhbGljZSJ9."  // sub/user_id alice
        #expect(db.get("/users/alice.json?ns=x&auth=" + token).status.code == 200)
        #expect(db.put("/users/alice.json?ns=x&auth=" + token, #"{"name":"Z"}"#).status.code == 200)
    }

    @Test func validateSeesNewDataAndData() {
        let db = setUp()
        #expect(db.put("/users/alice.json?ns=x" + Self.asUser("alice"), #"{"age":3}"#).status.code == 401)
        #expect(db.put("/counter.json?ns=x", "1").status.code == 200)
        #expect(db.put("/counter.json?ns=x", "0").status.code == 401)
        #expect(db.put("/counter.json?ns=x", #"{".sv":{"increment":1}}"#).status.code == 200)
        #expect(db.value("/counter.json?ns=x&access_token=owner") == .int(2))
        #expect(db.put("/stamped.json?ns=x", #"{".sv":"timestamp"}"#).status.code == 200)
        #expect(db.put("/stamped.json?ns=x", "4999").status.code == 401)
    }

    @Test func aDeniedPathInAMultiPathUpdateWritesNothing() {
        let db = setUp()
        let r = db.patch("/.json?ns=x" + Self.asUser("alice"), #"{"users/alice/name":"A","users/bob/name":"B"}"#)
        #expect(r.status.code == 401)
        #expect(db.value("/users.json?ns=x&access_token=owner") == .null)
    }
}
