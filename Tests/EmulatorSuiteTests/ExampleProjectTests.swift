import EmulatorSupport
import EmulatorTestSupport
import Testing

@testable import EmulatorSuite

/// The repository's own example project — its firebase.json, .firebaserc, rules files and
/// emulator-data/ — started as the README's quick start starts it (on free ports): the rules
/// mean what their comments say and fit the example data.
@Suite("The example project")
struct ExampleProjectTests {
    /// The repository root (this file is Tests/EmulatorSuiteTests/ExampleProjectTests.swift).
    static let root = "/" + String(#filePath).split(separator: "/").dropLast(3).joined(separator: "/")

    struct Running {
        let suite: Suite
        let output: CapturedOutput
        let locator: TemporaryDirectory
        var firestore: Int { suite.port(of: .firestore) ?? 0 }
        var database: Int { suite.port(of: .database) ?? 0 }
    }

    static func start() throws -> Running {
        var options = StartOptions()
        options.importDirectory = "emulator-data"
        options.verbosity = .debug
        var configuration = try ConfigurationLoader.load(options, workingDirectory: root)
        for (kind, address) in configuration.listeners {
            configuration.listeners[kind] = ListenAddress(host: address.host, port: 0, isFixed: false)
        }
        let locator = TemporaryDirectory()
        configuration.locatorDirectory = locator.path
        let output = CapturedOutput()
        let suite = try Suite.start(
            configuration, hooks: .live(version: SuiteVersion.current), console: output.console(verbosity: .debug))
        return Running(suite: suite, output: output, locator: locator)
    }

    static let project = "demo-emulators"
    static let namespace = "demo-emulators-default-rtdb"

    static func bearer(_ uid: String) -> [(String, String)] {
        [("Authorization", "Bearer " + MockUserToken.make(uid: uid, project: project))]
    }

    static func firestore(_ run: Running, _ method: String, _ path: String, _ body: String = "", as uid: String? = nil) throws -> Int {
        let target = "/v1/projects/\(project)/databases/(default)/documents/\(path)"
        return try RulesEndToEndTests.send(run.firestore, method, target, body, headers: uid.map(bearer) ?? []).status
    }

    static func database(_ run: Running, _ method: String, _ path: String, _ body: String = "", as uid: String? = nil) throws -> Int {
        let target = "/\(path).json?ns=\(namespace)"
        return try RulesEndToEndTests.send(run.database, method, target, body, headers: uid.map(bearer) ?? []).status
    }

    static func fields(_ pairs: String) -> String { #"{"fields":{\#(pairs)}}"# }
    static let book = fields(
        #""title":{"stringValue":"Dune"},"author":{"stringValue":"Frank Herbert"},"numberOfPages":{"integerValue":"412"}"#)

    @Test func firestoreRulesFitTheExampleData() throws {
        let run = try Self.start()
        defer { run.suite.shutdown() }
        #expect(run.output.standardOutput.contains("Imported 8 documents"))
        // Books: anyone reads; signed-in users write complete books; nobody but an admin deletes.
        #expect(try Self.firestore(run, "GET", "books/hitchhiker") == 200)
        #expect(try Self.firestore(run, "PATCH", "books/dune", Self.book) == 403)
        #expect(try Self.firestore(run, "PATCH", "books/dune", Self.book, as: "ada") == 200)
        #expect(try Self.firestore(run, "PATCH", "books/bad", Self.fields(#""title":{"stringValue":"No author"}"#), as: "ada") == 403)
        #expect(try Self.firestore(run, "DELETE", "books/hitchhiker", as: "ada") == 403)
        // Reference data: read-only.
        #expect(try Self.firestore(run, "GET", "colors/blue") == 200)
        #expect(try Self.firestore(run, "GET", "programming-languages") == 200)
        #expect(try Self.firestore(run, "PATCH", "colors/red", Self.fields(#""name":{"stringValue":"Red"}"#), as: "ada") == 403)
        // Users own their documents.
        #expect(try Self.firestore(run, "PATCH", "users/ada", Self.fields(#""n":{"integerValue":"1"}"#), as: "ada") == 200)
        #expect(try Self.firestore(run, "GET", "users/ada/notes/n1", as: "ada") == 404)
        #expect(try Self.firestore(run, "GET", "users/ada", as: "bob") == 403)
        #expect(try Self.firestore(run, "PATCH", "users/alice", Self.fields(#""n":{"integerValue":"1"}"#)) == 403)
        // Anything unmatched is denied; the owner bypasses everything.
        #expect(try Self.firestore(run, "PATCH", "posts/p", Self.fields(#""title":{"stringValue":"x"}"#), as: "ada") == 403)
        #expect(
            try RulesEndToEndTests.send(
                run.firestore, "DELETE", "/v1/projects/\(Self.project)/databases/(default)/documents/books/dune",
                headers: [("Authorization", "Bearer owner")]
            ).status == 200)
        #expect(run.output.standardOutput.contains("PERMISSION_DENIED"))
    }

    @Test func databaseRulesFitTheExampleData() throws {
        let run = try Self.start()
        defer { run.suite.shutdown() }
        // Profiles: anyone reads; each user writes their own, which must have a username.
        #expect(try Self.database(run, "GET", "users/ada") == 200)
        #expect(try Self.database(run, "PUT", "users/bob", #"{"username":"bob"}"#, as: "bob") == 200)
        #expect(try Self.database(run, "PATCH", "users/ada", #"{"username":"ada.l"}"#, as: "ada") == 200)
        #expect(try Self.database(run, "PUT", "users/ada/username", #""ada""#, as: "ada") == 200)
        #expect(try Self.database(run, "PATCH", "users/ada", #"{"username":"x"}"#) == 401)
        #expect(try Self.database(run, "PUT", "users/bob", #"{"name":"bob"}"#, as: "bob") == 401)
        #expect(try Self.database(run, "PUT", "users/bob", #"{"username":"bob"}"#, as: "ada") == 401)
        // Posts: the author writes; anyone signed in stars; nobody else edits.
        let post = #"{"uid":"ada","author":"ada","title":"T","body":"B","starCount":0}"#
        #expect(try Self.database(run, "PUT", "posts/p1", post, as: "grace") == 401)
        #expect(try Self.database(run, "PUT", "posts/p1", post, as: "ada") == 200)
        let starred = #"{"uid":"ada","author":"ada","title":"T","body":"B","starCount":1,"stars":{"grace":true}}"#
        #expect(try Self.database(run, "PUT", "posts/p1", starred, as: "grace") == 200)
        #expect(try Self.database(run, "PATCH", "posts/p1", #"{"title":"Mine now"}"#, as: "grace") == 401)
        #expect(try Self.database(run, "PATCH", "posts/p1", #"{"title":"Edited"}"#, as: "ada") == 200)
        #expect(try Self.database(run, "PATCH", "", #"{"posts/p2":\#(post),"user-posts/ada/p2":\#(post)}"#, as: "ada") == 200)
        #expect(try Self.database(run, "PATCH", "", #"{"posts/p3":\#(post),"user-posts/grace/p3":\#(post)}"#, as: "ada") == 401)
        // Nothing outside the three trees; the owner bypasses everything.
        #expect(try Self.database(run, "GET", "secret") == 401)
        #expect(try Self.database(run, "PUT", "secret", "1", as: "ada") == 401)
        #expect(
            try RulesEndToEndTests.send(
                run.database, "PUT", "/secret.json?ns=\(Self.namespace)", "1", headers: [("Authorization", "Bearer owner")]
            ).status == 200)
        // At debug verbosity a denial names the rule that decided it: path, line and expression.
        let log = run.output.standardOutput + run.output.standardError
        #expect(log.contains("PERMISSION_DENIED write /users/bob"))
        #expect(log.contains("'.write' @ /users/$uid L"))
        #expect(log.contains("auth != null && auth.uid === $uid"))
    }
}
