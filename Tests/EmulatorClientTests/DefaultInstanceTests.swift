@testable import EmulatorClient
import EmulatorTesting
import Foundation
import Testing

private let noProjectInEnvironment = ProcessInfo.processInfo.environment["GCLOUD_PROJECT"] == nil
    && ProcessInfo.processInfo.environment["GOOGLE_CLOUD_PROJECT"] == nil

@Suite struct DefaultInstanceTests {
    @Test func namedAppsGiveOneInstanceEachFromTheirOptions() throws {
        FirebaseApp.configure(name: "named-a", options: FirebaseOptions(projectID: "demo-named", databaseURL: "http://127.0.0.1:9999?ns=custom-ns"))
        let app = try #require(FirebaseApp.app(name: "named-a"))
        #expect(Firestore.firestore(app: app) === Firestore.firestore(app: app))
        #expect(Firestore.firestore(app: app).projectID == "demo-named")
        #expect(Database.database(app: app) === Database.database(app: app))
        #expect(Database.database(app: app).namespace == "custom-ns")
    }

    @Test func theDatabaseURLDefaultsToTheProjectsDefaultInstance() throws {
        let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
        options.projectID = "demo-derived"
        FirebaseApp.configure(name: "derived", options: options)
        let app = try #require(FirebaseApp.app(name: "derived"))
        #expect(Database.database(app: app).namespace == "demo-derived-default-rtdb")
    }

    @Test(.enabled(if: noProjectInEnvironment, "GCLOUD_PROJECT is set, so every instance has a project"))
    func withoutAProjectEveryCallSaysWhatIsMissing() async throws {
        FirebaseApp.configure(name: "empty", options: FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1"))
        let app = try #require(FirebaseApp.app(name: "empty"))
        let firestoreError = await #expect(throws: FirestoreError.self) {
            try await Firestore.firestore(app: app).document("books/a").getDocument()
        }
        #expect(firestoreError?.code == .failedPrecondition)
        #expect(firestoreError?.message.contains("FirebaseOptions.projectID") == true)
        #expect(firestoreError?.message.contains("GCLOUD_PROJECT") == true)
        let databaseError = await #expect(throws: DatabaseError.self) {
            try await Database.database(app: app).reference().getData()
        }
        #expect(databaseError?.message.contains("FirebaseOptions.databaseURL") == true)
        let refused: String? = await completion { done in
            Database.database(app: app).reference().setValue(1) { error, _ in done(error.map { "\($0)" }) }
        }
        #expect(refused?.contains("GCLOUD_PROJECT") == true)
    }

    @Test(arguments: [
        ("127.0.0.1:8080", "127.0.0.1", 8080), ("localhost:9000", "localhost", 9000), ("[::1]:8085", "::1", 8085),
        (":9000", "127.0.0.1", 9000),
    ])
    func emulatorHostVariablesParse(_ text: String, _ host: String, _ port: Int) throws {
        let parsed = try #require(EmulatorEnvironment.parse(text))
        #expect(parsed.host == host && parsed.port == port)
    }

    @Test(arguments: ["localhost", "host:", "host:x", "host:0", "host:70000"])
    func malformedEmulatorHostsAreIgnored(_ text: String) {
        #expect(EmulatorEnvironment.parse(text) == nil)
    }
}
