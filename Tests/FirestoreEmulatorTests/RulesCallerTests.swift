import EmulatorHTTP
import EmulatorSupport
import Synchronization
import Testing
@testable import FirestoreEmulator

/// Who a request is (owner, a token's user, nobody), and replacing the default rules.
@Suite struct RulesCallerTests {
    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /once/{id} {
              allow read, create: if true;
              allow update: if false;
            }
            match /logged/{id} { allow get: if debug(request.path) != null && debug(40 + 2) == 0; }
          }
        }
        """

    static func gate(_ source: String, logger: Logger? = nil) -> FirestoreRulesGate {
        FirestoreRulesEngine.compile(source, logger: logger).gate ?? .denyAll
    }

    static let doc = "/v1/projects/demo/databases/(default)/documents/once/a"
    static let body = #"{"fields":{"n":{"integerValue":"1"}}}"#

    @Test(arguments: [
        [("Authorization", "Bearer owner")], [("Authorization", "bearer OWNER")], [("Authorization", "BEARER Owner ")],
    ])
    func theOwnerTokenInAnyCaseBypassesRules(_ headers: [(String, String)]) {
        let c = FirestoreTestClient(rules: Self.gate(Self.rules))
        #expect(c.send(.patch, Self.doc, Self.body).status == 200)
        #expect(c.send(.patch, Self.doc, Self.body).status == 403)
        #expect(c.send(.patch, Self.doc, Self.body, headers: headers).status == 200)
    }

    /// `Authorization` values as the split-and-lowercase reading of them named them.
    static let authorizations: [(String?, FirestoreCaller)] = [
        (nil, .anonymous), ("", .anonymous), ("Bearer", .anonymous), ("Bearer ", .anonymous), ("Bearer   ", .anonymous),
        ("Bearer owner", .owner), ("  bEaReR   OWNER  ", .owner), ("Bearer ownerx", .user(token: "ownerx")),
        ("Bearer a b", .user(token: "a b")), ("Basic owner", .anonymous), ("Bearerowner", .anonymous),
        ("Bearer\towner", .anonymous), ("Bearer \towner", .user(token: "\towner")), ("Bearer \u{D6}wner", .user(token: "\u{D6}wner")),
        ("Beárer owner", .anonymous),
    ]

    @Test(arguments: authorizations)
    func authorizationNamesTheCaller(_ value: String?, _ caller: FirestoreCaller) {
        #expect(FirestoreCaller(authorization: value) == caller)
    }

    @Test func accessTokenOwnerInTheQueryBypassesRules() {
        let c = FirestoreTestClient(rules: Self.gate(Self.rules))
        #expect(c.send(.patch, Self.doc, Self.body).status == 200)
        #expect(c.send(.patch, Self.doc + "?access_token=owner", Self.body).status == 200)
        #expect(c.send(.patch, Self.doc + "?access_token=someone", Self.body).json.errorStatus == "INVALID_ARGUMENT")
    }

    @Test func aDenialNamesTheRuleAndLine() {
        let c = FirestoreTestClient(rules: Self.gate(Self.rules))
        #expect(c.send(.patch, Self.doc, Self.body).status == 200)
        let denied = c.send(.patch, Self.doc, Self.body)
        #expect(denied.json.errorStatus == "PERMISSION_DENIED")
        #expect(denied.json[member: "error"]?[member: "message"]?.string == "\nfalse for 'update' @ L6")
    }

    @Test func newDefaultRulesApplyToTheNextRequestOfEveryProjectWithoutAnUpload() {
        let c = FirestoreTestClient(rules: .allowAll)
        #expect(c.send(.patch, Self.doc, Self.body).status == 200)
        c.emulator.service.setDefaultRules(Self.gate(Self.rules), replacingProject: "demo")
        #expect(c.send(.patch, Self.doc, Self.body).status == 403)
        let other = "/v1/projects/other/databases/(default)/documents/once/a"
        #expect(c.send(.patch, other, Self.body).status == 200)
        #expect(c.send(.patch, other, Self.body).status == 403)
        // A project's own upload wins over the default until the default replaces that project.
        c.emulator.service.setRules(.allowAll, project: "other")
        #expect(c.send(.patch, other, Self.body).status == 200)
        c.emulator.service.setDefaultRules(Self.gate(Self.rules), replacingProject: "other")
        #expect(c.send(.patch, other, Self.body).status == 403)
    }

    /// Rules that read `resource` only through a function still see the stored fields; rules
    /// that never read it still tell create from update.
    @Test func storedFieldsReachRulesThatReadResourceAnywhere() {
        let reading = Self.gate("""
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                function stored() { return resource.data.n; }
                match /once/{id} { allow create: if true; allow update: if stored() == 1; }
              }
            }
            """)
        let c = FirestoreTestClient(rules: reading)
        #expect(c.send(.patch, Self.doc, Self.body).status == 200)  // create, n = 1
        #expect(c.send(.patch, Self.doc, #"{"fields":{"n":{"integerValue":"2"}}}"#).status == 200)  // stored n == 1
        #expect(c.send(.patch, Self.doc, Self.body).status == 403)  // stored n == 2
        let blind = FirestoreTestClient(rules: Self.gate(Self.rules))
        #expect(blind.send(.patch, Self.doc, Self.body).status == 200)
        #expect(blind.send(.patch, Self.doc, Self.body).status == 403)
    }

    @Test func debugCallsAreLogged() {
        let log = MemoryLogHandler()
        let c = FirestoreTestClient(rules: Self.gate(Self.rules, logger: Logger(label: "firestore", verbosity: .debug, handler: log)))
        #expect(c.send(.get, "/v1/projects/demo/databases/(default)/documents/logged/a").status == 403)
        let messages = log.records.map(\.message)
        #expect(messages.contains("debug: 42"))
        #expect(messages.contains { $0.hasPrefix("debug: path(") || $0.hasPrefix("debug: /databases") })
        #expect(messages.contains { $0.hasPrefix("PERMISSION_DENIED get projects/demo/databases/(default)/documents/logged/a") })
    }
}
