#if canImport(Glibc)
import Glibc
#endif
import EmulatorSupport
import EmulatorTestSupport
import Testing
@testable import EmulatorSuite

/// Security rules from firebase.json's files, enforced over loopback on both emulators, with
/// hot reload when a file changes.
@Suite("Rules end to end")
struct RulesEndToEndTests {
    static let firestoreRules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /open/{id} { allow read, write: if true; }
            match /once/{id} {
              allow read, create: if true;
              allow update: if false;
            }
            match /users/{uid} { allow read, write: if request.auth != null && request.auth.uid == uid; }
            match /debugged/{id} { allow read: if debug(1 + 1) == 2; }
          }
        }
        """
    static let lockedFirestoreRules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /open/{id} { allow read: if true; }
          }
        }
        """
    static let databaseRules = """
        {
          // comments are allowed
          "rules": {
            "open": { ".read": true, ".write": true },
            "users": { "$uid": { ".read": "auth != null && auth.uid == $uid", ".write": "auth != null && auth.uid == $uid" } }
          }
        }
        """

    struct Running {
        let suite: Suite
        let output: CapturedOutput
        let directory: TemporaryDirectory
        let firestorePath: String
        let databasePath: String
        var firestore: Int { suite.port(of: .firestore) ?? 0 }
        var database: Int { suite.port(of: .database) ?? 0 }
    }

    /// A suite whose firebase.json names both rules files, in a temporary directory.
    static func start(project: String = "demo-rules") throws -> Running {
        let directory = TemporaryDirectory()
        let firestorePath = directory.write("firestore.rules", firestoreRules)
        let databasePath = directory.write("database.rules.json", databaseRules)
        var configuration = SuiteConfiguration.ephemeral(projectId: project, kinds: [.firestore, .database])
        configuration.firestoreRules = RulesSource(path: firestorePath, text: firestoreRules)
        configuration.databaseRules = [
            DatabaseRulesBinding(instance: "\(project)-default-rtdb", rules: RulesSource(path: databasePath, text: databaseRules))
        ]
        let output = CapturedOutput()
        let suite = try Suite.start(configuration, console: output.console)
        return Running(suite: suite, output: output, directory: directory, firestorePath: firestorePath, databasePath: databasePath)
    }

    static func send(
        _ port: Int, _ method: String, _ path: String, _ body: String = "", headers: [(String, String)] = []
    ) throws -> LoopbackHTTPClient.Reply {
        try LoopbackHTTPClient.send(
            .init(method: method, host: "127.0.0.1", port: port, path: path, headers: headers, body: Array(body.utf8), timeout: .seconds(5)))
    }

    static func document(_ path: String, project: String = "demo-rules") -> String {
        "/v1/projects/\(project)/databases/(default)/documents/\(path)"
    }

    static let fields = #"{"fields":{"n":{"integerValue":"1"}}}"#

    static func token(uid: String) -> String {
        let header = Base64.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8), alphabet: .urlSafe, padding: false)
        let payload = Base64.encode(Array(#"{"user_id":"\#(uid)","sub":"\#(uid)"}"#.utf8), alphabet: .urlSafe, padding: false)
        return "\(header).\(payload)."
    }

    /// Polls `condition` every 20 ms for up to 5 s.
    static func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        for _ in 0..<250 {
            if try condition() { return true }
            usleep(20_000)
        }
        return false
    }

    @Test func firestoreDenialsNameTheRuleAndLineAndOwnerBypasses() throws {
        let run = try Self.start()
        defer { run.suite.shutdown() }
        #expect(try Self.send(run.firestore, "PATCH", Self.document("once/a"), Self.fields).status == 200)
        let denied = try Self.send(run.firestore, "PATCH", Self.document("once/a"), Self.fields)
        #expect(denied.status == 403)
        let error = try JSONReader.parse(denied.body)[member: "error"]
        #expect(error?[member: "status"] == .string("PERMISSION_DENIED"))
        #expect(error?[member: "message"] == .string("\nfalse for 'update' @ L7"))
        // The owner token in any case, in the header or the query, bypasses the rules.
        #expect(try Self.send(run.firestore, "PATCH", Self.document("once/a"), Self.fields, headers: [("Authorization", "Bearer OWNER")]).status == 200)
        #expect(try Self.send(run.firestore, "PATCH", Self.document("once/a") + "?access_token=owner", Self.fields).status == 200)
        // Unsigned tokens become request.auth; a malformed one is the official "invalid jwt".
        let ada = [("Authorization", "Bearer " + Self.token(uid: "ada"))]
        #expect(try Self.send(run.firestore, "PATCH", Self.document("users/ada"), Self.fields, headers: ada).status == 200)
        #expect(try Self.send(run.firestore, "GET", Self.document("users/ada"), headers: ada).status == 200)
        #expect(try Self.send(run.firestore, "GET", Self.document("users/ada")).status == 403)
        #expect(try Self.send(run.firestore, "PATCH", Self.document("users/bob"), Self.fields, headers: ada).status == 403)
        let malformed = try Self.send(run.firestore, "GET", Self.document("users/ada"), headers: [("Authorization", "Bearer nope")])
        #expect(malformed.status == 400)
        #expect(try JSONReader.parse(malformed.body)[member: "error"]?[member: "message"] == .string("invalid jwt"))
        // Queries are checked too.
        let query = #"{"structuredQuery":{"from":[{"collectionId":"users"}]}}"#
        #expect(try Self.send(run.firestore, "POST", "/v1/projects/demo-rules/databases/(default)/documents:runQuery", query).status == 403)
    }

    @Test func databaseDenialsAre401AndOwnerBypasses() throws {
        let run = try Self.start()
        defer { run.suite.shutdown() }
        let ns = "ns=demo-rules-default-rtdb"
        #expect(try Self.send(run.database, "PUT", "/open/x.json?\(ns)", "1").status == 200)
        let denied = try Self.send(run.database, "PUT", "/secret.json?\(ns)", "1")
        #expect(denied.status == 401)
        #expect(try JSONReader.parse(denied.body) == .object([JSONMember("error", .string("Permission denied"))]))
        #expect(try Self.send(run.database, "GET", "/secret.json?\(ns)").status == 401)
        #expect(try Self.send(run.database, "GET", "/secret.json?\(ns)", headers: [("Accept", "text/event-stream")]).status == 401)
        #expect(try Self.send(run.database, "PUT", "/secret.json?\(ns)", "2", headers: [("Authorization", "Bearer Owner")]).status == 200)
        #expect(try Self.send(run.database, "GET", "/secret.json?\(ns)&access_token=owner").text == "2")
        let token = Self.token(uid: "ada")
        #expect(try Self.send(run.database, "PUT", "/users/ada.json?\(ns)&auth=\(token)", "3").status == 200)
        #expect(try Self.send(run.database, "PUT", "/users/bob.json?\(ns)&auth=\(token)", "3").status == 401)
        #expect(try Self.send(run.database, "GET", "/users/ada.json?\(ns)&auth=garbage").status == 401)
    }

    @Test func editedRulesFilesTakeEffectForTheNextRequest() throws {
        let run = try Self.start()
        defer { run.suite.shutdown() }
        #expect(try Self.send(run.firestore, "PATCH", Self.document("open/a"), Self.fields).status == 200)
        run.directory.write("firestore.rules", Self.lockedFirestoreRules)
        #expect(try Self.eventually { try Self.send(run.firestore, "PATCH", Self.document("open/a"), Self.fields).status == 403 })
        // Every project id sees the new rules (firebase-tools#2603 kept the old ones there).
        #expect(try Self.send(run.firestore, "PATCH", Self.document("open/a", project: "other-project"), Self.fields).status == 403)
        #expect(run.output.standardOutput.contains("firestore: Rules updated."))

        let ns = "ns=demo-rules-default-rtdb"
        #expect(try Self.send(run.database, "PUT", "/open/x.json?\(ns)", "1").status == 200)
        run.directory.write("database.rules.json", #"{"rules": {"open": {".read": true}}}"#)
        #expect(try Self.eventually { try Self.send(run.database, "PUT", "/open/x.json?\(ns)", "2").status == 401 })
        #expect(run.output.standardOutput.contains("database: Change detected, updating rules for demo-rules-default-rtdb..."))
    }

    @Test func aBrokenRulesFileKeepsThePreviousRulesAndSaysWhere() throws {
        let run = try Self.start()
        defer { run.suite.shutdown() }
        run.directory.write("firestore.rules", "rules_version = '2';\nservice cloud.firestore {\n  match /x { allow read: if ; }\n}\n")
        #expect(Self.eventually { run.output.standardOutput.contains("\(run.firestorePath):3:") })
        #expect(run.output.standardOutput.contains("Failed to update rules"))
        #expect(try Self.send(run.firestore, "PATCH", Self.document("open/a"), Self.fields).status == 200)
        #expect(try Self.send(run.firestore, "GET", Self.document("users/ada")).status == 403)

        run.directory.write("database.rules.json", "{\"rules\": {\n  \".read\": \"auth.\"\n}}")
        #expect(Self.eventually { run.output.standardOutput.contains("\(run.databasePath):2:") })
        #expect(try Self.send(run.database, "PUT", "/open/x.json?ns=demo-rules-default-rtdb", "1").status == 200)
        #expect(try Self.send(run.database, "GET", "/secret.json?ns=demo-rules-default-rtdb").status == 401)
    }

    @Test func aFirestoreRulesFileThatDoesNotCompileAtStartDeniesUntilFixed() throws {
        let directory = TemporaryDirectory()
        let broken = "rules_version = '2';\nservice cloud.firestore {\n  match /x { allow read: if ; }\n}\n"
        let path = directory.write("firestore.rules", broken)
        var configuration = SuiteConfiguration.ephemeral(projectId: "demo-rules", kinds: [.firestore])
        configuration.firestoreRules = RulesSource(path: path, text: broken)
        let output = CapturedOutput()
        let suite = try Suite.start(configuration, console: output.console)
        defer { suite.shutdown() }
        let port = try #require(suite.port(of: .firestore))
        #expect(output.standardOutput.contains("\(path):3:"))
        #expect(output.standardOutput.contains("every request except the owner's is denied"))
        // Never open rules: every request is denied and says why; the owner still gets through.
        let denied = try Self.send(port, "PATCH", Self.document("open/a"), Self.fields)
        #expect(denied.status == 403)
        let text = String(decoding: denied.body, as: UTF8.self)
        #expect(text.contains("did not compile") && text.contains("\(path):3:"))
        #expect(try Self.send(port, "GET", Self.document("open/a")).status == 403)
        #expect(try Self.send(port, "PATCH", Self.document("open/a"), Self.fields, headers: [("Authorization", "Bearer owner")]).status == 200)
        // Fixing the file takes effect through hot reload.
        directory.write("firestore.rules", Self.firestoreRules)
        #expect(try Self.eventually { try Self.send(port, "PATCH", Self.document("open/b"), Self.fields).status == 200 })
        #expect(try Self.send(port, "GET", Self.document("users/ada")).status == 403)
    }

    @Test func debugOutputGoesToTheSuiteLog() throws {
        let run = try Self.start()
        defer { run.suite.shutdown() }
        #expect(try Self.send(run.firestore, "GET", Self.document("debugged/a")).status == 404)
        #expect(run.output.standardOutput.contains("firestore: debug: 2"))
    }

    @Test func aBrokenDatabaseRulesFileStopsTheStart() throws {
        let directory = TemporaryDirectory()
        let path = directory.write("database.rules.json", "{\"rules\": {\".read\": \"nope(\"}}")
        var configuration = SuiteConfiguration.ephemeral(projectId: "demo-broken", kinds: [.database])
        configuration.databaseRules = [DatabaseRulesBinding(instance: "demo-broken-default-rtdb", rules: RulesSource(path: path, text: "{\"rules\": {\".read\": \"nope(\"}}"))]
        #expect {
            try Suite.start(configuration, console: CapturedOutput().console)
        } throws: { error in
            guard let error = error as? SuiteStartError else { return false }
            return error.code == .rulesFailed && error.message.contains("\(path):1:")
        }
    }

    @Test func withoutRulesFilesEverythingIsOpen() throws {
        let suite = try Suite.start(.ephemeral(projectId: "demo-open", kinds: [.firestore, .database]))
        defer { suite.shutdown() }
        let firestore = try #require(suite.port(of: .firestore))
        let database = try #require(suite.port(of: .database))
        #expect(try Self.send(firestore, "PATCH", Self.document("any/a", project: "demo-open"), Self.fields).status == 200)
        #expect(try Self.send(database, "PUT", "/any.json?ns=demo-open-default-rtdb", "1").status == 200)
    }
}
