import EmulatorClient
import EmulatorTesting
import Foundation
import Testing

@Suite struct EmulatorTestingTests {
    @Test func seedsReadsAndClearsBothDatabases() async throws {
        try await withEmulators(projectID: "demo-testing") { env in
            try await env.seed(firestore: ["books/hitchhiker": ["title": "The Hitchhiker's Guide to the Galaxy", "numberOfPages": 816]])
            try await env.seed(database: ["ada": ["username": "ada"]], at: "users")
            let db = env.firestore()
            #expect(try await db.document("books/hitchhiker").getDocument().get("numberOfPages") as? Int == 816)
            let rtdb = env.database()
            #expect(try await rtdb.reference(withPath: "users/ada/username").getData().value as? String == "ada")
            try await env.clearAll()
            #expect(try await !db.document("books/hitchhiker").getDocument().exists)
            #expect(try await !rtdb.reference(withPath: "users").getData().exists())
        }
    }

    @Test func rulesApplyToTokensButNotToTheAdmin() async throws {
        try await withEmulators(firestoreRules: lockedFirestoreRules, databaseRules: lockedDatabaseRules) { env in
            try await env.seed(firestore: ["locked/a": ["x": 1]])
            try await env.seed(database: 1, at: "locked/a")
            await #expect(throws: FirestoreError.self) { try await env.firestore(authToken: aliceIDToken).document("locked/a").getDocument() }
            #expect(try await env.firestore().document("locked/a").getDocument().exists)
            let refused = await #expect(throws: DatabaseError.self) {
                try await env.database(authToken: aliceIDToken).reference(withPath: "locked/a").getData()
            }
            #expect(refused?.status == 401)
            #expect(try await env.database().reference(withPath: "locked/a").getData().value as? Int == 1)
        }
    }

    @Test func rulesThatDoNotCompileAreReported() async throws {
        await #expect(throws: (any Error).self) {
            try await withEmulators(services: .firestore, firestoreRules: "service cloud.firestore { match") { _ in }
        }
    }

    @Test func aServiceThatWasNotStartedSaysSo() async throws {
        try await withEmulators(services: .database) { env in
            #expect(env.firestorePort == nil)
            let error = await #expect(throws: EmulatorTestError.self) { try await env.clearFirestore() }
            #expect(error?.description.contains("Firestore") == true)
        }
    }
}
